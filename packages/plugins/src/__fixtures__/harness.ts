import {
  type BaseAgent,
  type Content,
  type Event,
  InMemorySessionService,
  type Plugin,
  type PluginManager,
  Runner,
  type RunnerOptions,
  userContent,
} from '@adk/core';

export async function collect(iterable: AsyncIterable<Event>): Promise<Event[]> {
  const out: Event[] = [];
  for await (const e of iterable) out.push(e);
  return out;
}

export interface Harness {
  runner: Runner;
  sessionService: InMemorySessionService;
  send(message: string | Content, ids?: { userId?: string; sessionId?: string }): Promise<Event[]>;
  session(ids?: { userId?: string; sessionId?: string }): ReturnType<InMemorySessionService['getSession']>;
}

/** A runner on an in-memory session service, with sessions created on first use. */
export function harness(
  agent: BaseAgent,
  plugins: Plugin[] | PluginManager,
  options: Partial<RunnerOptions> = {},
): Harness {
  const sessionService = new InMemorySessionService();
  const runner = new Runner({
    appName: 'app',
    agent,
    sessionService,
    autoCreateSession: true,
    plugins,
    ...options,
  });
  return {
    runner,
    sessionService,
    send: (message, ids = {}) =>
      collect(
        runner.run({
          userId: ids.userId ?? 'u',
          sessionId: ids.sessionId ?? 's',
          newMessage: typeof message === 'string' ? userContent(message) : message,
        }),
      ),
    session: (ids = {}) =>
      sessionService.getSession({
        appName: 'app',
        userId: ids.userId ?? 'u',
        sessionId: ids.sessionId ?? 's',
      }),
  };
}

/** Text of the final (non-partial, non-user) events. */
export function texts(events: Event[]): string[] {
  return events
    .filter((e) => e.author !== 'user' && !e.partial && e.content?.parts.some((p) => p.text))
    .map((e) => e.content?.parts.map((p) => p.text ?? '').join('') ?? '');
}

export function errors(events: Event[]): { code: string; message: string }[] {
  return events
    .filter((e) => e.errorCode)
    .map((e) => ({ code: e.errorCode as string, message: e.errorMessage ?? '' }));
}

/** The function responses of a content, by tool name. */
export function responsesIn(content: Content | undefined): Record<string, unknown>[] {
  return (content?.parts ?? []).flatMap((p) => (p.functionResponse ? [p.functionResponse.response] : []));
}

/** A promise and its resolver, to hold tools and models at a point while others catch up. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
