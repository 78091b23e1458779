import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { AdkEvent, JsonObject } from '../api/types.js';
import {
  base64ToBytes,
  bytesToBase64,
  type Microphone,
  PcmPlayer,
  pcmRate,
  startMicrophone,
} from './audio.js';
import { type LiveFrame, LiveSocket } from './live-socket.js';
import './live.css';

/** A live event: an ADK event plus the live-only fields. */
type LiveEvent = AdkEvent & {
  inputTranscription?: { text?: string; finished?: boolean };
  outputTranscription?: { text?: string; finished?: boolean };
};

interface Line {
  key: number;
  who: 'user' | 'agent';
  author: string;
  text: string;
  final: boolean;
  interrupted?: boolean;
}

interface ToolCall {
  id: string;
  name: string;
  args?: JsonObject;
  response?: JsonObject;
}

type Status = 'idle' | 'connecting' | 'live' | 'ending';

const CLOSE_REASONS: Record<number, string> = {
  1002: 'the session does not exist',
  1008: 'the server refused the connection',
  1011: 'the live run failed',
  1001: 'the server is shutting down',
};

let lineKeys = 0;

/** A microphone (inline SVG: emoji glyphs are missing from many fonts). */
function MicIcon() {
  return (
    <svg
      aria-hidden="true"
      focusable="false"
      width={14}
      height={14}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      stroke-width={2}
      stroke-linecap="round"
      stroke-linejoin="round"
    >
      <rect x="9" y="2" width="6" height="12" rx="3" />
      <path d="M5 11a7 7 0 0 0 14 0M12 18v4" />
    </svg>
  );
}

/**
 * Live conversation with the agent over `/run_live`: a microphone button that streams 16 kHz PCM
 * and plays the spoken answer as it arrives, or a text-only live mode for models without audio.
 * Both transcriptions show as they come; barge-in (`interrupted`) stops playback; tool calls made
 * during the conversation are listed.
 */
