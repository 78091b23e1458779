import { describe, expect, it } from 'vitest';
import type { AdkEvent } from '../api/types.js';
import { layout, toGraph } from './graph.js';
import {
  formFromSchema,
  initialRaw,
  openQuestions,
  outputText,
  parseNodePath,
  readForm,
  replyResponse,
  workflowStatus,
} from './workflow.js';

let n = 0;
function ev(partial: Partial<AdkEvent>): AdkEvent {
  n++;
  return { id: `e${n}`, author: 'flow', invocationId: 'i1', ...partial };
}
const ask = (id: string, path: string) =>
  ev({
    nodeInfo: { path },
    longRunningToolIds: [id],
    content: {
      role: 'model',
      parts: [
        { functionCall: { id, name: 'adk_request_input', args: { message: 'OK?', response_schema: {} } } },
      ],
    },
  });
const reply = (id: string, invocationId = 'i1') =>
  ev({
    author: 'user',
    invocationId,
    content: { role: 'user', parts: [{ functionResponse: { id, name: 'adk_request_input', response: {} } }] },
  });

describe('where a workflow run is', () => {
  it('reads node paths with run ids', () => {
    expect(parseNodePath('flow@1/fan@2/inner@10')).toEqual([
      { name: 'flow', run: 1 },
      { name: 'fan', run: 2 },
      { name: 'inner', run: 10 },
    ]);
    expect(parseNodePath('flow')).toEqual([{ name: 'flow', run: 1 }]);
  });

  it('marks completed nodes done, the latest node active, and a node with an open question waiting', () => {
    const events = [
      ev({ author: 'user', content: { role: 'user', parts: [{ text: 'go' }] } }),
      ev({ nodeInfo: { path: 'flow@1/classify@1', outputFor: ['flow@1/classify@1'] }, output: 'go' }),
      ev({ nodeInfo: { path: 'flow@1/a@1', outputFor: ['flow@1/a@1'] }, output: 1 }),
      ask('q1', 'flow@1/approve@1'),
      ev({ nodeInfo: { path: 'flow@1/b@1', outputFor: ['flow@1/b@1'] }, output: 2 }),
    ];
    const status = workflowStatus(events);
    expect(Object.fromEntries(status)).toEqual({
      classify: 'done',
      a: 'done',
      b: 'active',
      approve: 'waiting',
    });
    expect(openQuestions(events).map((q) => [q.call.id, q.node, q.args.message])).toEqual([
      ['q1', 'approve', 'OK?'],
    ]);
    // Answered: no longer waiting; a later invocation's status starts afresh.
    const later = [
      ...events,
      reply('q1', 'i1'),
      ev({ nodeInfo: { path: 'flow@1/approve@1', outputFor: ['flow@1/approve@1'] }, output: {} }),
    ];
    expect(workflowStatus(later).get('approve')).toBe('active');
    expect(openQuestions(later)).toEqual([]);
    const next = [...later, ev({ invocationId: 'i2', nodeInfo: { path: 'flow@1/classify@1' } })];
    expect(Object.fromEntries(workflowStatus(next))).toEqual({ classify: 'active' });
    expect(workflowStatus([ev({ content: { parts: [{ text: 'plain agent' }] } })]).size).toBe(0);
    // The terminal node's event carries the workflow's output: the run is over, nothing is active.
    const over = [
      ...later,
      ev({ nodeInfo: { path: 'flow@1/settle@1', outputFor: ['flow@1/settle@1', 'flow@1'] }, output: 'ok' }),
    ];
    expect(workflowStatus(over).get('settle')).toBe('done');
    expect([...workflowStatus(over).values()]).not.toContain('active');
  });

  it('shows outputs readably', () => {
    expect(outputText('done')).toBe('done');
    expect(outputText({ a: [1, 2] })).toBe('{\n  "a": [\n    1,\n    2\n  ]\n}');
    expect(outputText(3)).toBe('3');
  });
});

