import type { LlmRequest } from '@adk/core';
import { isAdkError } from '@adk/core';
import { describe, expect, it } from 'vitest';
import {
  ConformanceFileError,
  comparableRequest,
  parseRecordings,
  parseSessionFile,
  parseTestSpec,
  toAdkRequest,
} from './index.js';

function errorOf(run: () => unknown): ConformanceFileError {
  try {
    run();
  } catch (error) {
    expect(isAdkError(error, 'CONFORMANCE_FILE')).toBe(true);
    return error as ConformanceFileError;
  }
  throw new Error('expected an error');
}

describe('spec.yaml', () => {
  it("reads adk-python's TestSpec: text or content messages, state deltas, initial state", () => {
    const spec = parseTestSpec(
      [
        'description: d',
        'agent: app',
        'initial_state: { a: 1 }',
        'user_messages:',
        '  - text: hi',
        '    state_delta: { b: 2 }',
        '  - content:',
        '      parts:',
        '        - function_response: { name: approve, response: { ok: true } }',
      ].join('\n'),
      'spec.yaml',
    );
    expect(spec).toEqual({
      description: 'd',
      agent: 'app',
      initial_state: { a: 1 },
      user_messages: [
        { text: 'hi', state_delta: { b: 2 } },
        { content: { parts: [{ function_response: { name: 'approve', response: { ok: true } } }] } },
      ],
    });
  });

  it.each([
    ['agent: app\n', '$', 'a value for description', 'no description', 1],
    ['description: d\nagent: [1]\n', 'agent', 'a string', 'a list of 1', 2],
    ['description: d\nagent: a\nuser_messages: {}\n', 'user_messages', 'a list', 'a mapping', 3],
    [
      'description: d\nagent: a\nuser_messages:\n  - {}\n',
      'user_messages[0]',
      'exactly one of text or content',
      'neither',
      4,
    ],
    [
      'description: d\nagent: a\nuser_messages:\n  - text: x\n    content: { parts: [] }\n',
      'user_messages[0]',
      'exactly one of text or content',
      'both',
      4,
    ],
    [
      'description: d\nagent: a\nuser_messages:\n  - content: { parts: [1] }\n',
      'user_messages[0].content.parts[0]',
      'a part mapping',
      'number 1',
      4,
    ],
  ])(
    'refuses %j naming the YAML path, what was expected and found',
    (text, yamlPath, expected, found, line) => {
      const error = errorOf(() => parseTestSpec(text, 'cases/x/spec.yaml'));
      expect(error).toBeInstanceOf(ConformanceFileError);
      expect(error).toMatchObject({ file: 'cases/x/spec.yaml', yamlPath, expected, found, line });
      expect(error.message).toContain(`cases/x/spec.yaml:${line}:`);
      expect(error.message).toContain(`at ${yamlPath}: expected ${expected}, found ${found}`);
    },
  );

  it('refuses YAML that does not parse, with the line of the syntax error', () => {
    const error = errorOf(() => parseTestSpec('description: d\nagent: [unclosed\n', 'spec.yaml'));
    expect(error.yamlPath).toBe('$');
    expect(error.expected).toBe('well-formed YAML');
    expect(error.found).toMatch(/^a syntax error/);
    expect(error.line).toBeGreaterThanOrEqual(2);
  });
});

