// A tiny MCP server over stdio (newline-delimited JSON-RPC 2.0), with no dependencies: one tool.
import { createInterface } from 'node:readline';

const CAPITALS = { France: 'Paris', Japan: 'Tokyo', Kenya: 'Nairobi', Peru: 'Lima' };

const TOOL = {
  name: 'lookup_capital',
  description: 'Looks up the capital city of a country.',
  inputSchema: {
    type: 'object',
    properties: { country: { type: 'string', description: 'The country' } },
    required: ['country'],
  },
};

function reply(id, result) {
  process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id, result })}\n`);
}

function fail(id, code, message) {
  process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`);
}

createInterface({ input: process.stdin }).on('line', (line) => {
  if (!line.trim()) return;
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    fail(null, -32700, 'Parse error');
    return;
  }
  const { id, method, params } = message;
  if (id === undefined) return; // a notification
  if (method === 'initialize') {
    reply(id, {
      protocolVersion: params?.protocolVersion ?? '2025-06-18',
      capabilities: { tools: {} },
      serverInfo: { name: 'capitals', version: '1.0.0' },
    });
  } else if (method === 'ping') {
    reply(id, {});
  } else if (method === 'tools/list') {
    reply(id, { tools: [TOOL] });
  } else if (method === 'tools/call') {
    const country = String(params?.arguments?.country ?? '');
    const capital = CAPITALS[country];
    reply(id, {
      content: [
        {
          type: 'text',
          text: capital ? `The capital of ${country} is ${capital}.` : `No capital known for "${country}".`,
        },
      ],
      isError: !capital,
    });
  } else {
    fail(id, -32601, `Method not found: ${method}`);
  }
});
