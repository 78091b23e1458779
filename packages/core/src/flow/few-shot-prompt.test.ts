import { describe, expect, it } from 'vitest';
import { type FewShotExample, fewShotInstruction } from '../index.js';

// ExampleTool's text, pinned as adk-python's `examples/example_util.py` writes it.

const examples: FewShotExample[] = [
  {
    input: { role: 'user', parts: [{ text: 'What is the weather in Paris?' }] },
    output: [
      {
        role: 'model',
        parts: [
          { functionCall: { id: '', name: 'get_weather', args: { city: 'Paris', days: 2, metric: true } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { id: '', name: 'get_weather', response: { forecast: 'sunny', high: 21.5 } } },
        ],
      },
      { role: 'model', parts: [{ text: 'Sunny, up to 21.5°C.' }] },
    ],
  },
  {
    input: { role: 'user', parts: [{ text: 'Hi' }, { text: 'there' }] },
    output: [{ role: 'model', parts: [{ text: 'Hello!' }, { text: 'How can I help?' }] }],
  },
];

describe('the few-shot instruction of ExampleTool', () => {
  it('is adk-python text for a Gemini 2 model (plain fences)', () => {
    expect(fewShotInstruction(examples, 'gemini-2.5-flash')).toBe(
      [
        '<EXAMPLES>',
        'Begin few-shot',
        'The following are examples of user queries and model responses using the available tools.',
        '',
        'EXAMPLE 1:',
        'Begin example',
        '[user]',
        'What is the weather in Paris?',
        '[model]',
        '```',
        "get_weather(city='Paris', days=2, metric=True)",
        '```',
        '[user]',
        '```',
        "{'will_continue': None, 'scheduling': None, 'parts': None, 'id': None, 'name': 'get_weather', 'response': {'forecast': 'sunny', 'high': 21.5}}",
        '```',
        '[model]',
        'Sunny, up to 21.5°C.',
        'End example',
        '',
        'EXAMPLE 2:',
        'Begin example',
        '[user]',
        'Hi',
        'there',
        '[model]',
        'Hello!',
        'How can I help?',
        'End example',
        '',
        'End few-shot',
        '<EXAMPLES>',
      ].join('\n'),
    );
  });

  it('uses tool_code and tool_outputs fences for other models', () => {
    const text = fewShotInstruction(examples.slice(0, 1), 'claude-sonnet-4-5');
    expect(text).toContain(
      "[model]\n```tool_code\nget_weather(city='Paris', days=2, metric=True)\n```\n[user]\n```tool_outputs\n{'will_continue': None,",
    );
  });

  it('with no examples is the frame alone', () => {
    expect(fewShotInstruction([], undefined)).toBe(
      '<EXAMPLES>\nBegin few-shot\nThe following are examples of user queries and model responses using the available tools.\n\nEnd few-shot\n<EXAMPLES>',
    );
  });
});