describe('generated-recordings.yaml', () => {
  it('reads both spellings of the responses (llm_responses, and the older llm_response)', () => {
    const file = parseRecordings(
      [
        'recordings:',
        '  - user_message_index: 0',
        '    agent_name: a',
        '    llm_recording: { llm_request: { model: m }, llm_response: { partial: false } }',
        '  - user_message_index: 0',
        '    agent_name: a',
        '    llm_recording: { llm_request: { model: m }, llm_responses: [{ partial: true }, {}] }',
        '  - user_message_index: 0',
        '    agent_name: a',
        '    tool_recording: { tool_call: { name: t, args: {} }, tool_response: { name: t, response: {} } }',
      ].join('\n'),
      'r.yaml',
    );
    expect(file.recordings).toHaveLength(3);
    expect(file.recordings[0]?.llm_recording?.llm_response).toEqual({ partial: false });
    expect(file.recordings[1]?.llm_recording?.llm_responses).toEqual([{ partial: true }, {}]);
  });

  it.each([
    ['recordings:\n  - agent_name: a\n', 'recordings[0]', 'a value for user_message_index'],
    [
      'recordings:\n  - user_message_index: -1\n    agent_name: a\n',
      'recordings[0].user_message_index',
      'a whole number, 0 or more',
    ],
    [
      'recordings:\n  - user_message_index: 0\n    agent_name: a\n    tool_recordings: {}\n',
      'recordings[0].tool_recordings',
      'one of the keys user_message_index, agent_name, llm_recording, tool_recording',
    ],
    [
      'recordings:\n  - user_message_index: 0\n    agent_name: a\n    tool_recording: { tool_call: { args: {} } }\n',
      'recordings[0].tool_recording.tool_call',
      'a value for name',
    ],
    ['records: []\n', 'records', 'one of the keys recordings'],
  ])('refuses %j', (text, yamlPath, expected) => {
    const error = errorOf(() => parseRecordings(text, 'r.yaml'));
    expect(error).toMatchObject({ yamlPath, expected });
    expect(error.line).toBeDefined();
  });
});

describe('generated-session.yaml', () => {
  it('refuses an event without an author', () => {
    const error = errorOf(() => parseSessionFile('events:\n  - content: {}\n', 's.yaml'));
    expect(error).toMatchObject({ yamlPath: 'events[0]', expected: 'a value for author', line: 2 });
  });
});

