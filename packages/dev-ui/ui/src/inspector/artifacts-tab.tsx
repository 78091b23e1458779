import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.js';
import type { Part } from '../api/types.js';

interface Target {
  app: string;
  user: string;
  session: string;
}

function decodeText(data: string): string {
  const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}

function isText(mime: string): boolean {
  return mime.startsWith('text/') || /json|xml|yaml|javascript|csv/.test(mime);
}

function Preview({ name, part }: { name: string; part: Part }) {
  if (part.text !== undefined) return <pre class="artifact-text">{part.text}</pre>;
  const data = part.inlineData;
  if (!data) return <p class="muted">No preview for this artifact.</p>;
  const href = `data:${data.mimeType};base64,${data.data}`;
  return (
    <div>
      {data.mimeType.startsWith('image/') ? (
        <img class="artifact-image" src={href} alt={`Artifact ${name}`} />
      ) : isText(data.mimeType) ? (
        <pre class="artifact-text">{decodeText(data.data)}</pre>
      ) : (
        <p class="muted">{data.mimeType}: no preview.</p>
      )}
      <a class="btn small" href={href} download={name}>
        Download
      </a>
    </div>
  );
}

export function ArtifactsTab({ target, refreshKey }: { target?: Target; refreshKey: number }) {
  const [names, setNames] = useState<string[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [open, setOpen] = useState<string | undefined>();
  const [versions, setVersions] = useState<number[]>([]);
  const [version, setVersion] = useState<number | undefined>();
  const [part, setPart] = useState<Part | undefined>();

  useEffect(() => {
    setNames(undefined);
    setError(undefined);
    if (!target) return;
    api
      .listArtifacts(target.app, target.user, target.session)
      .then(setNames)
      .catch((e: Error) => setError(e.message));
  }, [target?.app, target?.user, target?.session, refreshKey]);

  useEffect(() => {
    setPart(undefined);
    if (!target || !open) return;
    api
      .listArtifactVersions(target.app, target.user, target.session, open)
      .then((v) => {
        const sorted = [...v].sort((a, b) => b - a);
        setVersions(sorted);
        setVersion((current) => (current !== undefined && sorted.includes(current) ? current : sorted[0]));
      })
      .catch((e: Error) => setError(e.message));
  }, [open, target?.session, refreshKey]);

  useEffect(() => {
    if (!target || !open || version === undefined) return;
    api
      .loadArtifact(target.app, target.user, target.session, open, version)
      .then(setPart)
      .catch((e: Error) => setError(e.message));
  }, [open, version, target?.session]);

  if (!target) return <p class="muted pad">Open a session to see its artifacts.</p>;
  return (
    <div class="pad">
      {error ? (
        <p class="error-text" role="alert">
          {error}
        </p>
      ) : null}
      {names === undefined && !error ? <p class="muted">Loading…</p> : null}
      {names?.length === 0 ? <p class="muted">This session has no artifacts.</p> : null}
      <ul class="artifact-list">
        {names?.map((n) => (
          <li key={n}>
            <button
              type="button"
              class="link"
              aria-expanded={open === n}
              onClick={() => {
                setOpen(open === n ? undefined : n);
                setVersion(undefined);
              }}
            >
              {n}
            </button>
            {open === n ? (
              <div class="artifact">
                <label>
                  Version{' '}
                  <select
                    value={version}
                    onChange={(e) => setVersion(Number((e.target as HTMLSelectElement).value))}
                  >
                    {versions.map((v) => (
                      <option key={v} value={v}>
                        {v}
                      </option>
                    ))}
                  </select>
                </label>
                {part ? <Preview name={n} part={part} /> : <p class="muted">Loading…</p>}
              </div>
            ) : null}
          </li>
        ))}
      </ul>
    </div>
  );
}
