import type { ComponentChildren } from 'preact';
import { useMemo, useState } from 'preact/hooks';
import type { FunctionCall, JsonObject } from '../api/types.js';
import {
  type Field,
  formFromSchema,
  initialRaw,
  outputText,
  type RawValue,
  type RequestInputArgs,
  readForm,
  replyResponse,
} from '../lib/workflow.js';
import { HandIcon } from './icons.js';
import { JsonView } from './json-view.js';
import './workflow.css';

/** One field of a form built from a JSON schema (nested objects become fieldsets). */
export function FieldInput({
  field,
  value,
  path,
  errors,
  disabled,
  onChange,
}: {
  field: Field;
  value: RawValue;
  path: string;
  errors: Record<string, string>;
  disabled: boolean;
  onChange: (value: RawValue) => void;
}) {
  const id = `ri-${path.replace(/\W+/g, '-')}`;
  const error = errors[path];
  const hint = field.hint && field.hint !== field.label ? field.hint : undefined;
  const label = (
    <span>
      {field.label}
      {field.required && field.kind !== 'boolean' ? ' *' : ''}
      {hint ? <span class="muted small"> — {hint}</span> : null}
    </span>
  );
  const described = error ? { 'aria-invalid': true, 'aria-describedby': `${id}-error` } : {};
  const errorText = error ? (
    <span id={`${id}-error`} class="field-error small">
      {error}
    </span>
  ) : null;
  if (field.kind === 'object') {
    const obj = (typeof value === 'object' ? value : {}) as Record<string, RawValue>;
    const inner = field.fields.map((child) => (
      <FieldInput
        key={child.key}
        field={child}
        value={obj[child.key] ?? initialRaw(child)}
        path={path ? `${path}.${child.key}` : child.key}
        errors={errors}
        disabled={disabled}
        onChange={(v) => onChange({ ...obj, [child.key]: v })}
      />
    ));
    return path ? (
      <fieldset>
        <legend>{label}</legend>
        {inner}
      </fieldset>
    ) : (
      <div class="fields">{inner}</div>
    );
  }
  if (field.kind === 'boolean')
    return (
      <label class="check">
        <input
          type="checkbox"
          checked={value === true}
          disabled={disabled}
          onChange={(e) => onChange((e.target as HTMLInputElement).checked)}
        />
        {label}
      </label>
    );
  if (field.kind === 'enum')
    return (
      <label>
        {label}
        <select
          value={String(value)}
          disabled={disabled}
          {...described}
          onChange={(e) => onChange((e.target as HTMLSelectElement).value)}
        >
          {field.required ? null : <option value="">—</option>}
          {field.options.map((o) => (
            <option key={String(o)} value={String(o)}>
              {String(o)}
            </option>
          ))}
        </select>
        {errorText}
      </label>
    );
  if (field.kind === 'json')
    return (
      <label>
        {label}
        <textarea
          value={String(value)}
          disabled={disabled}
          spellcheck={false}
          {...described}
          onInput={(e) => onChange((e.target as HTMLTextAreaElement).value)}
        />
        {errorText}
      </label>
    );
  const onInput = (e: Event) => onChange((e.target as HTMLInputElement).value);
  return (
    <label htmlFor={id}>
      {label}
      {field.kind === 'string' ? (
        <input
          id={id}
          type="text"
          value={String(value)}
          disabled={disabled}
          {...described}
          onInput={onInput}
        />
      ) : (
        <input
          id={id}
          type="number"
          step={field.kind === 'integer' ? '1' : 'any'}
          value={String(value)}
          disabled={disabled}
          {...described}
          onInput={onInput}
        />
      )}
      {errorText}
    </label>
  );
}

/**
 * A form built from a JSON schema: its fields, inline errors, "Send answer" and any other actions.
 * `onAnswer` gets the value once it reads as the schema says.
 */
export function SchemaForm({
  schema,
  running,
  onAnswer,
  children,
}: {
  schema: unknown;
  running: boolean;
  onAnswer: (value: unknown) => void;
  children?: ComponentChildren;
}) {
  const field = useMemo(() => formFromSchema(schema), [schema]);
  const [raw, setRaw] = useState<RawValue>(() => initialRaw(field));
  const [errors, setErrors] = useState<Record<string, string>>({});
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        const result = readForm(field, raw);
        if (!result.ok) {
          setErrors(result.errors);
          return;
        }
        setErrors({});
        onAnswer(result.value);
      }}
    >
      <div class="fields">
        <FieldInput
          field={field}
          value={raw}
          path={field.kind === 'object' ? '' : field.key}
          errors={errors}
          disabled={running}
          onChange={setRaw}
        />
      </div>
      <div class="confirm-actions">
        <button type="submit" class="btn primary" disabled={running}>
          Send answer
        </button>
        {children}
      </div>
    </form>
  );
}

/**
 * An `adk_request_input` call: the question, its payload, and (while it is open) a form built
 * from its `response_schema` whose submit answers it with a function response.
 */
export function RequestInputForm({
  call,
  pending,
  running,
  onAnswer,
}: {
  call: FunctionCall;
  pending: boolean;
  running: boolean;
  onAnswer?: (callId: string, name: string, response: JsonObject) => void;
}) {
  const args = (call.args ?? {}) as RequestInputArgs;
  const title = args.message ?? 'The workflow asks for input';
  return (
    <section class="card confirm request-input" aria-label={`Question: ${title}`}>
      <div class="card-title">
        <HandIcon /> {title}
      </div>
      {args.payload !== undefined ? <JsonView value={args.payload} label="Details of the question" /> : null}
      {pending ? (
        <SchemaForm
          schema={args.response_schema}
          running={running}
          onAnswer={(value) => call.id && onAnswer?.(call.id, call.name, replyResponse(value))}
        />
      ) : (
        <p class="muted">Answered.</p>
      )}
    </section>
  );
}

/** A workflow node's output (an event's `output`), readable: text as is, JSON indented. */
export function NodeOutput({ output, node }: { output: unknown; node?: string }) {
  const text = outputText(output);
  const json = typeof output !== 'string';
  return (
    <section class="card node-output" aria-label={`Output of ${node ?? 'a node'}`}>
      <span class="badge result">output</span> {node ? <code>{node}</code> : null}
      {json ? <pre>{text}</pre> : <p>{text}</p>}
    </section>
  );
}
