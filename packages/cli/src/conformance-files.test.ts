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
      { name: 'get_weather', description: 'The weather.', parameters_json_schema: { type: 'object' } },
    ]);
  });
});
