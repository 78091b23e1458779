import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import {
  type Content,
  contentText,
  type Event,
  isPlainObject,
  REQUEST_CONFIRMATION,
  type Runner,
} from '@adk/core';
import { originalCallOf } from '@adk/core/internal';

export interface TerminalChatOptions {
  runner: Runner;
  userId: string;
  sessionId: string;
  input: Readable;
  output: Writable;
  /** Where errors and notices go (default: output). */
  errors?: Writable;
  /** Messages sent first, in order (a replay file's queries); the chat then ends. */
  queries?: string[];
  /** Show a prompt and let readline edit lines (a terminal); otherwise echo each message read. */
  interactive?: boolean;
  /** Called after every invocation (e.g. to save the session). */
  afterTurn?: () => Promise<void>;
}

interface PendingConfirmation {
  id: string;
  tool: string;
  args: unknown;
  hint: string | undefined;
}

const DIM = (s: string, color: boolean) => (color ? `\x1b[2m${s}\x1b[0m` : s);

/**
 * A chat with an agent in the terminal or through a pipe: reads one message per line, streams the
 * reply token by token, shows tool calls and their results, and asks y/n when a tool asks for
 * confirmation. Ends at end of input, or on "exit"/"quit".
 */
export async function runTerminalChat(options: TerminalChatOptions): Promise<void> {
  const { runner, userId, sessionId, output } = options;
  const errors = options.errors ?? output;
  const interactive = options.interactive ?? false;
  const color = interactive;
  const rl = createInterface({
    input: options.input,
    ...(interactive ? { output } : {}),
    terminal: interactive,
  });
  const lines = rl[Symbol.asyncIterator]();
  let current: AbortController | undefined;
  const onSigint = () => {
    if (current && !current.signal.aborted) {
      current.abort();
      errors.write('\n(run stopped)\n');
    } else rl.close();
  };
  rl.on('SIGINT', onSigint);
  process.on('SIGINT', onSigint);

  const readLine = async (prompt: string): Promise<string | undefined> => {
    if (interactive) {
      rl.setPrompt(prompt);
      rl.prompt();
    }
    const next = await lines.next();
    if (next.done) return undefined;
    if (!interactive) output.write(`${prompt}${next.value}\n`);
    return next.value;
  };

  const runTurn = async (message: Content): Promise<PendingConfirmation[]> => {
    const controller = new AbortController();
    current = controller;
    const pending: PendingConfirmation[] = [];
    let streaming: string | undefined;
    const endStream = () => {
      if (streaming !== undefined) output.write('\n');
      streaming = undefined;
    };
    try {
      for await (const event of runner.run({
        userId,
        sessionId,
        newMessage: message,
        runConfig: { streaming: true },
        signal: controller.signal,
      })) {
        if (event.author === 'user') continue;
        if (event.partial) {
          const text = partialText(event);
          if (!text) continue;
          if (streaming !== event.author) {
            endStream();
            output.write(`[${event.author}]: `);
            streaming = event.author;
          }
          output.write(text);
          continue;
        }
        const text = contentText({
          role: 'model',
          parts: (event.content?.parts ?? []).filter((p) => !p.thought),
        });
        if (streaming === event.author && text) {
          endStream();
        } else {
          endStream();
          if (text) output.write(`[${event.author}]: ${text}\n`);
        }
        for (const part of event.content?.parts ?? []) {
          const call = part.functionCall;
          if (call?.name === REQUEST_CONFIRMATION) {
            const original = originalCallOf(call);
            const confirmation = isPlainObject(call.args.toolConfirmation) ? call.args.toolConfirmation : {};
            pending.push({
              id: call.id,
              tool: original?.name ?? 'a tool',
              args: original?.args ?? {},
              hint: typeof confirmation.hint === 'string' ? confirmation.hint.replace(/\.+$/, '') : undefined,
            });
          } else if (call) {
            output.write(`${DIM(`  → ${call.name}(${JSON.stringify(call.args)})`, color)}\n`);
          } else if (part.functionResponse) {
            const r = part.functionResponse;
            output.write(`${DIM(`  ← ${r.name}: ${JSON.stringify(r.response)}`, color)}\n`);
          }
        }
        if (event.errorCode || event.errorMessage) {
          errors.write(
            `[${event.author}] error (${event.errorCode ?? 'ERROR'}): ${event.errorMessage ?? ''}\n`,
          );
        }
      }
    } catch (error) {
      endStream();
      if (controller.signal.aborted) errors.write('(run stopped)\n');
      else throw error;
    } finally {
      endStream();
      current = undefined;
      await options.afterTurn?.();
    }
    return pending;
  };

  const send = async (first: Content): Promise<boolean> => {
    let pending = await runTurn(first);
    while (pending.length > 0) {
      const parts = [];
      for (const p of pending) {
        const question = `  ? ${p.tool}(${JSON.stringify(p.args)}) needs your confirmation${p.hint ? ` — ${p.hint}` : ''}. Allow? [y/N] `;
        const answer = await readLine(question);
        if (answer === undefined) return false;
        const confirmed = /^\s*y(es)?\s*$/i.test(answer);
        parts.push({ functionResponse: { id: p.id, name: REQUEST_CONFIRMATION, response: { confirmed } } });
      }
      pending = await runTurn({ role: 'user', parts });
    }
    return true;
  };

  try {
    if (options.queries) {
      for (const query of options.queries) {
        output.write(`[user]: ${query}\n`);
        if (!(await send({ role: 'user', parts: [{ text: query }] }))) break;
      }
      return;
    }
    for (;;) {
      const line = await readLine('[user]: ');
      if (line === undefined) break;
      const text = line.trim();
      if (!text) continue;
      if (text === 'exit' || text === 'quit') break;
      if (!(await send({ role: 'user', parts: [{ text }] }))) break;
    }
  } finally {
    process.off('SIGINT', onSigint);
    rl.close();
  }
}

function partialText(event: Event): string {
  return (event.content?.parts ?? [])
    .filter((p) => p.text !== undefined && !p.thought)
    .map((p) => p.text)
    .join('');
}
