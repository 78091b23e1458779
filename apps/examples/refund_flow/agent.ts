import {
  DEFAULT_ROUTE,
  JoinNode,
  LlmAgent,
  type NodeContext,
  RequestInput,
  START,
  Workflow,
} from '@adk/core';
import { z } from 'zod';
import { model } from '../_shared/model.js';

const ORDERS: Record<string, { item: string; amount: number; days_since_delivery: number }> = {
  '1001': { item: 'noise-cancelling headphones', amount: 249, days_since_delivery: 12 },
  '1002': { item: 'USB-C cable', amount: 12, days_since_delivery: 3 },
  '1003': { item: 'mechanical keyboard', amount: 129, days_since_delivery: 45 },
};

interface Order {
  order_id: string;
  item: string;
  amount: number;
  days_since_delivery: number;
}

/** Routes on the message: a refund request with an order number goes to the refund branch. */
function classify(ctx: NodeContext, text: unknown): string {
  const message = String(text ?? '');
  const order = /\b(\d{4})\b/.exec(message)?.[1];
  const refund = /refund|money back|return/i.test(message) && order !== undefined;
  ctx.route = refund ? 'refund' : 'other';
  if (refund) ctx.state.set('order_id', order);
  return message;
}

/** One of two checks that run side by side (a fan-out): the order itself. */
function lookup_order(ctx: NodeContext): Order | { error: string } {
  const id = String(ctx.state.get('order_id'));
  const order = ORDERS[id];
  return order ? { order_id: id, ...order } : { error: `No order ${id} (try 1001, 1002 or 1003)` };
}

/** The other check: the refund policy (30 days from delivery, and the amount a person must approve). */
function check_policy(ctx: NodeContext): { within_30_days: boolean; needs_manager: boolean } {
  const order = ORDERS[String(ctx.state.get('order_id'))];
  return {
    within_30_days: order !== undefined && order.days_since_delivery <= 30,
    needs_manager: order !== undefined && order.amount > 100,
  };
}

/** Waits for both checks, then asks a person: the run pauses on a form built from the schema. */
const checks = new JoinNode('checks');

function ask_approval(_ctx: NodeContext, both: unknown): RequestInput | string {
  const { lookup_order: order, check_policy: policy } = both as {
    lookup_order: Order | { error: string };
    check_policy: { within_30_days: boolean; needs_manager: boolean };
  };
  if ('error' in order) return `Nothing to approve: ${order.error}`;
  return new RequestInput({
    message: `Refund ${order.amount} EUR for order ${order.order_id} (${order.item})?${policy.within_30_days ? '' : ' It was delivered more than 30 days ago.'}`,
    payload: { order, policy },
    responseSchema: z.object({
      approve: z.boolean().describe('Approve the refund'),
      amount: z.number().min(0).describe('Amount to refund, in EUR'),
      method: z.enum(['original_payment', 'store_credit']).describe('How to refund'),
      note: z.string().optional().describe('A note for the customer'),
    }),
  });
}

/** Ends the refund branch with the person's decision. */
function settle(ctx: NodeContext, reply: unknown): string {
  if (typeof reply === 'string') return reply;
  const answer = reply as { approve?: boolean; amount?: number; method?: string; note?: string };
  const id = String(ctx.state.get('order_id'));
  const note = answer.note ? ` Note: ${answer.note}` : '';
  if (!answer.approve) return `Refund for order ${id} declined.${note}`;
  ctx.state.set('refunds', [...((ctx.state.get('refunds') as string[] | undefined) ?? []), id]);
  return `Refunded ${answer.amount} EUR for order ${id} as ${answer.method?.replace('_', ' ')}.${note}`;
}

/** Anything else gets an answer from the model. */
const answer = new LlmAgent({
  name: 'answer',
  model,
  instruction: 'You are a support agent. Answer briefly; refunds need an order number (1001-1003).',
});

/**
 * A graph workflow: `classify` routes refund requests to two checks that run side by side, a
 * join waits for both, a person approves the refund through a form, and `settle` ends the run;
 * every other message goes to the model (the default route).
 */
export const rootAgent = new Workflow({
  name: 'refund_flow',
  description: 'Routes refund requests through two checks, a join and a human approval.',
  edges: [
    [START, classify, { refund: [lookup_order, check_policy], [DEFAULT_ROUTE]: answer }],
    [lookup_order, checks],
    [check_policy, checks],
    [checks, ask_approval, settle],
  ],
});
