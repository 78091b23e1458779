import { useChat } from '@ai-sdk/react';
import {
  DefaultChatTransport,
  isToolUIPart,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
} from 'ai';
import { useEffect, useMemo, useState } from 'react';

/** `?app=` picks the ADK app (default `assistant`), `?chat=` the chat (a session), `?token=` a bearer token. */
function settings(): { app: string; chat: string; token: string | null } {
  const url = new URL(window.location.href);
  let chat = url.searchParams.get('chat');
  if (!chat) {
    // The chat id goes into the URL, so a reload finds the same session (and resumes its answer).
    chat = `chat-${crypto.randomUUID()}`;
    url.searchParams.set('chat', chat);
    window.history.replaceState(null, '', url);
  }
  return { app: url.searchParams.get('app') ?? 'assistant', chat, token: url.searchParams.get('token') };
}

function authorOf(part: unknown, message: UIMessage): string | undefined {
  const meta = (part as { providerMetadata?: { adk?: { author?: string } } }).providerMetadata;
  const call = (part as { callProviderMetadata?: { adk?: { author?: string } } }).callProviderMetadata;
  return (
    meta?.adk?.author ?? call?.adk?.author ?? (message.metadata as { author?: string } | undefined)?.author
  );
}

export function App() {
  const config = useMemo(settings, []);
  const [initial, setInitial] = useState<UIMessage[] | undefined>();
  const [loadError, setLoadError] = useState<string>();
  useEffect(() => {
    const headers: Record<string, string> = config.token ? { Authorization: `Bearer ${config.token}` } : {};
    fetch(`/apps/${encodeURIComponent(config.app)}/chat/${encodeURIComponent(config.chat)}/messages`, {
      headers,
    })
      .then(async (r) => {
        if (!r.ok) throw new Error(`${r.status} ${await r.text()}`);
        setInitial((await r.json()) as UIMessage[]);
      })
      .catch((error: unknown) => setLoadError(String(error)));
  }, [config]);
  if (loadError) return <p className="error">Could not load the chat: {loadError}</p>;
  if (!initial) return <p>Loading…</p>;
  return <Chat app={config.app} chat={config.chat} token={config.token} initial={initial} />;
}

function Chat({
  app,
  chat,
  token,
  initial,
}: {
  app: string;
  chat: string;
  token: string | null;
  initial: UIMessage[];
}) {
  const transport = useMemo(
    () =>
      new DefaultChatTransport<UIMessage>({
        api: `/apps/${encodeURIComponent(app)}/chat`,
        // A background run goes on when the page goes away, so a reload can resume it.
        body: { background: true },
        ...(token ? { headers: { Authorization: `Bearer ${token}` } } : {}),
      }),
    [app, token],
  );
  const { messages, sendMessage, status, error, stop, addToolApprovalResponse } = useChat({
    id: chat,
    messages: initial,
    transport,
    resume: true,
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const [input, setInput] = useState('');

  return (
    <main>
      <header>
        <h1>ADK chat · {app}</h1>
        <output aria-label="status">{status}</output>
      </header>
      <ul className="messages" aria-label="messages">
        {messages.map((message) => (
          <li key={message.id} className={`message ${message.role}`} aria-label={`${message.role} message`}>
            {message.parts.map((part, index) => {
              const key = `${message.id}-${index}`;
              // A text an output guardrail withdrew: a `data-adk-retract` part follows it.
              if (part.type === 'text' && message.parts[index + 1]?.type === 'data-adk-retract') return null;
              if (part.type === 'text')
                return (
                  <div key={key}>
                    {message.role === 'assistant' && <div className="author">{authorOf(part, message)}</div>}
                    <p>{part.text}</p>
                  </div>
                );
              if (part.type === 'reasoning')
                return (
                  <p key={key} className="reasoning">
                    {part.text}
                  </p>
                );
              if (isToolUIPart(part)) {
                const name = part.type.slice('tool-'.length);
                return (
                  <section key={key} className="tool" aria-label={`tool ${name}`}>
                    <strong>{name}</strong> <span>{part.state}</span>
                    <pre>{JSON.stringify(part.input)}</pre>
                    {part.state === 'output-available' && (
                      <output aria-label="tool output">{JSON.stringify(part.output)}</output>
                    )}
                    {part.state === 'output-error' && <pre className="error">{part.errorText}</pre>}
                    {part.state === 'output-denied' && <p>Denied.</p>}
                    {part.state === 'approval-requested' && (
                      <p>
                        <button
                          type="button"
                          onClick={() => addToolApprovalResponse({ id: part.approval.id, approved: true })}
                        >
                          Approve
                        </button>{' '}
                        <button
                          type="button"
                          onClick={() => addToolApprovalResponse({ id: part.approval.id, approved: false })}
                        >
                          Deny
                        </button>
                      </p>
                    )}
                  </section>
                );
              }
              return null;
            })}
          </li>
        ))}
      </ul>
      {error && <p className="error">{error.message}</p>}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (!input.trim()) return;
          void sendMessage({ text: input });
          setInput('');
        }}
      >
        <input
          aria-label="message"
          value={input}
          onChange={(e) => setInput(e.target.value)}
          placeholder="Say something"
        />
        <button type="submit" disabled={status === 'streaming' || status === 'submitted'}>
          Send
        </button>
        <button type="button" onClick={() => void stop()}>
          Stop
        </button>
      </form>
    </main>
  );
}