export function LivePanel({
  app,
  user,
  disabled,
  ensureSession,
  onActive,
  onEnded,
}: {
  app: string | undefined;
  user: string;
  disabled: boolean;
  /** The session to talk in (creating one when none is open). */
  ensureSession: () => Promise<string | undefined>;
  onActive: (active: boolean) => void;
  /** The live session ended: the page reloads the session's stored events. */
  onEnded: (sessionId: string) => void;
}) {
  const [status, setStatus] = useState<Status>('idle');
  const [mode, setMode] = useState<'AUDIO' | 'TEXT'>('AUDIO');
  const [lines, setLines] = useState<Line[]>([]);
  const [tools, setTools] = useState<ToolCall[]>([]);
  const [problem, setProblem] = useState<string | undefined>();
  const [text, setText] = useState('');
  const [audio, setAudio] = useState({ chunks: 0, ms: 0, played: 0, playing: false, interruptions: 0 });
  const [mic, setMic] = useState({ chunks: 0, deviceRate: 0 });
  const socket = useRef<LiveSocket | undefined>(undefined);
  const microphone = useRef<Microphone | undefined>(undefined);
  const player = useRef<PcmPlayer | undefined>(undefined);
  const session = useRef<string | undefined>(undefined);

  const syncAudio = useCallback(() => {
    const p = player.current;
    if (p)
      setAudio((a) => ({
        ...a,
        chunks: p.chunks,
        ms: Math.round(p.scheduledMs),
        played: p.played,
        playing: p.playing,
      }));
  }, []);

  /** Adds a transcription chunk (or final text) to the last open line of `who`, or starts one. */
  const say = useCallback((who: 'user' | 'agent', author: string, chunk: string, final: boolean) => {
    setLines((list) => {
      const at = list.findLastIndex((l) => l.who === who && !l.final);
      if (at < 0) {
        if (!chunk.trim()) return list;
        return [...list, { key: ++lineKeys, who, author, text: chunk, final }];
      }
      const line = list[at] as Line;
      const next = { ...line, text: final ? chunk || line.text : line.text + chunk, final };
      return [...list.slice(0, at), next, ...list.slice(at + 1)];
    });
  }, []);

  const onFrame = useCallback(
    (frame: LiveFrame) => {
      if (frame.kind === 'error') {
        setProblem(frame.error);
        return;
      }
      const event = frame.event as LiveEvent;
      if (event.errorCode || event.errorMessage) setProblem(event.errorMessage ?? event.errorCode);
      if (event.interrupted) {
        player.current?.interrupt();
        setAudio((a) => ({ ...a, interruptions: a.interruptions + 1 }));
        // The answer being spoken (its transcription may already have been closed) was cut off.
        setLines((list) => {
          const at = list.findLastIndex((l) => l.who === 'agent');
          if (at < 0) return list;
          return list.map((l, i) => (i === at ? { ...l, final: true, interrupted: true } : l));
        });
      }
      const input = event.inputTranscription;
      if (input?.text !== undefined) say('user', 'user', input.text, !!input.finished);
      const output = event.outputTranscription;
      if (output?.text !== undefined) say('agent', event.author, output.text, !!output.finished);
      for (const part of event.content?.parts ?? []) {
        if (part.inlineData?.mimeType.startsWith('audio/')) {
          player.current?.play(base64ToBytes(part.inlineData.data), pcmRate(part.inlineData.mimeType));
        } else if (part.functionCall) {
          const call = part.functionCall;
          setTools((list) =>
            list.some((t) => t.id === call.id)
              ? list
              : [
                  ...list,
                  {
                    id: call.id ?? `${call.name}-${list.length}`,
                    name: call.name,
                    ...(call.args ? { args: call.args } : {}),
                  },
                ],
          );
        } else if (part.functionResponse) {
          const response = part.functionResponse;
          setTools((list) =>
            list.map((t) =>
              t.id === response.id || (!response.id && t.name === response.name && !t.response)
                ? { ...t, ...(response.response ? { response: response.response } : {}) }
                : t,
            ),
          );
        } else if (part.text !== undefined && !part.thought && event.author !== 'user' && !output) {
          // Text answers (the TEXT modality): partial chunks, then the whole text.
          say('agent', event.author, part.text, !event.partial);
        }
      }
    },
    [say],
  );

  const stopMicrophone = useCallback(async () => {
    const m = microphone.current;
    microphone.current = undefined;
    await m?.stop();
  }, []);

  const finish = useCallback(
    (code: number, reason: string) => {
      void stopMicrophone();
      socket.current = undefined;
      setStatus('idle');
      onActive(false);
      if (code !== 1000 && code !== 1005)
        setProblem(
          `Live session closed (${code}${reason ? `: ${reason}` : `, ${CLOSE_REASONS[code] ?? 'abnormally'}`}).`,
        );
      const id = session.current;
      if (id) onEnded(id);
    },
    [onActive, onEnded, stopMicrophone],
  );

  const start = useCallback(
    async (modality: 'AUDIO' | 'TEXT') => {
      if (!app || socket.current) return;
      setProblem(undefined);
      setLines([]);
      setTools([]);
      setMic({ chunks: 0, deviceRate: 0 });
      setMode(modality);
      setStatus('connecting');
      onActive(true);
      const id = await ensureSession();
      if (!id) {
        setStatus('idle');
        onActive(false);
        return;
      }
      session.current = id;
      if (modality === 'AUDIO') {
        player.current ??= new PcmPlayer();
        player.current.onChange = syncAudio;
        // In the click's task, so autoplay rules let the answer play.
        await player.current.resume();
      }
      const live = new LiveSocket({ app, user, session: id, modality, onFrame, onClose: finish });
      socket.current = live;
      try {
        await live.ready();
      } catch {
        return; // onClose says why
      }
      setStatus('live');
      if (modality !== 'AUDIO') return;
      try {
        const m = await startMicrophone((pcm) => {
          live.sendAudio(bytesToBase64(pcm));
          setMic((s) => ({ ...s, chunks: s.chunks + 1 }));
        });
        if (socket.current !== live) {
          await m.stop();
          return;
        }
        microphone.current = m;
        setMic({ chunks: 0, deviceRate: m.deviceRate });
      } catch (error) {
        setProblem(`The microphone is not available (${(error as Error).message}); type instead.`);
      }
    },
    [app, user, ensureSession, onActive, onFrame, finish, syncAudio],
  );

  const stop = useCallback(() => {
    void stopMicrophone();
    const live = socket.current;
    if (!live) return;
    setStatus('ending');
    live.close();
  }, [stopMicrophone]);

  // Leaving the page or switching app ends the conversation.
  useEffect(() => () => stop(), [stop]);
  useEffect(() => () => void player.current?.close(), []);
  // A new app ends the live session of the old one.
  const shownApp = useRef(app);
  useEffect(() => {
    if (shownApp.current !== app) stop();
    shownApp.current = app;
  }, [app, stop]);

  const active = status !== 'idle';
  const sendText = () => {
    const t = text.trim();
    if (!t || !socket.current?.open) return;
    socket.current.sendText(t);
    setLines((list) => [...list, { key: ++lineKeys, who: 'user', author: 'user', text: t, final: true }]);
    setText('');
  };

  return (
    <section
      class={`live ${active ? 'active' : ''}`}
      aria-label="Live conversation"
      data-live-status={status}
      data-live-mode={mode}
      data-audio-chunks={audio.chunks}
      data-audio-ms={audio.ms}
      data-audio-played={audio.played}
      data-audio-playing={audio.playing ? 'true' : 'false'}
      data-interruptions={audio.interruptions}
      data-mic-chunks={mic.chunks}
      data-mic-rate={mic.deviceRate}
    >
      <div class="live-bar">
        {active ? (
          <>
            <span class="live-dot" aria-hidden="true" />
            <span class="live-state" role="status">
              {status === 'connecting'
                ? 'Connecting…'
                : status === 'ending'
                  ? 'Ending…'
                  : mode === 'AUDIO'
                    ? microphone.current
                      ? `Listening (microphone ${mic.deviceRate} Hz → 16 kHz)`
                      : 'Live (no microphone)'
                    : 'Live text'}
              {audio.playing ? ' · speaking' : ''}
            </span>
            <button type="button" class="btn danger small" onClick={stop} disabled={status === 'ending'}>
              End live
            </button>
          </>
        ) : (
          <>
            <button
              type="button"
              class="btn small mic"
              disabled={disabled || !app}
              onClick={() => void start('AUDIO')}
              title="Talk to the agent: streams your microphone to /run_live and plays its spoken answer"
            >
              <MicIcon /> Start voice
            </button>
            <button
              type="button"
              class="btn small"
              disabled={disabled || !app}
              onClick={() => void start('TEXT')}
              title="A live session with text answers, for models without audio"
            >
              Live text
            </button>
          </>
        )}
      </div>
      {problem ? (
        <p class="notice error live-problem" role="alert">
          {problem}
        </p>
      ) : null}
      {active || lines.length > 0 || tools.length > 0 ? (
        <div class="live-body">
          <ol class="live-lines" aria-label="Live transcript" aria-live="polite">
            {lines.map((l) => (
              <li
                key={l.key}
                class={`live-line ${l.who} ${l.final ? 'final' : 'partial'}`}
                data-who={l.who}
                data-final={l.final ? 'true' : 'false'}
              >
                <span class="author">{l.who === 'user' ? 'You' : l.author}</span> {l.text}
                {l.interrupted ? <span class="muted small"> (interrupted)</span> : null}
              </li>
            ))}
          </ol>
          {tools.length > 0 ? (
            <ul class="live-tools" aria-label="Tool calls">
              {tools.map((t) => (
                <li key={t.id} class="card live-tool">
                  <span class="card-title">
                    {t.name}({t.args ? JSON.stringify(t.args) : ''})
                  </span>
                  {t.response ? (
                    <code> → {JSON.stringify(t.response)}</code>
                  ) : (
                    <span class="muted small"> running…</span>
                  )}
                </li>
              ))}
            </ul>
          ) : null}
          {active ? (
            <form
              class="live-input"
              onSubmit={(e) => {
                e.preventDefault();
                sendText();
              }}
            >
              <label class="sr-only" for="live-text">
                Say something (typed)
              </label>
              <input
                id="live-text"
                type="text"
                value={text}
                disabled={status !== 'live'}
                placeholder={mode === 'AUDIO' ? 'Speak, or type here' : 'Type a message for the live session'}
                onInput={(e) => setText((e.target as HTMLInputElement).value)}
              />
              <button type="submit" class="btn small" disabled={status !== 'live' || !text.trim()}>
                Send live
              </button>
            </form>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
