// Agents for the browser tests: scripted models (no network) that stream, call tools, change state,
// save an artifact, ask for a confirmation, fail a tool, and transfer to a sub-agent.
import { FunctionTool, LlmAgent, type LlmRequest, type LlmResponse } from '@adk/core';
import { ScriptedModel } from '@adk/core/testing';
import { z } from 'zod';

function lastContent(request: LlmRequest) {
  return request.contents.at(-1);
}

function lastUserText(request: LlmRequest): string {
  for (let i = request.contents.length - 1; i >= 0; i--) {
    const c = request.contents[i];
    const text = c?.role === 'user' ? c.parts.find((p) => p.text)?.text : undefined;
    if (text) return text;
  }
  return '';
}

function text(value: string, tokens: [number, number]): LlmResponse {
  return {
    content: { role: 'model', parts: [{ text: value }] },
    finishReason: 'STOP',
    turnComplete: true,
    usageMetadata: {
      promptTokenCount: tokens[0],
      candidatesTokenCount: tokens[1],
      totalTokenCount: tokens[0] + tokens[1],
    },
  };
}

function call(name: string, args: Record<string, unknown>): LlmResponse {
  return {
    content: { role: 'model', parts: [{ functionCall: { id: '', name, args } }] },
    finishReason: 'STOP',
    usageMetadata: { promptTokenCount: 40, candidatesTokenCount: 8, totalTokenCount: 48 },
  };
}

/** A 1×1 PNG, for the image preview of artifacts. */
const PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

export const LONG_REPLY = `${'This is a very long answer that keeps streaming. '.repeat(60)}The end.`;

const getWeather = new FunctionTool({
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }, ctx) => {
    ctx.state.set('last_city', city);
    await ctx.saveArtifact('report.txt', {
      inlineData: {
        mimeType: 'text/plain',
        data: Buffer.from(`Forecast for ${city}: sunny, 21°C`).toString('base64'),
      },
    });
    await ctx.saveArtifact('map.png', { inlineData: { mimeType: 'image/png', data: PIXEL_PNG } });
    return { city, forecast: 'sunny', temperatureC: 21 };
  },
});

const brokenTool = new FunctionTool({
  name: 'flaky_lookup',
  description: 'A lookup that always fails',
  parameters: z.object({ key: z.string() }),
  execute: async () => {
    throw new Error('lookup service unavailable');
  },
});

const deleteFile = new FunctionTool({
  name: 'delete_file',
  description: 'Deletes a file (asks first)',
  parameters: z.object({ path: z.string() }),
  requireConfirmation: true,
  execute: async ({ path }, ctx) => {
    ctx.state.set('deleted', path);
    return { deleted: path };
  },
});

/** The assistant: what it does depends on the user's words, so one app covers every test. */
export function assistantAgent(): LlmAgent {
  const model = new ScriptedModel({
    chunkSize: 6,
    delayMs: 25,
    respond: (request) => {
      const last = lastContent(request);
      const response = last?.parts.find((p) => p.functionResponse)?.functionResponse;
      if (response) {
        const r = response.response as Record<string, unknown>;
        if (response.name === 'get_weather')
          return text(`It is **${r.forecast}** in ${r.city}, ${r.temperatureC}°C.`, [60, 12]);
        if (response.name === 'delete_file')
          return text(
            r.error ? `I did not delete it: ${String(r.error)}` : `Done: deleted \`${r.deleted}\`.`,
            [70, 8],
          );
        return text(`The tool failed: ${JSON.stringify(r)}`, [50, 10]);
      }
      const said = lastUserText(request).toLowerCase();
      const city = /weather in (\w+)/.exec(said)?.[1];
      if (city) return call('get_weather', { city: city[0]?.toUpperCase() + city.slice(1) });
      if (said.includes('delete')) return call('delete_file', { path: '/tmp/notes.txt' });
      if (said.includes('broken')) return call('flaky_lookup', { key: 'x' });
      if (said.includes('crash')) return new Error('model exploded');
      if (said.includes('long')) return text(LONG_REPLY, [20, 600]);
      return text(
        'Hello! I am a **scripted** assistant. Here is some code:\n\n```ts\nconst answer: number = 42;\n```\n\nAsk me about the weather in Paris.',
        [30, 40],
      );
    },
  });
  return new LlmAgent({
    name: 'assistant',
    description: 'Answers, looks up the weather, deletes files after asking.',
    model,
    instruction: 'Be helpful.',
    tools: [getWeather, brokenTool, deleteFile],
  });
}

/** A router that hands billing questions to a sub-agent. */
export function routerAgent(): LlmAgent {
  const billing = new LlmAgent({
    name: 'billing',
    description: 'Handles invoices and refunds.',
    model: new ScriptedModel({
      chunkSize: 8,
      delayMs: 5,
      respond: () => text('Billing here: your refund is on its way.', [35, 9]),
    }),
  });
  return new LlmAgent({
    name: 'router',
    description: 'Routes questions.',
    model: new ScriptedModel({
      respond: () => call('transfer_to_agent', { agent_name: 'billing' }),
    }),
    subAgents: [billing],
  });
}
