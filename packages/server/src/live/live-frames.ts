import { type Content, eventSchemas, isPlainObject, lazyZod, type RunConfig, tryParseJson } from '@adk/core';
import { MAX_JSON_DEPTH, validate } from '../http/body.js';
import { camelContent, camelKeys, requestSchemas } from '../http/schemas.js';
import { ServerError } from '../server/errors.js';

/** One client frame of `/run_live` (adk-python's `LiveRequest`), checked: exactly one field set. */
export type LiveFrame =
  | { content: Content }
  | { blob: { mimeType: string; data: string } }
  | { activityStart: Record<string, never> }
  | { activityEnd: Record<string, never> }
  | { close: true };

/** The query parameters of `/run_live`, as adk-python's `adk web` reads them. */
export interface LiveQuery {
  appName: string;
  userId: string;
  sessionId: string;
  runConfig: RunConfig;
}

const liveSchemas = lazyZod((z) => {
  const { content } = eventSchemas();
  const marker = z.union([z.object({}).loose(), z.literal(true)]);
  return {
    frame: z
      .object({
        content: content.optional(),
        blob: z
          .object({
            mimeType: z.string().min(1).max(256),
            data: z.string().regex(/^[A-Za-z0-9+/_-]*={0,2}$/, 'must be base64'),
          })
          .optional(),
        activityStart: marker.optional(),
        activityEnd: marker.optional(),
        close: z.boolean().optional(),
      })
      .loose(),
  };
});

const FIELDS = ['content', 'blob', 'activityStart', 'activityEnd', 'close'] as const;

/**
 * Parses one text frame. snake_case (`activity_start`, `blob.mime_type`, `inline_data`, …) and
 * camelCase are both accepted; anything else is a BAD_REQUEST or VALIDATION error with a message
 * the client can act on.
 */
export function parseLiveFrame(text: string): LiveFrame {
  const parsed = tryParseJson(text);
  if (!isPlainObject(parsed))
    throw new ServerError('BAD_REQUEST', 'A /run_live frame must be one JSON object (LiveRequest)');
  assertShallow(parsed);
  const body = camelKeys(parsed) as Record<string, unknown>;
  if (isPlainObject(body.blob)) body.blob = camelKeys(body.blob);
  if (body.content !== undefined && body.content !== null) body.content = camelContent(body.content);
  for (const key of FIELDS) if (body[key] === null) delete body[key];
  if (body.close === false) delete body.close;
  const frame = validate(liveSchemas().frame, body, 'LiveRequest');
  const present = FIELDS.filter((key) => frame[key] !== undefined);
  if (present.length !== 1) {
    throw new ServerError(
      'BAD_REQUEST',
      present.length === 0
        ? 'A LiveRequest needs one of content, blob, activity_start, activity_end or close'
        : `A LiveRequest carries one of content, blob, activity_start, activity_end or close, not ${present.join(' and ')}`,
    );
  }
  const key = present[0];
  if (key === 'content') return { content: frame.content as Content };
  if (key === 'blob') return { blob: frame.blob as { mimeType: string; data: string } };
  if (key === 'activityStart') return { activityStart: {} };
  if (key === 'activityEnd') return { activityEnd: {} };
  return { close: true };
}

/** Nesting deeper than the HTTP routes allow is refused before validation recurses into it. */
function assertShallow(value: unknown): void {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (current === null || typeof current !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH)
      throw new ServerError(
        'BAD_REQUEST',
        `A /run_live frame is nested deeper than ${MAX_JSON_DEPTH} levels`,
      );
    for (const child of Array.isArray(current) ? current : Object.values(current))
      stack.push([child, depth + 1]);
  }
}

function flag(params: URLSearchParams, name: string): boolean | undefined {
  const raw = params.get(name);
  if (raw === null || raw === '') return undefined;
  const v = raw.toLowerCase();
  if (v === 'true' || v === '1' || v === 'yes' || v === 'on') return true;
  if (v === 'false' || v === '0' || v === 'no' || v === 'off') return false;
  throw new ServerError(
    'BAD_REQUEST',
    `Query parameter ${name} must be true or false, not ${JSON.stringify(raw)}`,
  );
}

function id(params: URLSearchParams, name: string): string {
  const value = params.get(name);
  if (value === null || value === '')
    throw new ServerError('BAD_REQUEST', `Query parameter ${name} is required`);
  return validate(requestSchemas().id, value, `query parameter ${name}`);
}

/**
 * Reads `app_name`, `user_id`, `session_id` (required), `modalities` (repeated or comma-separated,
 * TEXT and/or AUDIO; default AUDIO as in adk-python), `proactive_audio`, `enable_affective_dialog`,
 * `enable_session_resumption`, `explicit_vad_signal` and `save_live_blob` (booleans). The user's
 * speech is transcribed, and the model's when it answers in audio.
 */
export function parseLiveQuery(url: URL): LiveQuery {
  const params = url.searchParams;
  const appName = id(params, 'app_name');
  const userId = id(params, 'user_id');
  const sessionId = id(params, 'session_id');
  const modalities = params
    .getAll('modalities')
    .flatMap((m) => m.split(','))
    .map((m) => m.trim().toUpperCase())
    .filter(Boolean);
  for (const m of modalities) {
    if (m !== 'TEXT' && m !== 'AUDIO')
      throw new ServerError(
        'BAD_REQUEST',
        `Query parameter modalities must be TEXT or AUDIO, not ${JSON.stringify(m)}`,
      );
  }
  const responseModalities = modalities.length > 0 ? [...new Set(modalities)] : ['AUDIO'];
  const runConfig: RunConfig = {
    responseModalities,
    inputAudioTranscription: true,
    // Transcribing the model's speech only means something when it speaks.
    ...(responseModalities.includes('AUDIO') ? { outputAudioTranscription: true } : {}),
  };
  const proactive = flag(params, 'proactive_audio');
  if (proactive !== undefined) runConfig.proactivity = { proactiveAudio: proactive };
  const affective = flag(params, 'enable_affective_dialog');
  if (affective !== undefined) runConfig.enableAffectiveDialog = affective;
  const resumption = flag(params, 'enable_session_resumption');
  if (resumption !== undefined) runConfig.sessionResumption = { transparent: resumption };
  if (flag(params, 'explicit_vad_signal'))
    runConfig.realtimeInputConfig = { automaticActivityDetection: { disabled: true } };
  const saveBlob = flag(params, 'save_live_blob');
  if (saveBlob !== undefined) runConfig.custom = { saveLiveBlob: saveBlob };
  return { appName, userId, sessionId, runConfig };
}
