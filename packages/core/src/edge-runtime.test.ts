// The root of @adk/core runs in an edge runtime: one agent turn (a scripted model calls a zod tool,
// then answers) inside Vercel's `edge-runtime` VM, which has web APIs only (no `require`, no
// `process.getBuiltinModule`, no `node:` modules). The entry is bundled with esbuild for the
// browser platform, so a `node:` import anywhere reachable from the root fails the build first.
import { fileURLToPath } from 'node:url';
import { EdgeRuntime } from 'edge-runtime';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const here = fileURLToPath(new URL('.', import.meta.url));

const ENTRY = `
import { z } from 'zod';
import { FunctionTool, InMemorySessionService, LlmAgent, Runner, loadZod, userContent } from './index.ts';
import { ScriptedModel, functionCallResponse } from './testing/scripted-model.ts';

globalThis.runTurn = async () => {
  await loadZod();
  const add = new FunctionTool({
    name: 'add',
    description: 'Adds two numbers.',
    parameters: z.object({ a: z.number(), b: z.number() }),
    execute: ({ a, b }) => ({ sum: a + b }),
  });
  const model = new ScriptedModel([functionCallResponse('add', { a: 2, b: 3 }), 'The sum is 5.']);
  const agent = new LlmAgent({ name: 'calc', model, instruction: 'Add numbers.', tools: [add] });
  const runner = new Runner({ appName: 'edge', agent, sessionService: new InMemorySessionService() });
  const session = await runner.sessionService.createSession({ appName: 'edge', userId: 'u' });
  const events = [];
  for await (const event of runner.run({ userId: 'u', sessionId: session.id, newMessage: userContent('2 + 3?') })) {
    events.push(event);
  }
  return JSON.stringify({
    isNode: typeof globalThis.process?.getBuiltinModule === 'function',
    authors: events.map((e) => e.author),
    toolResult: events.flatMap((e) => e.content?.parts ?? []).find((p) => p.functionResponse)?.functionResponse?.response,
    text: events.at(-1)?.content?.parts?.[0]?.text,
    errors: events.filter((e) => e.errorCode).map((e) => e.errorCode + ': ' + e.errorMessage),
  });
};
`;

describe('@adk/core in an edge runtime', () => {
  it('bundles for the browser without node: modules and runs one agent turn with a tool', async () => {
    const bundled = await build({
      stdin: { contents: ENTRY, resolveDir: here, loader: 'ts', sourcefile: 'edge-entry.ts' },
      bundle: true,
      write: false,
      format: 'iife',
      platform: 'browser',
      target: 'es2022',
      // @opentelemetry/api is an optional peer: left out, as an edge application would.
      external: ['@opentelemetry/api', 'undici'],
      logLevel: 'silent',
    });
    const code = bundled.outputFiles[0]?.text ?? '';
    expect(code).not.toMatch(/\bfrom\s*["']node:|require\(["']node:/);

    const runtime = new EdgeRuntime();
    runtime.evaluate(code);
    const result = JSON.parse(await runtime.evaluate<Promise<string>>('globalThis.runTurn()')) as {
      isNode: boolean;
      authors: string[];
      toolResult: unknown;
      text: string;
      errors: string[];
    };
    expect(result.isNode).toBe(false);
    expect(result.errors).toEqual([]);
    expect(result.toolResult).toEqual({ sum: 5 });
    expect(result.text).toBe('The sum is 5.');
    expect(result.authors).toEqual(['user', 'calc', 'calc', 'calc']);
  }, 60_000);
});
