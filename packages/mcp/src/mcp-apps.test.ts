// MCP Apps: a tool whose definition names a ui:// view; the view is saved as an artifact of the
// session and the function response names it.
import { fileURLToPath } from 'node:url';
import { InMemoryRunner, LlmAgent, userContent } from '@adk/core';
import { functionCallResponse, ScriptedModel } from '@adk/core/testing';
import { describe, expect, it } from 'vitest';
import { type McpTool, McpToolset } from './index.js';

const server = fileURLToPath(new URL('./__fixtures__/apps-server.mjs', import.meta.url));

describe('MCP Apps ui:// resources', () => {
  it('saves the tool’s view as an artifact and names it in the response', async () => {
    const toolset = new McpToolset({
      name: 'apps',
      connection: { type: 'stdio', command: process.execPath, args: [server] },
    });
    try {
      const model = new ScriptedModel({ script: [functionCallResponse('show_weather', {}, 'c1'), 'Shown.'] });
      const runner = new InMemoryRunner({
        agent: new LlmAgent({ name: 'a', model, tools: [toolset] }),
        appName: 'apps',
      });
      const events = [];
      for await (const e of runner.run({ userId: 'u', sessionId: 's', newMessage: userContent('weather?') }))
        events.push(e);
      const response = events
        .flatMap((e) => e.content?.parts ?? [])
        .find((p) => p.functionResponse)?.functionResponse;
      expect(response?.response).toMatchObject({
        structuredContent: { sky: 'sunny', temp: 21 },
        mcpApp: {
          resourceUri: 'ui://weather/view.html',
          artifact: 'mcp-app_apps_weather_view.html',
          version: 0,
          mimeType: 'text/html;profile=mcp-app',
        },
      });
      const saved = await runner.artifactService.loadArtifact({
        appName: 'apps',
        userId: 'u',
        sessionId: 's',
        filename: 'mcp-app_apps_weather_view.html',
      });
      expect(saved?.inlineData?.mimeType).toBe('text/html;profile=mcp-app');
      expect(Buffer.from(saved?.inlineData?.data ?? '', 'base64').toString()).toContain('<h1>Weather</h1>');
      const tool = (await toolset.getTools({} as never)).find((t) => t.name === 'show_weather') as McpTool;
      expect(tool.uiResourceUri).toBe('ui://weather/view.html');
    } finally {
      await toolset.close();
    }
  });
});
