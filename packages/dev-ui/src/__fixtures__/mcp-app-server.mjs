// An MCP server whose tool has an MCP Apps view (`ui://forecast/view.html`). The view is written
// with the official view-side library (`App` of @modelcontextprotocol/ext-apps, its self-contained
// build inlined as a module), so the dev UI's host side is checked against the real peer. The view
// prints the tool input and result the host sends, and whether it can reach the host page.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const bundle = readFileSync(
  fileURLToPath(import.meta.resolve('@modelcontextprotocol/ext-apps/app-with-deps')),
).toString('base64');

const view = `<!doctype html>
<html><body>
<h1>Forecast</h1>
<p id="input">Input: waiting</p>
<p id="result">Result: waiting</p>
<p id="host">Host: waiting</p>
<p id="origin"></p>
<script type="module">
import { App } from 'data:text/javascript;base64,${bundle}';
const show = (id, text) => { document.getElementById(id).textContent = text; };
let reach = 'isolated';
try { reach = window.parent.document ? 'shared' : 'isolated'; } catch { reach = 'isolated'; }
show('origin', 'Origin: ' + reach);
const app = new App({ name: 'forecast-view', version: '1.0.0' });
app.ontoolinput = (params) => show('input', 'Input: ' + params.arguments.city);
app.ontoolresult = (result) =>
  show('result', 'Result: ' + result.structuredContent.sky + ', ' + result.structuredContent.temp + ' °C');
await app.connect();
show('host', 'Host: ' + app.getHostVersion().name);
</script>
</body></html>`;

const server = new McpServer({ name: 'forecast', version: '1.0.0' });
server.registerResource(
  'forecast-view',
  'ui://forecast/view.html',
  { mimeType: 'text/html;profile=mcp-app' },
  async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/html;profile=mcp-app', text: view }] }),
);
server.registerTool(
  'show_forecast',
  {
    description: 'Shows the forecast for a city in an interactive view.',
    inputSchema: { city: z.string() },
    _meta: { ui: { resourceUri: 'ui://forecast/view.html' } },
  },
  async ({ city }) => ({
    content: [{ type: 'text', text: `${city}: sunny, 21 °C` }],
    structuredContent: { sky: 'sunny', temp: 21 },
  }),
);
await server.connect(new StdioServerTransport());
