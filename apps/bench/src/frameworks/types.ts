/**
 * One framework under test, reduced to what the agent-loop scenarios need: open a session and run
 * one turn (user message → model calls the tool → tool → model answers) in it.
 */
export interface TurnDriver {
  readonly framework: FrameworkName;
  /** Creates (or prepares) a session and returns a function that runs one turn in it. */
  openSession(sessionId: string): Promise<(text: string) => Promise<void>>;
  /** Model calls and tool runs so far, to check every framework did the same work. */
  readonly counters: WorkCounters;
  close(): Promise<void>;
}

export interface WorkCounters {
  modelCalls: number;
  toolCalls: number;
  /** Conversation items (contents / input items) in the last model request: shows history is sent. */
  lastRequestItems: number;
}

export const frameworkNames = ['adk', 'google-adk', 'openai-agents'] as const;
export type FrameworkName = (typeof frameworkNames)[number];

export const frameworkLabels: Record<FrameworkName, string> = {
  adk: 'ADK for TypeScript',
  'google-adk': '@google/adk',
  'openai-agents': '@openai/agents',
};

/** Which session store the ADK driver uses (rivals always use their in-memory store). */
export type SessionStore = 'memory' | 'pglite' | 'postgres';

export interface DriverOptions {
  store: SessionStore;
  /** Connection URL for the `postgres` store. */
  postgresUrl?: string;
}

/** Thrown by a driver factory when a package it needs does not export what it needs yet. */
export class SkipError extends Error {
  override readonly name = 'SkipError';
}

/** The one tool every framework gets, and the canned answers of the scripted model. */
export const TOOL_NAME = 'get_weather';
export const TOOL_DESCRIPTION = 'Returns the weather forecast for a city.';
export const INSTRUCTION = 'You are a helpful assistant. Use get_weather to answer weather questions.';
export const FINAL_TEXT = 'It is sunny in Paris.';
export const TOOL_ARGS = { city: 'Paris' } as const;
export const TOOL_RESULT = { forecast: 'sunny', temperatureC: 21 } as const;
