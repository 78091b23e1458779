// An MCP server with an MCP Apps tool: its definition names a `ui://` resource (an HTML view)
// that hosts render beside the tool's result. Written with the official SDK.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const server = new McpServer({ name: 'apps', version: '1.0.0' });
const view = '<!doctype html><html><body><h1>Weather</h1><div id="out"></div></body></html>';

server.registerResource(
  'weather-view',
  'ui://weather/view.html',
  { mimeType: 'text/html;profile=mcp-app' },
  async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/html;profile=mcp-app', text: view }] }),
);
server.registerTool(
  'show_weather',
  {
    description: 'Shows the weather in an interactive view.',
    inputSchema: {},
    _meta: { ui: { resourceUri: 'ui://weather/view.html' } },
  },
  async () => ({
    content: [{ type: 'text', text: 'Sunny, 21 °C' }],
    structuredContent: { sky: 'sunny', temp: 21 },
  }),
);
await server.connect(new StdioServerTransport());
