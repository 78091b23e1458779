import { FunctionTool, LlmAgent } from '@adk/core';
import { z } from 'zod';
import { model } from '../_shared/model.js';

const ORDERS: Record<string, { item: string; amount: number; refunded?: boolean }> = {
  '1001': { item: 'noise-cancelling headphones', amount: 249 },
  '1002': { item: 'USB-C cable', amount: 12 },
  '1003': { item: 'mechanical keyboard', amount: 129 },
};

const lookupOrder = new FunctionTool({
  name: 'lookup_order',
  description: 'Looks up an order by its number: the item, the amount paid, and whether it was refunded.',
  parameters: z.object({ order_id: z.string().describe('The order number, e.g. "1001"') }),
  execute: async ({ order_id }) => {
    const order = ORDERS[order_id];
    return order ? { order_id, ...order } : { error: `No order ${order_id} (try 1001, 1002 or 1003)` };
  },
});

/**
 * Money moves only after a person says yes: with `requireConfirmation`, the call pauses the run
 * with an `adk_request_confirmation` request; the run resumes when the user answers it (the web
 * UI shows approve/reject buttons, `adk run` asks y/n). A rejection reaches the model as an error.
 */
const refundOrder = new FunctionTool({
  name: 'refund_order',
  description: 'Refunds an order in full. A person must approve every refund.',
  parameters: z.object({
    order_id: z.string().describe('The order number, e.g. "1001"'),
    reason: z.string().optional().describe('Why the customer wants a refund'),
  }),
  requireConfirmation: true,
  execute: async ({ order_id, reason }, context) => {
    const order = ORDERS[order_id];
    if (!order) return { error: `No order ${order_id}` };
    if (order.refunded) return { error: `Order ${order_id} was already refunded` };
    order.refunded = true;
    context.state.set('refunds', [
      ...((context.state.get('refunds') as string[] | undefined) ?? []),
      order_id,
    ]);
    return { order_id, refunded: order.amount, currency: 'EUR', ...(reason ? { reason } : {}) };
  },
});

export const rootAgent = new LlmAgent({
  name: 'approval',
  description: 'A support agent whose refunds wait for human approval.',
  model,
  instruction:
    'You handle refund requests. Look the order up first when useful, then call refund_order; it waits for a human to approve. Refunds so far this session: {refunds?}.',
  tools: [lookupOrder, refundOrder],
});
