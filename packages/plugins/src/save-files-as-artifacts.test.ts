import { InMemoryArtifactService, LlmAgent } from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { describe, expect, it } from 'vitest';
import { errors, harness } from './__fixtures__/harness.js';
import { SaveFilesAsArtifactsPlugin } from './save-files-as-artifacts.js';

const pdf = { inlineData: { mimeType: 'application/pdf', data: 'JVBERi0xLjQ=', displayName: 'report.pdf' } };
const png = { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } };

describe('SaveFilesAsArtifactsPlugin', () => {
  it('saves inline files of user messages as artifacts and replaces them by references', async () => {
    const artifactService = new InMemoryArtifactService();
    const model = new ScriptedModel({ respond: () => 'got it' });
    const h = harness(new LlmAgent({ name: 'a', model }), [new SaveFilesAsArtifactsPlugin()], {
      artifactService,
    });
    const events = await h.send({ role: 'user', parts: [{ text: 'summarize these' }, pdf, png] });
    const invocationId = events[0]?.invocationId;
    const pngName = `upload_${invocationId}_2.png`;

    const sent = model.requests[0]?.contents[0];
    expect(sent).toEqual({
      role: 'user',
      parts: [
        { text: 'summarize these' },
        { text: '[Uploaded Artifact: "report.pdf" (application/pdf, version 0)]' },
        { text: `[Uploaded Artifact: "${pngName}" (image/png, version 0)]` },
      ],
    });
    const scope = { appName: 'app', userId: 'u', sessionId: 's' };
    expect(await artifactService.loadArtifact({ ...scope, filename: 'report.pdf' })).toEqual(pdf);
    expect(await artifactService.loadArtifact({ ...scope, filename: pngName })).toEqual(png);

    // The session stores the reference, not the bytes, and records the saves on the user event.
    const stored = (await h.session())?.events[0];
    expect(stored?.content).toEqual(sent);
    expect(stored?.actions.artifactDelta).toEqual({ 'report.pdf': 0, [pngName]: 0 });

    // Uploading the same name again makes a new version.
    await h.send({ role: 'user', parts: [pdf] });
    expect(model.lastUserText()).toBe('[Uploaded Artifact: "report.pdf" (application/pdf, version 1)]');
    expect(await artifactService.listVersions({ ...scope, filename: 'report.pdf' })).toEqual([0, 1]);
  });

  it('adds a fileData reference when a URI is given, and can save only some parts', async () => {
    const model = new ScriptedModel({ respond: () => 'ok' });
    const h = harness(
      new LlmAgent({ name: 'a', model }),
      [
        new SaveFilesAsArtifactsPlugin({
          shouldSave: (part) => part.inlineData?.mimeType === 'application/pdf',
          fileUri: ({ filename, version }) => `gs://bucket/app/u/s/${filename}#${version}`,
        }),
      ],
      { artifactService: new InMemoryArtifactService() },
    );
    await h.send({ role: 'user', parts: [pdf, png] });
    expect(model.requests[0]?.contents[0]?.parts).toEqual([
      { text: '[Uploaded Artifact: "report.pdf" (application/pdf, version 0)]' },
      {
        fileData: {
          mimeType: 'application/pdf',
          fileUri: 'gs://bucket/app/u/s/report.pdf#0',
          displayName: 'report.pdf',
        },
      },
      png,
    ]);
  });

  it('leaves text-only messages alone and reports a missing artifact service clearly', async () => {
    const model = new ScriptedModel({ respond: () => 'ok' });
    const h = harness(new LlmAgent({ name: 'a', model }), [new SaveFilesAsArtifactsPlugin()]);
    await h.send('just text');
    expect(model.lastUserText()).toBe('just text');
    const events = await h.send({ role: 'user', parts: [png] });
    expect(errors(events)).toEqual([
      { code: 'PLUGIN', message: expect.stringContaining('needs an artifactService on the Runner') },
    ]);
  });
});
