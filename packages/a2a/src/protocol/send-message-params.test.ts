import { describe, expect, it } from 'vitest';
import { A2aError } from './errors.js';
import { parseParams, sendMessageRequestSchema, toSendMessageRequest } from './schemas.js';
import { readSendMessageParams } from './send-message-params.js';

const viaSchema = (params: object) => toSendMessageRequest(parseParams(sendMessageRequestSchema, params));

/** The same outcome as the schema: equal values with members in the same order, or the same error. */
function expectSameAsSchema(params: object): void {
  let expected: unknown;
  let expectedError: A2aError | undefined;
  try {
    expected = viaSchema(params);
  } catch (error) {
    expectedError = error as A2aError;
  }
  if (expectedError) {
    let actual: unknown;
    try {
      readSendMessageParams(params);
    } catch (error) {
      actual = error;
    }
    expect(actual).toBeInstanceOf(A2aError);
    expect((actual as A2aError).message).toBe(expectedError.message);
    expect((actual as A2aError).fieldViolations).toEqual(expectedError.fieldViolations);
    return;
  }
  const actual = readSendMessageParams(params);
  expect(actual).toEqual(expected);
  expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
}

const text = { text: 'hello' };

describe('readSendMessageParams', () => {
  const cases: [string, object][] = [
    ['a plain text message', { message: { messageId: 'm1', role: 'ROLE_USER', parts: [text] } }],
    [
      'members in another order',
      { message: { parts: [text], role: 'ROLE_USER', taskId: 't', messageId: 'm1', contextId: 'c' } },
    ],
    ['0.3 role names', { message: { messageId: 'm1', role: 'user', parts: [text] } }],
    ['the agent role', { message: { messageId: 'm1', role: 'agent', parts: [text] } }],
    [
      'empty ids read as absent',
      { message: { messageId: 'm1', role: 'ROLE_USER', parts: [text], contextId: '', taskId: '' } },
    ],
    [
      'every simple part kind',
      {
        message: {
          messageId: 'm1',
          role: 'ROLE_USER',
          parts: [
            { mediaType: 'text/plain', text: '' },
            { raw: 'aGk=', filename: 'a.txt', mediaType: 'text/plain' },
            { url: 'https://example.com/x', filename: 'x' },
          ],
        },
      },
    ],
    [
      'extensions and references',
      {
        message: {
          messageId: 'm1',
          role: 'ROLE_USER',
          parts: [text],
          referenceTaskIds: ['a'],
          extensions: ['u'],
        },
      },
    ],
    [
      'a simple configuration',
      {
        configuration: { returnImmediately: true, historyLength: 2, acceptedOutputModes: ['text/plain'] },
        message: { messageId: 'm1', role: 'ROLE_USER', parts: [text] },
      },
    ],
    [
      'an empty configuration',
      { message: { messageId: 'm1', role: 'ROLE_USER', parts: [text] }, configuration: {} },
    ],
    // Shapes the hand-read path leaves to the schema.
    [
      'metadata',
      { message: { messageId: 'm1', role: 'ROLE_USER', parts: [text] }, metadata: { a: [1, { b: null }] } },
    ],
    ['a tenant', { tenant: 'x', message: { messageId: 'm1', role: 'ROLE_USER', parts: [text] } }],
    ['a data part', { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ data: { a: 1 } }] } }],
    [
      'part metadata',
      { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'x', metadata: { k: 'v' } }] } },
    ],
    [
      'unknown members',
      {
        extra: 1,
        message: {
          kind: 'message',
          messageId: 'm1',
          role: 'ROLE_USER',
          parts: [{ kind: 'text', text: 'x' }],
        },
      },
    ],
    [
      'a push config',
      {
        message: { messageId: 'm1', role: 'ROLE_USER', parts: [text] },
        configuration: { taskPushNotificationConfig: { url: 'https://example.com/hook' } },
      },
    ],
    // Invalid requests: the schema words the error.
    ['no message', {}],
    ['an empty message id', { message: { messageId: '', role: 'ROLE_USER', parts: [text] } }],
    ['no parts', { message: { messageId: 'm1', role: 'ROLE_USER', parts: [] } }],
    [
      'a part with two contents',
      { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'a', url: 'b' }] } },
    ],
    [
      'a part with no content',
      { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ filename: 'a' }] } },
    ],
    ['an unknown role', { message: { messageId: 'm1', role: 'ROLE_SYSTEM', parts: [text] } }],
    ['a numeric text', { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 1 }] } }],
    [
      'a negative history length',
      {
        message: { messageId: 'm1', role: 'ROLE_USER', parts: [text] },
        configuration: { historyLength: -1 },
      },
    ],
    [
      'a fractional history length',
      {
        message: { messageId: 'm1', role: 'ROLE_USER', parts: [text] },
        configuration: { historyLength: 1.5 },
      },
    ],
    [
      'a string flag',
      {
        message: { messageId: 'm1', role: 'ROLE_USER', parts: [text] },
        configuration: { returnImmediately: 'yes' },
      },
    ],
    ['a message that is an array', { message: [] }],
    ['parts that are not an array', { message: { messageId: 'm1', role: 'ROLE_USER', parts: text } }],
  ];
  it.each(cases)('reads %s as the schema does', (_name, params) => {
    expectSameAsSchema(JSON.parse(JSON.stringify(params)));
  });

  it('returns fresh arrays, not the request’s own', () => {
    const params = { message: { messageId: 'm1', role: 'ROLE_USER', parts: [text], extensions: ['u'] } };
    const read = readSendMessageParams(params);
    expect(read.message.extensions).not.toBe(params.message.extensions);
    expect(read.message.parts).not.toBe(params.message.parts);
    expect(read.message.parts[0]).not.toBe(params.message.parts[0]);
  });
});
