import { HttpAgent, type Interrupt, type Message } from '@ag-ui/client';
import { useMemo, useRef, useState } from 'react';

/** A tool the page runs itself: the agent calls it, the page answers with a tool message. */
const CHANGE_BACKGROUND = {
  name: 'change_background',
  description: 'Changes the background colour of the chat page',
  parameters: {
    type: 'object',
    properties: { color: { type: 'string', description: 'A CSS colour' } },
    required: ['color'],
  },
};

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

function text(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((p) => (p && typeof p === 'object' && 'text' in p ? String(p.text) : '')).join('');
  return '';
}

/** A chat page on AG-UI's HttpAgent (the client CopilotKit runs on) against `/apps/{app}/ag-ui`. */
export function AgUiApp() {
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
  const [messages, setMessages] = useState<Message[]>([]);
  const [state, setState] = useState<Record<string, unknown>>({});
  const [interrupts, setInterrupts] = useState<Interrupt[]>([]);
  const [status, setStatus] = useState<'ready' | 'running' | 'error'>('ready');
  const [error, setError] = useState<string>();
  const [input, setInput] = useState('');
  const [background, setBackground] = useState<string>();
  const busy = useRef(false);

  /** Runs the agent; answers its calls to the page's own tool and runs again until it is done. */
  const run = async (
    resume?: { interruptId: string; status: 'resolved' | 'cancelled'; payload?: unknown }[],
  ) => {
    if (busy.current) return;
    busy.current = true;
    setStatus('running');
    setError(undefined);
    try {
      let next = resume;
      for (let round = 0; round < 5; round++) {
        let pending: string[] = [];
        let asked: Interrupt[] = [];
        await agent.runAgent(
          { tools: [CHANGE_BACKGROUND], ...(next ? { resume: next } : {}) },
          {
            onMessagesChanged: ({ messages: all }) => setMessages([...all]),
            onStateChanged: ({ state: current }) => setState({ ...(current as Record<string, unknown>) }),
            onRunFinishedEvent: (params) => {
              if (params.outcome === 'interrupt') asked = params.interrupts;
              const outcome = params.event.outcome;
              if (outcome?.type === 'success') pending = outcome.pendingToolCallIds ?? [];
            },
          },
        );
        next = undefined;
        setInterrupts(asked);
        if (pending.length === 0) break;
        // The page's own tool: run it, answer with a tool message, and let the agent go on.
        for (const id of pending) {
          const call = agent.messages
            .flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : []))
            .find((c) => c.id === id);
          if (call?.function.name !== CHANGE_BACKGROUND.name) continue;
          const { color } = JSON.parse(call.function.arguments) as { color: string };
          setBackground(color);
          agent.addMessage({
            id: crypto.randomUUID(),
            role: 'tool',
            toolCallId: id,
            content: JSON.stringify({ ok: true, color }),
          });
        }
      }
      setMessages([...agent.messages]);
      setStatus('ready');
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      setStatus('error');
    } finally {
      busy.current = false;
    }
  };

  return (
    <main style={background ? { background } : undefined} aria-label="chat page">
      <header>
        <h1>ADK chat over AG-UI · {config.app}</h1>
        <output aria-label="status">{status}</output>
      </header>
      <ul className="messages" aria-label="messages">
        {messages.map((m) => (
          <li key={m.id} className={`message ${m.role}`} aria-label={`${m.role} message`}>
            {m.role === 'assistant' && 'name' in m && m.name && <div className="author">{m.name}</div>}
            {text('content' in m ? m.content : undefined) && (
              <p>{text('content' in m ? m.content : undefined)}</p>
            )}
            {m.role === 'assistant' &&
              (m.toolCalls ?? []).map((c) => (
                <section key={c.id} className="tool" aria-label={`tool ${c.function.name}`}>
                  <strong>{c.function.name}</strong>
                  <pre>{c.function.arguments}</pre>
                </section>
              ))}
          </li>
        ))}
      </ul>
      {interrupts.map((i) => (
        <section key={i.id} className="tool" aria-label="approval">
          <p>{i.message ?? i.reason}</p>
          <button
            type="button"
            onClick={() =>
              void run([{ interruptId: i.id, status: 'resolved', payload: { confirmed: true } }])
            }
          >
            Approve
          </button>{' '}
          <button
            type="button"
            onClick={() =>
              void run([{ interruptId: i.id, status: 'resolved', payload: { confirmed: false } }])
            }
          >
            Deny
          </button>
        </section>
      ))}
      {Object.keys(state).length > 0 && <output aria-label="state">{JSON.stringify(state)}</output>}
      {error && <p className="error">{error}</p>}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (!input.trim() || interrupts.length > 0) return;
          agent.addMessage({ id: crypto.randomUUID(), role: 'user', content: input });
          setMessages([...agent.messages]);
          setInput('');
          void run();
        }}
      >
        <input
          aria-label="message"
          value={input}
          onChange={(e) => setInput(e.target.value)}
          placeholder="Say something"
        />
        <button type="submit" disabled={status === 'running'}>
          Send
        </button>
      </form>
    </main>
  );
}
