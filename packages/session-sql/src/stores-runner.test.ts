import { FunctionTool, LlmAgent, loadArtifactsTool, preloadMemoryTool, runAgent } from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import { describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import { createSqlStores } from './index.js';

const postgres = inject('postgres');
const targets = [
  { name: 'pglite', url: 'pglite://memory', skip: undefined },
  { name: 'sqlite', url: 'sqlite://:memory:', skip: undefined },
  { name: 'postgres', url: postgres.url ?? '', skip: postgres.url ? undefined : postgres.skipReason },
];

for (const target of targets) {
  if (target.skip) console.warn(`[session-sql] ${target.name}: runner test skipped: ${target.skip}`);
  describe.skipIf(target.skip !== undefined)(`${target.name}: SQL stores through the Runner`, () => {
    it('a tool saves an artifact, the session goes to memory, and the next session is told about it', async () => {
      const stores = await createSqlStores(target.url, { tablePrefix: `rn_${process.pid}_` });
      try {
        const common = {
          appName: 'app',
          userId: 'ann',
          sessionService: stores.sessions,
          artifactService: stores.artifacts,
          memoryService: stores.memory,
        };
        const saveNote = new FunctionTool({
          name: 'save_note',
          description: 'Saves a note',
          parameters: z.object({ text: z.string() }),
          execute: async ({ text }, context) => ({
            version: await context.saveArtifact('user:note.txt', { text }),
          }),
        });
        const first = await runAgent(
          new LlmAgent({
            name: 'a',
            model: new ScriptedModel([
              functionCallResponse('save_note', { text: 'parking: level 3' }),
              'Saved.',
            ]),
            tools: [saveNote],
          }),
          'I parked on level 3 of the garage',
          { ...common, sessionId: 'monday' },
        );
        expect(first.error).toBeUndefined();
        await stores.memory.addSessionToMemory(first.session);

        const model = new ScriptedModel([
          functionCallResponse('load_artifacts', { artifact_names: ['user:note.txt'] }),
          'Level 3.',
        ]);
        const second = await runAgent(
          new LlmAgent({ name: 'a', model, tools: [preloadMemoryTool, loadArtifactsTool] }),
          'Where did I park in the garage?',
          { ...common, sessionId: 'tuesday' },
        );
        expect(second.text).toBe('Level 3.');
        expect(model.requests[0]?.systemInstruction).toContain('user: I parked on level 3 of the garage');
        expect(model.requests[0]?.systemInstruction).toContain('user:note.txt');
        const loaded = model.requests[1]?.contents.at(-1)?.parts.map((p) => p.text);
        expect(loaded).toContain('parking: level 3');
      } finally {
        await stores.close();
      }
    });
  });
}
