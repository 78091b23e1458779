import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FunctionTool, InMemoryArtifactService, LlmAgent, runAgent } from '../index.js';
import { functionCallResponse, ScriptedModel } from '../testing/index.js';

describe('artifact metadata from a tool', () => {
  it('a tool saves an artifact with custom metadata; the version lands in the event and the metadata in the store', async () => {
    const artifactService = new InMemoryArtifactService();
    const tool = new FunctionTool({
      name: 'export_csv',
      description: 'Exports a CSV',
      parameters: z.object({}),
      execute: async (_args, context) => {
        const version = await context.saveArtifact(
          'report.csv',
          { inlineData: { mimeType: 'text/csv', data: Buffer.from('a,b\n').toString('base64') } },
          { rows: 1, source: 'export_csv' },
        );
        return { version };
      },
    });
    const model = new ScriptedModel([functionCallResponse('export_csv', {}), 'done']);
    const result = await runAgent(new LlmAgent({ name: 'a', model, tools: [tool] }), 'export', {
      artifactService,
      appName: 'app',
    });
    const response = result.events.find((e) => e.actions.artifactDelta['report.csv'] !== undefined);
    expect(response?.actions.artifactDelta).toEqual({ 'report.csv': 0 });
    const info = await artifactService.getArtifactVersion({
      appName: 'app',
      userId: 'user',
      sessionId: 'session',
      filename: 'report.csv',
    });
    expect(info).toMatchObject({
      version: 0,
      mimeType: 'text/csv',
      customMetadata: { rows: 1, source: 'export_csv' },
    });
  });
});
