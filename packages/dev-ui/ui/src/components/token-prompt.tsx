import { useEffect, useRef, useState } from 'preact/hooks';

/** Asks for the server's access token (a modal form); `refused` after a wrong one. */
export function TokenPrompt({ refused, onSubmit }: { refused: boolean; onSubmit: (token: string) => void }) {
  const [value, setValue] = useState('');
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);
  return (
    <div class="token-backdrop">
      <div role="dialog" aria-modal="true" aria-labelledby="token-title" aria-describedby="token-help">
        <form
          class="token-dialog"
          onSubmit={(e) => {
            e.preventDefault();
            const token = value.trim();
            if (token) onSubmit(token);
          }}
        >
          <h2 id="token-title">Access token required</h2>
          <p id="token-help">
            This ADK server was started with a token (<code>--token</code> or <code>ADK_SERVER_TOKEN</code>).
            Enter it to continue; it is kept for this tab only.
          </p>
          {refused ? (
            <p class="error-text" role="alert">
              The server refused that token. Try again.
            </p>
          ) : null}
          <label for="adk-token">Token</label>
          <input
            id="adk-token"
            ref={input}
            type="password"
            autocomplete="off"
            required
            value={value}
            onInput={(e) => setValue((e.target as HTMLInputElement).value)}
          />
          <button type="submit" class="btn primary">
            Connect
          </button>
        </form>
      </div>
    </div>
  );
}