describe('forms from response_schema', () => {
  const schema = {
    type: 'object',
    properties: {
      approve: { type: 'boolean', description: 'Approve the refund' },
      amount: { type: 'number' },
      count: { type: 'integer' },
      method: { type: 'string', enum: ['card', 'credit'] },
      note: { type: 'string' },
      address: {
        type: 'object',
        properties: { city: { type: 'string' }, zip: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
        required: ['city'],
      },
      extra: { type: 'array', items: { type: 'string' } },
    },
    required: ['approve', 'amount', 'method'],
  };

  it('builds one field per property, nested objects as groups, the rest as JSON', () => {
    const form = formFromSchema(schema);
    expect(form.kind).toBe('object');
    if (form.kind !== 'object') return;
    expect(form.fields.map((f) => [f.key, f.kind, f.required])).toEqual([
      ['approve', 'boolean', true],
      ['amount', 'number', true],
      ['count', 'integer', false],
      ['method', 'enum', true],
      ['note', 'string', false],
      ['address', 'object', false],
      ['extra', 'json', false],
    ]);
    expect(form.fields[0]?.hint).toBe('Approve the refund');
    const address = form.fields[5];
    expect(address?.kind === 'object' && address.fields.map((f) => [f.key, f.kind, f.required])).toEqual([
      ['city', 'string', true],
      ['zip', 'string', false],
    ]);
    expect(initialRaw(form)).toMatchObject({ approve: false, amount: '', method: 'card' });
    expect(formFromSchema(undefined).kind).toBe('json');
    expect(formFromSchema({ type: 'string', enum: ['yes', 'no'] })).toMatchObject({
      kind: 'enum',
      options: ['yes', 'no'],
    });
  });

  it('reads typed values, leaves empty optional fields out, and reports bad input per field', () => {
    const form = formFromSchema(schema);
    const raw = {
      ...(initialRaw(form) as object),
      approve: true,
      amount: '12.5',
      count: '',
      method: 'credit',
      address: { city: 'Paris', zip: '' },
      extra: '["a"]',
    };
    expect(readForm(form, raw)).toEqual({
      ok: true,
      value: { approve: true, amount: 12.5, method: 'credit', address: { city: 'Paris' }, extra: ['a'] },
    });
    expect(readForm(form, { ...raw, amount: '', count: '1.5', extra: '[' })).toEqual({
      ok: false,
      errors: { amount: 'Required', count: 'Enter a whole number', extra: 'Not valid JSON' },
    });
    const json = formFromSchema(undefined);
    expect(readForm(json, '{"x": 1}')).toEqual({ ok: true, value: { x: 1 } });
    expect(replyResponse({ x: 1 })).toEqual({ x: 1 });
    expect(replyResponse('yes')).toEqual({ result: 'yes' });
  });
});

describe('workflow graphs from build_graph', () => {
  it('keeps routes as edge labels and puts END below every node', () => {
    const g = toGraph({
      graph: {
        nodes: [
          { id: '__START__', name: 'START', type: 'start' },
          { id: 'classify', name: 'classify', type: 'function' },
          { id: 'a', name: 'a', type: 'agent' },
          { id: 'b', name: 'b', type: 'function' },
          { id: 'join', name: 'join', type: 'join' },
          { id: '__END__', name: 'END', type: 'end' },
        ],
        edges: [
          { from: '__START__', to: 'classify', kind: 'edge' },
          { from: 'classify', to: 'a', kind: 'edge', route: '__DEFAULT__' },
          { from: 'classify', to: 'b', kind: 'edge', route: ['x', 'y'] },
          { from: 'b', to: 'join', kind: 'edge' },
          { from: 'join', to: 'classify', kind: 'edge', route: 'again' },
          { from: 'a', to: '__END__', kind: 'edge' },
          { from: 'join', to: '__END__', kind: 'edge' },
        ],
      },
    });
    expect(g?.edges.map((e) => e.label ?? null)).toEqual([
      null,
      'default',
      'x | y',
      null,
      'again',
      null,
      null,
    ]);
    expect(g?.nodes.find((x) => x.id === 'join')?.kind).toBe('join');
    const pos = layout(g as NonNullable<typeof g>);
    expect(pos.y.get('__END__')).toBeGreaterThan(pos.y.get('join') as number);
    expect(pos.y.get('__START__')).toBeLessThan(pos.y.get('classify') as number);
  });
});
