// A minimal MCP server over stdio that speaks one protocol revision (PROTOCOL_VERSION), written
// against the JSON-RPC wire directly so it can stand for servers of older revisions.
import { createInterface } from 'node:readline';

const version = process.env.PROTOCOL_VERSION ?? '2025-06-18';
let requested;
const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);

createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined) return;
  switch (message.method) {
    case 'initialize':
      requested = message.params.protocolVersion;
      send({
        id: message.id,
        result: {
          protocolVersion: version,
          capabilities: { tools: {} },
          serverInfo: { name: `versioned-${version}`, version: '1.0.0' },
        },
      });
      return;
    case 'tools/list':
      send({
        id: message.id,
        result: {
          tools: [
            {
              name: 'whoami',
              description: 'Tells which protocol revision was asked for and which was answered.',
              inputSchema: { type: 'object', properties: {} },
            },
          ],
        },
      });
      return;
    case 'tools/call':
      send({
        id: message.id,
        result: {
          content: [{ type: 'text', text: `requested ${requested}, answered ${version}` }],
          structuredContent: { requested, answered: version },
        },
      });
      return;
    default:
      send({ id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } });
  }
});
