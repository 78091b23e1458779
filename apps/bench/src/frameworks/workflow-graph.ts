/**
 * The workflow every framework runs in the workflow scenario: ten nodes, the same functions.
 *
 *   START → prepare → [branch_1 … branch_5] → join → merge → check ─ok→ finish
 *
 * `prepare` splits the message, five branches run side by side (a fan-out of 5) and each scores
 * the text its own way, a `JoinNode` waits for all five, `merge` adds the scores, `check` routes
 * on the total, and `finish` formats the answer: 9 function nodes and a join, one route.
 */

/** How many times the node functions ran, to check every framework did the same work. */
export interface WorkflowCounters {
  nodeRuns: number;
  lastOutput: unknown;
}

export interface WorkflowFunctions {
  prepare: (ctx: unknown, input: unknown) => { words: string[] };
  branches: ((ctx: unknown, input: unknown) => number)[];
  merge: (ctx: unknown, input: unknown) => number;
  check: (ctx: { route?: unknown }, input: unknown) => number;
  finish: (ctx: unknown, input: unknown) => string;
}

export const FAN_OUT = 5;
/** Function nodes per turn (the join is the framework's own node). */
export const FUNCTION_NODES_PER_TURN = 4 + FAN_OUT;
/** Nodes in the graph, START not counted. */
export const NODES = FUNCTION_NODES_PER_TURN + 1;

/** The node functions, with names as each framework reads them (a function's `name`). */
export function workflowFunctions(counters: WorkflowCounters): WorkflowFunctions {
  const prepare = (_ctx: unknown, input: unknown) => {
    counters.nodeRuns++;
    return {
      words: String(input ?? '')
        .split(/\s+/)
        .filter(Boolean),
    };
  };
  const branches = Array.from({ length: FAN_OUT }, (_, i) => {
    const fn = (_ctx: unknown, input: unknown) => {
      counters.nodeRuns++;
      const { words } = input as { words: string[] };
      return words.reduce((sum, word) => sum + (word.length % (i + 2)), i);
    };
    Object.defineProperty(fn, 'name', { value: `branch_${i + 1}` });
    return fn;
  });
  const merge = (_ctx: unknown, input: unknown) => {
    counters.nodeRuns++;
    return Object.values(input as Record<string, number>).reduce((a, b) => a + b, 0);
  };
  const check = (ctx: { route?: unknown }, input: unknown) => {
    counters.nodeRuns++;
    ctx.route = typeof input === 'number' ? 'ok' : 'bad';
    return input as number;
  };
  const finish = (_ctx: unknown, input: unknown) => {
    counters.nodeRuns++;
    counters.lastOutput = `score ${input}`;
    return `score ${input}`;
  };
  return { prepare, branches, merge, check, finish };
}

/** A turn's message and the output `finish` gives for it (the same in every framework). */
export function turnMessage(turn: number): string {
  return `Plan the quarterly review for team ${turn} with five parallel checks`;
}

export function expectedOutput(message: string): string {
  const words = message.split(/\s+/).filter(Boolean);
  let total = 0;
  for (let i = 0; i < FAN_OUT; i++) total += words.reduce((sum, word) => sum + (word.length % (i + 2)), i);
  return `score ${total}`;
}

/** One framework's workflow runner: open a session, run one turn (a user message) in it. */
export interface WorkflowDriver {
  readonly counters: WorkflowCounters;
  openSession(sessionId: string): Promise<(text: string) => Promise<unknown>>;
}
