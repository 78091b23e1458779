import { useRef, useState } from 'preact/hooks';
import type { Part } from '../api/types.js';
import { formatBytes } from '../lib/format.js';
import { ClipIcon } from './icons.js';

export interface Attachment {
  name: string;
  mimeType: string;
  data: string;
  size: number;
}

function readAsBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const url = String(reader.result);
      resolve(url.slice(url.indexOf(',') + 1));
    };
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

export function Composer({
  disabled,
  running,
  onSend,
  onStop,
  disabledHint,
}: {
  disabled: boolean;
  /** Says why the box is disabled, when not for the usual reason (no app picked). */
  disabledHint?: string | undefined;
  running: boolean;
  onSend: (parts: Part[]) => void;
  onStop: () => void;
}) {
  const [text, setText] = useState('');
  const [files, setFiles] = useState<Attachment[]>([]);
  const fileInput = useRef<HTMLInputElement>(null);

  const send = () => {
    if (running || disabled) return;
    const parts: Part[] = [];
    if (text.trim()) parts.push({ text });
    for (const f of files)
      parts.push({ inlineData: { mimeType: f.mimeType, data: f.data, displayName: f.name } });
    if (parts.length === 0) return;
    onSend(parts);
    setText('');
    setFiles([]);
  };

  const onFiles = async (list: FileList | null) => {
    if (!list) return;
    const added = await Promise.all(
      [...list].map(async (f) => ({
        name: f.name,
        mimeType: f.type || 'application/octet-stream',
        data: await readAsBase64(f),
        size: f.size,
      })),
    );
    setFiles((current) => [...current, ...added]);
    if (fileInput.current) fileInput.current.value = '';
  };

  return (
    <form
      class="composer"
      aria-label="Send a message"
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      {files.length > 0 ? (
        <ul class="attachments" aria-label="Attached files">
          {files.map((f, i) => (
            <li key={`${f.name}-${i}`} class="file-chip">
              <ClipIcon /> {f.name} ({formatBytes(f.size)})
              <button
                type="button"
                class="link"
                aria-label={`Remove ${f.name}`}
                onClick={() => setFiles(files.filter((_, j) => j !== i))}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <div class="composer-row">
        <label class="btn icon attach" title="Attach files">
          <ClipIcon />
          <span class="sr-only">Attach files</span>
          <input
            ref={fileInput}
            type="file"
            multiple
            class="sr-only"
            disabled={disabled}
            onChange={(e) => onFiles((e.target as HTMLInputElement).files)}
          />
        </label>
        <label class="sr-only" for="message">
          Message
        </label>
        <textarea
          id="message"
          rows={1}
          value={text}
          disabled={disabled}
          placeholder={
            disabled
              ? (disabledHint ?? 'Pick an app to start')
              : 'Message the agent — Enter sends, Shift+Enter for a new line'
          }
          onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
              e.preventDefault();
              send();
            }
          }}
        />
        {running ? (
          <button type="button" class="btn danger" onClick={onStop} title="Stop the run (Esc)">
            Stop
          </button>
        ) : (
          <button
            type="submit"
            class="btn primary"
            disabled={disabled || (!text.trim() && files.length === 0)}
          >
            Send
          </button>
        )}
      </div>
    </form>
  );
}
