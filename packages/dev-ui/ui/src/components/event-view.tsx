import type { AdkEvent, JsonObject, Part } from '../api/types.js';
import { isErrorResponse, REQUEST_CONFIRMATION } from '../lib/conversation.js';
import { formatTime, previewJson } from '../lib/format.js';
import { pure } from '../lib/pure.js';
import { REQUEST_INPUT, topNodeOf } from '../lib/workflow.js';
import { ElicitationForm, elicitationOf } from './elicitation-form.js';
import { ClipIcon, HandIcon, LinkIcon } from './icons.js';
import { JsonView } from './json-view.js';
import { Markdown } from './markdown.js';
import { McpAppView, mcpAppOf } from './mcp-app-view.js';
import { NodeOutput, RequestInputForm } from './request-input-form.js';
import { TimeTravelActions, type TimeTravelHandlers } from './time-travel-actions.js';

export interface EventViewProps {
  event: AdkEvent;
  selected: boolean;
  onSelect: (id: string) => void;
  onShowState: (id: string) => void;
  pending: Set<string>;
  running: boolean;
  /** Answers a confirmation; `payload` carries a structured answer (e.g. an MCP elicitation's). */
  onConfirm: (callId: string, confirmed: boolean, payload?: JsonObject) => void;
  /** Rewound by a later event: shown dimmed and marked, without time-travel actions. */
  rewound?: boolean;
  /** Edit / Regenerate / Fork from here (absent: no actions). */
  timeTravel?: TimeTravelHandlers;
  /** Whether this is a final answer whose turn can be regenerated. */
  regenerable?: boolean;
  /** Answers a workflow question (`adk_request_input`) with a function response. */
  onAnswer?: (callId: string, name: string, response: JsonObject) => void;
  /** The open session, for views kept as its artifacts (MCP Apps). */
  artifactTarget?: { app: string; user: string; session: string };
  /** The arguments of the session's function calls, by call id (an MCP App view is given them). */
  callArgs?: ReadonlyMap<string, Record<string, unknown>>;
}

function InlineData({ part }: { part: Part }) {
  const data = part.inlineData;
  if (!data) return null;
  const name = data.displayName ?? data.mimeType;
  if (data.mimeType.startsWith('image/'))
    return <img class="inline-image" src={`data:${data.mimeType};base64,${data.data}`} alt={name} />;
  return (
    <span class="file-chip">
      <ClipIcon /> {name} ({Math.round((data.data.length * 3) / 4 / 1024)} KB)
    </span>
  );
}

function Confirmation({
  part,
  pending,
  running,
  onConfirm,
}: {
  part: Part;
  pending: boolean;
  running: boolean;
  onConfirm: EventViewProps['onConfirm'];
}) {
  const call = part.functionCall;
  if (!call) return null;
  const args = (call.args ?? {}) as {
    originalFunctionCall?: { name?: string; args?: unknown };
    toolConfirmation?: { hint?: string; payload?: unknown };
  };
  const tool = args.originalFunctionCall?.name ?? 'a tool';
  const elicitation = elicitationOf(args.toolConfirmation?.payload);
  if (elicitation)
    return (
      <ElicitationForm
        callId={call.id}
        elicitation={elicitation}
        {...(args.toolConfirmation?.hint ? { hint: args.toolConfirmation.hint } : {})}
        pending={pending}
        running={running}
        onConfirm={onConfirm}
      />
    );
  return (
    <section class="card confirm" aria-label={`Confirmation for ${tool}`}>
      <div class="card-title">
        <HandIcon /> Approval needed: <code>{tool}</code>
      </div>
      {args.toolConfirmation?.hint ? <p class="hint">{args.toolConfirmation.hint}</p> : null}
      {args.originalFunctionCall?.args !== undefined ? (
        <JsonView value={args.originalFunctionCall.args} label={`Arguments of ${tool}`} />
      ) : null}
      {pending ? (
        <div class="confirm-actions">
          <button
            type="button"
            class="btn primary"
            disabled={running}
            onClick={() => call.id && onConfirm(call.id, true)}
          >
            Approve
          </button>
          <button
            type="button"
            class="btn danger"
            disabled={running}
            onClick={() => call.id && onConfirm(call.id, false)}
          >
            Reject
          </button>
        </div>
      ) : (
        <p class="muted">Answered.</p>
      )}
    </section>
  );
}

