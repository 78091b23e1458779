import {
  CopilotChat,
  CopilotKitProvider,
  HttpAgent,
  useFrontendTool,
  useInterrupt,
  useRenderTool,
} from '@copilotkit/react-core/v2';
import { useMemo, useState } from 'react';
import { z } from 'zod';

function settings(): { app: string; thread: string; token: string | null } {
  const url = new URL(window.location.href);
  let thread = url.searchParams.get('thread');
  if (!thread) {
    thread = `thread-${crypto.randomUUID()}`;
    url.searchParams.set('thread', thread);
    window.history.replaceState(null, '', url);
  }
  return { app: url.searchParams.get('app') ?? 'assistant', thread, token: url.searchParams.get('token') };
}

/**
 * A CopilotKit chat on AG-UI: CopilotKit's v2 provider is given an AG-UI `HttpAgent` pointed at
 * `/apps/{app}/ag-ui` directly, so no CopilotKit runtime (or cloud) sits in between.
 */
export function CopilotKitApp() {
  const config = useMemo(settings, []);
  const agent = useMemo(
    () =>
      new HttpAgent({
        url: `/apps/${encodeURIComponent(config.app)}/ag-ui`,
        threadId: config.thread,
        ...(config.token ? { headers: { Authorization: `Bearer ${config.token}` } } : {}),
      }),
    [config],
  );
  const [background, setBackground] = useState<string>();
  return (
    <CopilotKitProvider agents__unsafe_dev_only={{ default: agent }} enableInspector={false}>
      <main
        aria-label="chat page"
        style={{
          height: '100vh',
          display: 'flex',
          flexDirection: 'column',
          ...(background ? { background } : {}),
        }}
      >
        <h1 style={{ font: '600 1rem system-ui', margin: '0.75rem 1rem' }}>
          ADK chat over CopilotKit · {config.app}
        </h1>
        <Tools onBackground={setBackground} />
        <div style={{ flex: 1, minHeight: 0 }}>
          <CopilotChat threadId={config.thread} />
        </div>
      </main>
    </CopilotKitProvider>
  );
}

/** What CopilotKit gives a tool-call renderer. */
interface ToolView {
  name: string;
  parameters?: Record<string, unknown>;
  status: 'inProgress' | 'executing' | 'complete';
  result?: string;
}

/** The page's own tool, how server tool calls are shown, and approvals as AG-UI interrupts. */
function Tools({ onBackground }: { onBackground: (color: string) => void }) {
  // A frontend tool: declared in the run's `tools`, the agent calls it, CopilotKit runs it here and
  // sends its result back in the next run.
  useFrontendTool({
    name: 'change_background',
    description: 'Changes the background colour of the chat page',
    parameters: z.object({ color: z.string().describe('A CSS colour') }),
    handler: async ({ color }) => {
      onBackground(color);
      return { ok: true, color };
    },
  });
  // Any tool the agent runs on the server: its name, arguments and result.
  useRenderTool({
    name: '*',
    render: ({ name, parameters, status, result }: ToolView) => (
      <section className="adk-tool" aria-label={`tool ${name}`} data-status={status}>
        <strong>{name}</strong> <small>{status}</small>
        <pre>{JSON.stringify(parameters ?? {})}</pre>
        {result !== undefined && <output aria-label="tool output">{result}</output>}
      </section>
    ),
  });
  // Tool confirmations end the run with an interrupt; the answer resumes it (`resume[]`).
  useInterrupt({
    render: ({ interrupt, resolve }) => (
      <section className="adk-approval" aria-label="approval">
        <p>{interrupt?.message ?? 'Run this tool?'}</p>
        <button type="button" onClick={() => void resolve({ confirmed: true })}>
          Approve
        </button>{' '}
        <button type="button" onClick={() => void resolve({ confirmed: false })}>
          Deny
        </button>
      </section>
    ),
  });
  return null;
}
