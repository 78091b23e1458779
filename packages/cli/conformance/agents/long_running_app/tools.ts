import { FunctionTool } from '@adk/core';
import { z } from 'zod';

/** Starts an approval; the manager's answer arrives later as a function response. */
export const ask_for_approval = new FunctionTool({
  name: 'ask_for_approval',
  description: 'Asks a manager for approval of an expense.',
  parameters: z.object({ expense: z.string().describe('What the expense is for') }),
  execute: ({ expense }) => ({ status: 'pending', expense }),
});
