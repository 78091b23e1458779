import './builder.css';
import { BUILT_IN_AGENT_CLASSES, BUILT_IN_TOOL_NAMES } from '@adk/config/names';
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import {
  AGENT_CLASSES,
  type AnalyzedFile,
  addItem,
  analyze,
  canonicalClass,
  newAgentText,
  type Problem,
  ROOT_FILE,
  referencedFiles,
  removeItem,
  resolveFrom,
  setField,
} from './agent-yaml.js';
import { builderApi } from './builder-api.js';
import type { BuilderTarget } from './builder-tab.js';

/** At most this many agent files are followed from root_agent.yaml. */
const MAX_FILES = 50;
const AGENT_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

type Files = Record<string, string>;

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** root_agent.yaml and every agent file it names, directly or through other files (of the draft: `tmp`). */
async function loadTree(app: string, tmp: boolean): Promise<{ files: Files }> {
  const files: Files = {};
  const missing: string[] = [];
  const queue = [ROOT_FILE];
  while (queue.length > 0 && Object.keys(files).length < MAX_FILES) {
    const path = queue.shift() as string;
    if (path in files || missing.includes(path)) continue;
    const text = await builderApi.read(app, path, tmp);
    if (text === '' && path !== ROOT_FILE) {
      missing.push(path);
      continue;
    }
    files[path] = text;
    queue.push(...referencedFiles(path, analyze(path, text).data));
  }
  return { files };
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
}

function problemLine(p: Problem): string {
  const where = p.line !== undefined ? `${p.file}:${p.line}:${p.col ?? 1}` : p.file;
  return `${where}: ${p.path ? `at ${p.path}: ` : ''}${p.message}`;
}

/** A text box and its Add button (Enter adds too), for the tools and sub-agents lists. */
function AddRow(props: {
  label: string;
  placeholder: string;
  value: string;
  onValue: (value: string) => void;
  onAdd: () => void;
  button: string;
  list?: string;
  children?: ComponentChildren;
}) {
  return (
    <div class="builder-add">
      <input
        type="text"
        aria-label={props.label}
        list={props.list}
        placeholder={props.placeholder}
        value={props.value}
        onInput={(e) => props.onValue((e.target as HTMLInputElement).value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            props.onAdd();
          }
        }}
      />
      {props.children}
      <button type="button" class="btn small" disabled={!props.value.trim()} onClick={props.onAdd}>
        {props.button}
      </button>
    </div>
  );
}

/** A labelled one-line text field of the form. */
function TextRow(props: {
  label: string;
  value: unknown;
  placeholder?: string;
  onInput: (value: string) => void;
}) {
  return (
    <label>
      <span>{props.label}</span>
      <input
        value={str(props.value)}
        placeholder={props.placeholder}
        onInput={(e) => props.onInput((e.target as HTMLInputElement).value)}
      />
    </label>
  );
}

/**
 * The Builder: the agent tree of a YAML app as a form and as YAML, both editing the same text (the
 * form's edits keep the file's comments), validated on every change against AgentConfig.json.
 * **Try it** saves a draft and hands the chat to it; **Save** writes the app's files; **Cancel**
 * drops the draft and the unsaved edits.
 */
