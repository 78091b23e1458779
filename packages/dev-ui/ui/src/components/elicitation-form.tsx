import type { JsonObject } from '../api/types.js';
import { HandIcon, LinkIcon } from './icons.js';
import { SchemaForm } from './request-input-form.js';
import './workflow.css';

/** The key under which an MCP tool's confirmation payload carries the server's elicitation. */
const MCP_ELICITATION = 'mcpElicitation';

/** What the dev UI reads of an MCP elicitation question (see `@adk/mcp`'s `McpElicitationRequest`). */
export interface ElicitationQuestion {
  server: string;
  tool: string;
  mode: 'form' | 'url';
  message: string;
  requestedSchema?: Record<string, unknown>;
  url?: string;
}

/** The elicitation a confirmation payload carries, if it carries one. */
export function elicitationOf(payload: unknown): ElicitationQuestion | undefined {
  if (!isObject(payload)) return undefined;
  const stored = payload[MCP_ELICITATION];
  if (!isObject(stored) || !isObject(stored.question)) return undefined;
  const q = stored.question;
  return {
    server: typeof q.server === 'string' ? q.server : 'MCP server',
    tool: typeof q.tool === 'string' ? q.tool : 'a tool',
    mode: q.mode === 'url' ? 'url' : 'form',
    message: typeof q.message === 'string' ? q.message : '',
    ...(isObject(q.requestedSchema) ? { requestedSchema: q.requestedSchema } : {}),
    ...(typeof q.url === 'string' ? { url: q.url } : {}),
  };
}

/** Only http(s) links are shown as links: a server cannot make the page run a `javascript:` URL. */
function safeUrl(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

/**
 * An MCP server's request for input, paused on a confirmation. Form mode: a form built from the
 * requested JSON schema; submitting accepts with its content, Decline refuses. URL mode: the link
 * to open, then consent (accept) or refusal (decline).
 */
export function ElicitationForm({
  callId,
  elicitation,
  hint,
  pending,
  running,
  onConfirm,
}: {
  callId: string | undefined;
  elicitation: ElicitationQuestion;
  hint?: string;
  pending: boolean;
  running: boolean;
  onConfirm: (callId: string, confirmed: boolean, payload?: JsonObject) => void;
}) {
  const title = `${elicitation.server} asks (${elicitation.tool})`;
  const decline = () => callId && onConfirm(callId, true, { action: 'decline' });
  const link = safeUrl(elicitation.url);
  // The hint repeats a rejected answer's reason before the standard text: show it when it differs.
  const reason = hint && /must|lacks|does not|has no|has a field/.test(hint) ? hint : undefined;
  return (
    <section class="card confirm elicitation" aria-label={`Input requested by ${elicitation.server}`}>
      <div class="card-title">
        <HandIcon /> {title}
      </div>
      {elicitation.message ? <p>{elicitation.message}</p> : null}
      {reason ? <p class="field-error small">{reason}</p> : null}
      {elicitation.mode === 'url' ? (
        <p>
          {link ? (
            <a href={link} target="_blank" rel="noopener noreferrer">
              <LinkIcon /> {link}
            </a>
          ) : (
            <code>{elicitation.url ?? '(no link)'}</code>
          )}
        </p>
      ) : null}
      {!pending ? (
        <p class="muted">Answered.</p>
      ) : elicitation.mode === 'url' ? (
        <div class="confirm-actions">
          <button
            type="button"
            class="btn primary"
            disabled={running}
            onClick={() => callId && onConfirm(callId, true, { action: 'accept' })}
          >
            I consent
          </button>
          <button type="button" class="btn danger" disabled={running} onClick={decline}>
            Refuse
          </button>
        </div>
      ) : (
        <SchemaForm
          schema={elicitation.requestedSchema}
          running={running}
          onAnswer={(value) =>
            callId &&
            onConfirm(callId, true, {
              action: 'accept',
              content: isObject(value) ? (value as JsonObject) : {},
            })
          }
        >
          <button type="button" class="btn danger" disabled={running} onClick={decline}>
            Decline
          </button>
        </SchemaForm>
      )}
    </section>
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