function PartView({ part, event, props }: { part: Part; event: AdkEvent; props: EventViewProps }) {
  if (part.functionCall) {
    if (part.functionCall.name === REQUEST_INPUT)
      return (
        <RequestInputForm
          call={part.functionCall}
          pending={!!part.functionCall.id && props.pending.has(part.functionCall.id)}
          running={props.running}
          {...(props.onAnswer ? { onAnswer: props.onAnswer } : {})}
        />
      );
    if (part.functionCall.name === REQUEST_CONFIRMATION)
      return (
        <Confirmation
          part={part}
          pending={!!part.functionCall.id && props.pending.has(part.functionCall.id)}
          running={props.running}
          onConfirm={props.onConfirm}
        />
      );
    return (
      <details class="card tool-call">
        <summary>
          <span class="badge call">call</span> <code>{part.functionCall.name}</code>
          <span class="muted"> {previewJson(part.functionCall.args ?? {})}</span>
        </summary>
        <JsonView value={part.functionCall.args ?? {}} label={`Arguments of ${part.functionCall.name}`} />
      </details>
    );
  }
  if (part.functionResponse) {
    const failed = isErrorResponse(part);
    const details = (
      <details class={`card tool-response${failed ? ' error' : ''}`}>
        <summary>
          <span class={`badge ${failed ? 'error' : 'result'}`}>{failed ? 'error' : 'result'}</span>{' '}
          <code>{part.functionResponse.name}</code>
          <span class="muted"> {previewJson(part.functionResponse.response ?? {})}</span>
        </summary>
        <JsonView
          value={part.functionResponse.response ?? {}}
          label={`Response of ${part.functionResponse.name}`}
        />
      </details>
    );
    const view = mcpAppOf(part.functionResponse.response);
    if (!view || !props.artifactTarget) return details;
    return (
      <>
        {details}
        <McpAppView
          target={props.artifactTarget}
          app={view}
          toolName={part.functionResponse.name}
          args={part.functionResponse.id ? props.callArgs?.get(part.functionResponse.id) : undefined}
          response={part.functionResponse.response ?? {}}
        />
      </>
    );
  }
  if (part.text !== undefined) {
    if (part.thought)
      return (
        <details class="thought">
          <summary>Thinking</summary>
          <Markdown text={part.text} />
        </details>
      );
    return event.author === 'user' ? <p class="user-text">{part.text}</p> : <Markdown text={part.text} />;
  }
  if (part.inlineData) return <InlineData part={part} />;
  if (part.fileData)
    return (
      <span class="file-chip">
        <LinkIcon /> {part.fileData.fileUri}
      </span>
    );
  if (part.executableCode)
    return (
      <pre class="code">
        <code>{part.executableCode.code}</code>
      </pre>
    );
  if (part.codeExecutionResult) return <pre class="code">{part.codeExecutionResult.output}</pre>;
  return null;
}

function nodeName(event: AdkEvent): { node?: string } {
  const node = topNodeOf(event);
  return node ? { node } : {};
}

interface GuardrailRecord {
  guardrail: string;
  point: string;
  action: 'rewrite' | 'tripwire';
  reason?: string;
  findings?: { entity: string; count: number }[];
}

const POINT_LABEL: Record<string, string> = {
  input: 'message',
  output: 'answer',
  toolInput: 'tool arguments',
  toolOutput: 'tool result',
};

/** What guardrails did to this event: what was redacted and by which guardrail, never the original. */
function guardrailBadges(event: AdkEvent): { key: string; text: string; tripped: boolean }[] {
  const records = event.customMetadata?.adkGuardrails;
  if (!Array.isArray(records)) return [];
  return (records as GuardrailRecord[]).map((r, i) => {
    const where = POINT_LABEL[r.point] ?? r.point;
    const what = (r.findings ?? []).map((f) => `${f.entity}${f.count > 1 ? ` ×${f.count}` : ''}`).join(', ');
    return {
      key: `${r.guardrail}-${i}`,
      tripped: r.action === 'tripwire',
      text:
        r.action === 'tripwire'
          ? `stopped by guardrail ${r.guardrail} (${where})`
          : `${where} rewritten by ${r.guardrail}${what ? `: ${what}` : ''}`,
    };
  });
}