describe("model requests in adk-python's shape", () => {
  const request: LlmRequest = {
    model: 'gemini-2.5-flash',
    systemInstruction: 'You are an agent.',
    contents: [
      { role: 'user', parts: [{ text: 'weather?' }] },
      {
        role: 'model',
        parts: [{ functionCall: { id: 'adk-1', name: 'get_weather', args: { cityName: 'Paris' } } }],
      },
      {
        role: 'user',
        parts: [{ functionResponse: { id: 'toolu_1', name: 'get_weather', response: { tempC: 21 } } }],
      },
    ],
    tools: [
      { name: 'get_weather', description: ' The weather. ', parameters: { type: 'object', title: 'Args' } },
    ],
    builtInTools: [{ type: 'googleSearch' }],
    config: {
      temperature: 0.2,
      maxOutputTokens: 100,
      labels: { run: 'x' },
      thinking: { includeThoughts: true },
    },
  };

  it('maps contents, system instruction, tools and the rest of the config to snake_case', () => {
    expect(toAdkRequest(request)).toEqual({
      model: 'gemini-2.5-flash',
      contents: [
        { role: 'user', parts: [{ text: 'weather?' }] },
        // ADK leaves its own client call ids (adk-…) out of requests; a vendor's id stays.
        { role: 'model', parts: [{ function_call: { name: 'get_weather', args: { cityName: 'Paris' } } }] },
        {
          role: 'user',
          parts: [{ function_response: { id: 'toolu_1', name: 'get_weather', response: { tempC: 21 } } }],
        },
      ],
      config: {
        system_instruction: 'You are an agent.',
        temperature: 0.2,
        max_output_tokens: 100,
        labels: { run: 'x' },
        thinking_config: { include_thoughts: true },
        tools: [
          {
            function_declarations: [
              {
                name: 'get_weather',
                description: ' The weather. ',
                parameters_json_schema: { type: 'object', title: 'Args' },
              },
            ],
          },
          { google_search: {} },
        ],
      },
    });
  });

  it('compares without labels; leniently also without schema prose and description whitespace', () => {
    const adk = toAdkRequest(request);
    const strict = comparableRequest(adk, 'strict') as { config: Record<string, unknown> };
    expect(strict.config.labels).toBeUndefined();
    const lenient = comparableRequest(adk, 'lenient') as {
      config: { tools: Array<{ function_declarations?: unknown[] }> };
    };
    expect(lenient.config.tools[0]?.function_declarations).toEqual([
      { name: 'get_weather', description: 'The weather.', parameters: { type: 'object' } },
    ]);
  });

  const declared = (declaration: Record<string, unknown>) => ({
    model: 'm',
    config: { tools: [{ function_declarations: [{ name: 'plan', ...declaration }] }] },
  });

  it("leniently, genai's parameters form equals our JSON Schema when both describe the same shape", () => {
    const ours = declared({
      parameters_json_schema: {
        type: 'object',
        properties: {
          from: { $ref: '#/$defs/Place' },
          stops: { type: 'array', items: { $ref: '#/$defs/Place' } },
          note: { type: ['string', 'null'] },
          size: { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'null' }] },
        },
        required: ['from', 'stops'],
        additionalProperties: false,
        $defs: {
          Place: {
            type: 'object',
            properties: { city: { type: 'string', description: 'City' } },
            required: ['city'],
          },
        },
      },
    });
    const place = {
      type: 'OBJECT',
      title: 'Place',
      properties: { city: { type: 'STRING' } },
      required: ['city'],
    };
    const genai = declared({
      parameters: {
        type: 'OBJECT',
        properties: {
          from: place,
          stops: { type: 'ARRAY', items: place, min_items: undefined },
          note: { type: 'STRING', nullable: true, default: null },
          size: { type: 'INTEGER', minimum: 1, nullable: true },
        },
        property_ordering: ['from', 'stops', 'note', 'size'],
        required: ['stops', 'from'],
      },
      response: { type: 'OBJECT' },
    });
    expect(comparableRequest(genai, 'lenient')).toEqual(comparableRequest(ours, 'lenient'));
    expect(comparableRequest(genai, 'strict')).not.toEqual(comparableRequest(ours, 'strict'));
    // A different shape still differs: a field that is not nullable, or of another type.
    const other = JSON.parse(
      JSON.stringify(genai).replace('"nullable":true,"default":null', '"default":null'),
    );
    expect(other).not.toEqual(JSON.parse(JSON.stringify(genai)));
    expect(comparableRequest(other, 'lenient')).not.toEqual(comparableRequest(ours, 'lenient'));
  });

  it('leniently, a relayed turn fenced (2.x) or not (1.x) is For context: plus [author] said: …', () => {
    const turn = (parts: string[]) => ({
      model: 'm',
      contents: [{ role: 'user', parts: parts.map((text) => ({ text })) }],
    });
    const fenced = turn([
      'For context: below is a transcript of what another agent did, quoted between <<<BEGIN_QUOTED_AGENT_CONTENT>>> and <<<END_QUOTED_AGENT_CONTENT>>>. …',
      '[writer] said:\n<<<BEGIN_QUOTED_AGENT_CONTENT>>>\nDraft: thanks,\nteam!\n<<<END_QUOTED_AGENT_CONTENT>>>',
      "[writer] called tool `save` with parameters:\n<<<BEGIN_QUOTED_AGENT_CONTENT>>>\n{'id': 1}\n<<<END_QUOTED_AGENT_CONTENT>>>",
    ]);
    const unfenced = turn([
      'For context:',
      '[writer] said: Draft: thanks,\nteam!',
      "[writer] called tool `save` with parameters: {'id': 1}",
    ]);
    expect(comparableRequest(fenced, 'lenient')).toEqual(comparableRequest(unfenced, 'lenient'));
    expect(comparableRequest(unfenced, 'lenient')).toEqual(unfenced);
    expect(comparableRequest(fenced, 'strict')).not.toEqual(comparableRequest(unfenced, 'strict'));
    // The words still count.
    const changed = turn(['For context:', '[writer] said: Draft: thanks!']);
    expect(comparableRequest(changed, 'lenient')).not.toEqual(comparableRequest(fenced, 'lenient'));
  });
});