export function BuilderPanel({ app, user, version, trying, onTry, onLeave }: BuilderTarget) {
  const [saved, setSaved] = useState<Files | undefined>();
  const [files, setFiles] = useState<Files>({});
  const [current, setCurrent] = useState(ROOT_FILE);
  const [busy, setBusy] = useState<string | undefined>();
  const [serverError, setServerError] = useState<string | undefined>();
  const [loadError, setLoadError] = useState<string | undefined>();
  const [newTool, setNewTool] = useState('');
  const [newAgent, setNewAgent] = useState('');
  const [formError, setFormError] = useState<string | undefined>();
  // A draft this page saved (it stays on the server after "Back", until Save or Cancel).
  const [drafted, setDrafted] = useState(false);

  // Counts the edits and actions made here: a read under way meanwhile is dropped, so it neither
  // undoes an edit nor brings back a draft that was saved or cancelled since.
  const edits = useRef(0);
  // The saved files; a draft left from before (this page was reloaded meanwhile) opens on top of them.
  const load = useCallback(async () => {
    setLoadError(undefined);
    const editsAtStart = edits.current;
    try {
      const [stored, draft] = await Promise.all([loadTree(app, false), builderApi.hasDraft(app)]);
      const opened = draft ? (await loadTree(app, true)).files : stored.files;
      // Edited, saved, tried or cancelled meanwhile: what was read may be stale, and edits win.
      if (edits.current !== editsAtStart) return;
      setSaved(stored.files);
      setDrafted(draft);
      setFiles(opened);
      setCurrent(ROOT_FILE);
    } catch (error) {
      setLoadError(message(error));
    }
  }, [app]);

  useEffect(() => {
    void load();
  }, [load]);

  // The app was reloaded (its files changed on disk, or a save): read them again unless edited here.
  const clean = useRef(true);
  const firstVersion = useRef(version);
  useEffect(() => {
    if (version === firstVersion.current) return;
    firstVersion.current = version;
    if (clean.current) void load();
  }, [version, load]);

  const analyzed = useMemo(() => {
    const out: Record<string, AnalyzedFile> = {};
    for (const [path, text] of Object.entries(files)) out[path] = analyze(path, text);
    return out;
  }, [files]);
  // The agent tree: root_agent.yaml and the files it names. A file no longer named (a sub-agent
  // removed in the form) is neither shown nor saved.
  const tree = useMemo(() => {
    const found: string[] = [];
    const queue = [ROOT_FILE];
    while (queue.length > 0) {
      const path = queue.shift() as string;
      if (found.includes(path) || !(path in files)) continue;
      found.push(path);
      queue.push(...referencedFiles(path, analyzed[path]?.data));
    }
    return found;
  }, [files, analyzed]);
  const problems = useMemo(() => {
    const list = tree.flatMap((path) => analyzed[path]?.problems ?? []);
    // A file an agent names that is neither saved nor added here.
    for (const path of tree)
      for (const ref of referencedFiles(path, analyzed[path]?.data))
        if (!(ref in files))
          list.push({
            file: path,
            kind: 'schema',
            path: 'sub_agents',
            message: `names ${ref}, which does not exist`,
          });
    return list;
  }, [analyzed, files, tree]);
  const dirty = useMemo(
    () => !!saved && tree.some((path) => saved[path] !== files[path]),
    [saved, files, tree],
  );
  clean.current = !dirty && !drafted && !busy;
  useEffect(() => {
    if (!tree.includes(current)) setCurrent(ROOT_FILE);
  }, [tree, current]);

  // A problem clicked: its file opens and the YAML's cursor goes to its line and column.
  const yamlBox = useRef<HTMLTextAreaElement>(null);
  const [jump, setJump] = useState<Problem | undefined>();
  const showProblem = (p: Problem) => {
    setCurrent(p.file);
    setJump(p);
  };
  useEffect(() => {
    const box = yamlBox.current;
    if (!jump || jump.file !== current || !box) return;
    setJump(undefined);
    const lines = box.value.split('\n');
    let offset = 0;
    for (let i = 0; i < (jump.line ?? 1) - 1 && i < lines.length; i++) offset += (lines[i]?.length ?? 0) + 1;
    offset = Math.min(offset + (jump.col ?? 1) - 1, box.value.length);
    box.focus();
    box.setSelectionRange(offset, offset);
  }, [jump, current]);

  const text = files[current] ?? '';
  const info = analyzed[current];
  const data = info?.data ?? {};
  const update = (next: string) => {
    edits.current++;
    setFiles((all) => ({ ...all, [current]: next }));
    setServerError(undefined);
  };
  const field = (key: string, value: unknown) => update(setField(text, key, value));
  const optional = (key: string, value: string) => field(key, value === '' ? undefined : value);

  const upload = () => tree.map((path) => ({ path, text: files[path] ?? '' }));
  const act = async (what: string, work: () => Promise<void>) => {
    edits.current++;
    setBusy(what);
    setServerError(undefined);
    try {
      await work();
    } catch (error) {
      setServerError(message(error));
    } finally {
      setBusy(undefined);
    }
  };
  const tryIt = () =>
    act('try', async () => {
      await builderApi.save(app, upload(), true);
      setDrafted(true);
      onTry();
    });
  const dropDraftSessions = async () => {
    if (drafted) await builderApi.deleteDraftSessions(app, user).catch(() => {});
  };
  const save = () =>
    act('save', async () => {
      const written = upload();
      await dropDraftSessions();
      await builderApi.save(app, written, false);
      setSaved(Object.fromEntries(written.map((f) => [f.path, f.text])));
      setDrafted(false);
      onLeave(`Saved ${app}: the next run uses it.`);
    });
  const cancel = () =>
    act('cancel', async () => {
      await dropDraftSessions();
      await builderApi.cancel(app);
      // The app's files as they are now (they may have changed on disk since they were read).
      const stored = (await loadTree(app, false)).files;
      setDrafted(false);
      setSaved(stored);
      setFiles(stored);
      setCurrent(ROOT_FILE);
      onLeave('Draft discarded.');
    });

  const addTool = () => {
    const name = newTool.trim();
    if (!name) return;
    update(addItem(text, 'tools', { name }));
    setNewTool('');
  };
  const addSubAgent = () => {
    const name = newAgent.trim();
    if (!AGENT_NAME.test(name)) {
      setFormError('A sub-agent name is letters, digits and _, not starting with a digit.');
      return;
    }
    const configPath = `${name}.yaml`;
    const path = resolveFrom(current, configPath);
    if (!path || path in files) {
      setFormError(`${configPath} exists already.`);
      return;
    }
    setFormError(undefined);
    edits.current++;
    setFiles((all) => ({
      ...all,
      [current]: addItem(text, 'sub_agents', { config_path: configPath }),
      [path]: newAgentText(name),
    }));
    setNewAgent('');
  };

  if (loadError)
    return (
      <div class="pad" role="alert">
        <p>Could not read the app’s files: {loadError}</p>
        <button type="button" class="btn small" onClick={() => void load()}>
          Retry
        </button>
      </div>
    );
  if (!saved) return <p class="muted pad">Reading {app}’s YAML…</p>;

  const agentClass = canonicalClass(data.agent_class);
  const isLlm = agentClass === 'LlmAgent' || agentClass === 'Agent';
  const custom = !(BUILT_IN_AGENT_CLASSES as readonly string[]).includes(agentClass);
  const tools = Array.isArray(data.tools) ? (data.tools as { name?: unknown; args?: unknown }[]) : [];
  const subAgents = Array.isArray(data.sub_agents) ? (data.sub_agents as unknown[]) : [];
  const modelCode = (data.model_code as { name?: unknown } | undefined)?.name;
  const editable = info?.editable ?? false;
  const blocked = problems.length > 0 || !!busy;

  return (
    <section class="builder" aria-label={`Builder of ${app}`}>
      <div class="builder-head">
        <div class="builder-bar">
          <button
            type="button"
            class="btn primary small"
            disabled={blocked}
            title={problems.length > 0 ? 'Fix the problems first' : 'Save a draft and chat with it'}
            onClick={() => void tryIt()}
          >
            {busy === 'try' ? 'Saving draft…' : 'Try it'}
          </button>
          <button type="button" class="btn small" disabled={blocked} onClick={() => void save()}>
            {busy === 'save' ? 'Saving…' : 'Save'}
          </button>
          <button
            type="button"
            class="btn small"
            disabled={!!busy || (!dirty && !trying && !drafted)}
            onClick={() => void cancel()}
          >
            Cancel
          </button>
          <span class="muted small" role="status">
            {trying
              ? 'The chat is trying the draft.'
              : drafted
                ? 'A draft is saved, not the app.'
                : dirty
                  ? 'Unsaved changes.'
                  : 'Saved.'}
          </span>
        </div>
        {serverError ? (
          <div class="builder-error" role="alert">
            <strong>The server refused it:</strong> {serverError}
          </div>
        ) : null}
        {problems.length > 0 ? (
          <section class="builder-problems" aria-label="Problems">
            <h3>Problems ({problems.length})</h3>
            <ul>
              {problems.map((p) => (
                <li key={problemLine(p)} class={p.kind}>
                  <button
                    type="button"
                    class="link"
                    title="Show it in the YAML"
                    onClick={() => showProblem(p)}
                  >
                    {problemLine(p)}
                  </button>
                </li>
              ))}
            </ul>
          </section>
        ) : null}
      </div>
      {tree.length > 1 ? (
        <nav class="builder-files" aria-label="Agent files">
          {tree.map((path) => (
            <button
              key={path}
              type="button"
              class="btn small"
              aria-pressed={path === current}
              onClick={() => setCurrent(path)}
            >
              {path}
              {analyzed[path]?.problems.length ? ' ⚠' : ''}
            </button>
          ))}
        </nav>
      ) : null}

      <form class="builder-form" aria-label={`Form of ${current}`} onSubmit={(e) => e.preventDefault()}>
        <h3>{current}</h3>
        {!editable ? (
          <p class="muted">The form is back once the YAML below parses as a mapping.</p>
        ) : (
          <>
            <label>
              <span>Agent class</span>
              <select
                value={agentClass}
                onChange={(e) => {
                  const next = (e.target as HTMLSelectElement).value;
                  field(
                    'agent_class',
                    next === 'LlmAgent' && data.agent_class === undefined ? undefined : next,
                  );
                }}
              >
                {AGENT_CLASSES.map((c) => (
                  <option key={c} value={c}>
                    {c}
                  </option>
                ))}
                {custom ? <option value={agentClass}>{agentClass}</option> : null}
              </select>
            </label>
            <TextRow label="Name" value={data.name} onInput={(v) => field('name', v)} />
            <TextRow
              label="Description"
              value={data.description}
              onInput={(v) => optional('description', v)}
            />
            {isLlm ? (
              <>
                <TextRow
                  label="Model"
                  value={data.model}
                  placeholder={modelCode ? `from code: ${str(modelCode)}` : 'inherited from the parent agent'}
                  onInput={(v) => optional('model', v)}
                />
                <label>
                  <span>Instruction</span>
                  <textarea
                    rows={5}
                    value={str(data.instruction)}
                    onInput={(e) => field('instruction', (e.target as HTMLTextAreaElement).value)}
                  />
                </label>
                <TextRow
                  label="Output key"
                  value={data.output_key}
                  onInput={(v) => optional('output_key', v)}
                />
                <label>
                  <span>Include contents</span>
                  <select
                    value={str(data.include_contents) || 'default'}
                    onChange={(e) => {
                      const next = (e.target as HTMLSelectElement).value;
                      field('include_contents', next === 'default' ? undefined : next);
                    }}
                  >
                    <option value="default">default</option>
                    <option value="none">none</option>
                  </select>
                </label>
                <div class="builder-checks">
                  {(['disallow_transfer_to_parent', 'disallow_transfer_to_peers'] as const).map((key) => (
                    <label key={key} class="check">
                      <input
                        type="checkbox"
                        checked={data[key] === true}
                        onChange={(e) =>
                          field(key, (e.target as HTMLInputElement).checked ? true : undefined)
                        }
                      />
                      <span>
                        {key === 'disallow_transfer_to_parent'
                          ? 'Disallow transfer to parent'
                          : 'Disallow transfer to peers'}
                      </span>
                    </label>
                  ))}
                </div>
                <fieldset>
                  <legend>Tools</legend>
                  {tools.length === 0 ? <p class="muted small">No tools.</p> : null}
                  <ul class="builder-list" aria-label="Tools">
                    {tools.map((tool, i) => (
                      <li key={`${i}-${str(tool?.name)}`}>
                        <code>{str(tool?.name)}</code>
                        {tool?.args ? <span class="muted small"> with args (edit in YAML)</span> : null}
                        <button
                          type="button"
                          class="link"
                          aria-label={`Remove tool ${str(tool?.name)}`}
                          onClick={() => update(removeItem(text, 'tools', i))}
                        >
                          Remove
                        </button>
                      </li>
                    ))}
                  </ul>
                  <AddRow
                    label="New tool"
                    placeholder="google_search, or my_app.tools.get_weather"
                    value={newTool}
                    onValue={setNewTool}
                    onAdd={addTool}
                    button="Add tool"
                    list="builder-built-in-tools"
                  >
                    <datalist id="builder-built-in-tools">
                      {BUILT_IN_TOOL_NAMES.map((t) => (
                        <option key={t} value={t} />
                      ))}
                    </datalist>
                  </AddRow>
                </fieldset>
              </>
            ) : null}
            {agentClass === 'LoopAgent' ? (
              <label>
                <span>Max iterations</span>
                <input
                  type="number"
                  min={1}
                  step={1}
                  value={str(data.max_iterations)}
                  onInput={(e) => {
                    const value = (e.target as HTMLInputElement).value;
                    field('max_iterations', value === '' ? undefined : Number(value));
                  }}
                />
              </label>
            ) : null}
            {agentClass === 'Workflow' ? (
              <p class="muted small">
                A workflow’s nodes and routes are its <code>edges</code>: edit them in the YAML below.
              </p>
            ) : (
              <fieldset>
                <legend>Sub-agents</legend>
                {subAgents.length === 0 ? <p class="muted small">No sub-agents.</p> : null}
                <ul class="builder-list" aria-label="Sub-agents">
                  {subAgents.map((ref, i) => {
                    const r = (ref ?? {}) as { config_path?: unknown; code?: unknown };
                    const path =
                      typeof r.config_path === 'string' ? resolveFrom(current, r.config_path) : undefined;
                    const label = str(r.config_path ?? r.code);
                    return (
                      <li key={`${i}-${label}`}>
                        {path && path in files ? (
                          <button type="button" class="link" onClick={() => setCurrent(path)}>
                            {label}
                          </button>
                        ) : (
                          <code>{label}</code>
                        )}
                        <button
                          type="button"
                          class="link"
                          aria-label={`Remove sub-agent ${label}`}
                          onClick={() => update(removeItem(text, 'sub_agents', i))}
                        >
                          Remove
                        </button>
                      </li>
                    );
                  })}
                </ul>
                <AddRow
                  label="New sub-agent name"
                  placeholder="helper"
                  value={newAgent}
                  onValue={setNewAgent}
                  onAdd={addSubAgent}
                  button="Add sub-agent"
                />
                {formError ? (
                  <p class="builder-error small" role="alert">
                    {formError}
                  </p>
                ) : null}
              </fieldset>
            )}
            <p class="muted small">
              Callbacks, schemas, <code>generate_content_config</code> and the other fields are edited in the
              YAML.
            </p>
          </>
        )}
      </form>
      <label class="builder-yaml">
        <span>YAML of {current}</span>
        <textarea
          ref={yamlBox}
          spellcheck={false}
          rows={14}
          value={text}
          onInput={(e) => update((e.target as HTMLTextAreaElement).value)}
        />
      </label>
    </section>
  );
}
