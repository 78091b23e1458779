import { describe, expect, it } from 'vitest';
import { builtInRedactor, redactAttributes } from './redaction.js';

// Which span attributes the redactor sees, and what comes back changed.

const SECRET = 'sk-live-A1b2C3d4E5f6G7h8J9k0L1m2';

describe('redactAttributes', () => {
  it('masks texts and list items, reports only what changed, and leaves identifiers alone', () => {
    const seen: string[] = [];
    const redact = (text: string) => {
      seen.push(text);
      return builtInRedactor(text);
    };
    const list = ['STOP', `key ${SECRET}`, 3];
    const changed = redactAttributes(
      {
        'gen_ai.tool.description': `uses ${SECRET}`,
        'gen_ai.agent.description': '',
        'gen_ai.response.finish_reasons': ['STOP'],
        'adk.notes': list,
        'gen_ai.tool.call.id': SECRET,
        'gen_ai.usage.input_tokens': 4,
      },
      redact,
    );
    expect(changed).toEqual({
      'gen_ai.tool.description': 'uses [REDACTED:api_key]',
      'adk.notes': ['STOP', 'key [REDACTED:api_key]', 3],
    });
    // The list given is not changed in place; an empty text and an identifier never reach the redactor.
    expect(list[1]).toBe(`key ${SECRET}`);
    expect(seen).not.toContain('');
    expect(seen).not.toContain(SECRET);
  });
});