function EventViewInner(props: EventViewProps) {
  const { event, selected, onSelect } = props;
  const isUser = event.author === 'user';
  const parts = event.content?.parts ?? [];
  const delta = Object.keys(event.actions?.stateDelta ?? {});
  const artifacts = Object.keys(event.actions?.artifactDelta ?? {});
  const transfer = event.actions?.transferToAgent;
  const usage = event.usageMetadata;
  const asks = Object.keys(event.actions?.requestedToolConfirmations ?? {}).length;
  const flags = [
    asks > 0 ? `asks to confirm ${asks} call${asks > 1 ? 's' : ''}` : undefined,
    Object.keys(event.actions?.requestedAuthConfigs ?? {}).length > 0 ? 'asks for credentials' : undefined,
    event.actions?.escalate ? 'escalate' : undefined,
    event.actions?.endOfAgent ? 'end of agent' : undefined,
    event.actions?.rewindBeforeInvocationId ? 'rewind' : undefined,
  ].filter((f): f is string => !!f);
  const guards = guardrailBadges(event);
  const showOutput = event.output !== undefined && !event.nodeInfo?.messageAsOutput;
  const empty =
    parts.length === 0 && !showOutput && !event.errorCode && !event.errorMessage && !event.interrupted;
  return (
    <article
      class={`event ${isUser ? 'from-user' : 'from-agent'}${selected ? ' selected' : ''}${props.rewound ? ' rewound' : ''}`}
      aria-label={`${isUser ? 'You' : event.author}${event.errorCode ? ', error' : ''}${props.rewound ? ', rewound' : ''}`}
      data-event-id={event.id}
    >
      <header class="event-head">
        <span class={`author${isUser ? ' user' : ''}`}>{isUser ? 'You' : event.author}</span>
        {event.branch && event.branch !== event.author ? <span class="muted"> · {event.branch}</span> : null}
        {props.rewound ? <span class="badge rewound-badge">rewound</span> : null}
        <span class="muted time">{formatTime(event.timestamp)}</span>
        <button
          type="button"
          class="link inspect"
          aria-pressed={selected}
          aria-label={`Inspect event from ${isUser ? 'you' : event.author} ${formatTime(event.timestamp)}`}
          onClick={() => onSelect(event.id)}
        >
          {'{ }'}
        </button>
      </header>
      <div class="event-body">
        {parts.map((part, i) => (
          <PartView key={i} part={part} event={event} props={props} />
        ))}
        {showOutput ? <NodeOutput output={event.output} {...nodeName(event)} /> : null}
        {event.errorCode || event.errorMessage ? (
          <div class="card error" role="alert">
            <strong>{event.errorCode ?? 'Error'}</strong>
            {event.errorMessage ? `: ${event.errorMessage}` : null}
          </div>
        ) : null}
        {guards.length > 0 ? (
          <ul class="guardrails" aria-label="Guardrails">
            {guards.map((g) => (
              <li key={g.key} class={`badge guardrail${g.tripped ? ' tripped' : ''}`}>
                {g.text}
              </li>
            ))}
          </ul>
        ) : null}
        {event.interrupted ? <p class="muted">Interrupted.</p> : null}
        {empty && flags.length === 0 && !transfer && delta.length === 0 ? (
          <p class="muted small">(no content)</p>
        ) : null}
      </div>
      {transfer || delta.length > 0 || artifacts.length > 0 || usage || flags.length > 0 ? (
        <footer class="event-foot">
          {flags.map((f) => (
            <span key={f} class="badge">
              {f}
            </span>
          ))}
          {transfer ? (
            <span class="badge transfer">
              transfer → <strong>{transfer}</strong>
            </span>
          ) : null}
          {delta.length > 0 ? (
            <button type="button" class="badge state link" onClick={() => props.onShowState(event.id)}>
              state Δ {delta.join(', ')}
            </button>
          ) : null}
          {artifacts.length > 0 ? <span class="badge">artifact {artifacts.join(', ')}</span> : null}
          {usage?.totalTokenCount ? (
            <span class="badge tokens" title="prompt / response tokens">
              {usage.promptTokenCount ?? 0} → {usage.candidatesTokenCount ?? 0} tok
            </span>
          ) : null}
        </footer>
      ) : null}
      {props.timeTravel && !props.rewound && !event.actions?.rewindBeforeInvocationId ? (
        <TimeTravelActions
          event={event}
          editable={isUser && !!event.invocationId && parts.some((p) => p.text !== undefined)}
          regenerable={!!props.regenerable}
          disabled={props.running}
          handlers={props.timeTravel}
        />
      ) : null}
    </article>
  );
}

/** One event of the conversation; skips re-rendering while other content streams. */
export const EventView = pure(EventViewInner);
