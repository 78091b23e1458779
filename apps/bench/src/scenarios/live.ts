import { fmtMs } from '../harness/format.js';
import { percentile } from '../harness/stats.js';
import { newReport, type Scenario } from '../harness/types.js';

const TARGET_P50_MS = 1;
/** 100 ms of 24 kHz 16-bit mono PCM, the size of a typical spoken-audio frame from a live model. */
const AUDIO_FRAME_BYTES = 4800;

type Kind = 'text' | 'audio';

/**
 * 11. The live path's added latency: a scripted live connection yields a frame stamped with
 * `performance.now()`; the frame goes through `Runner.runLive` (the live flow, plugins, commit
 * rules) and `@adk/server`'s `/run_live` WebSocket to a client in the same process, which reads
 * the stamp back. One frame in flight at a time, so the figure is latency, not queueing.
 */
export const liveScenario: Scenario = {
  id: 'live',
  title: '11. Live path latency (/run_live)',
  async run(config) {
    const report = newReport(this.id, this.title);
    const core = await import('@adk/core').catch(() => undefined);
    const testing = await import('@adk/core/testing').catch(() => undefined);
    const server = await import('@adk/server').catch(() => undefined);
    if (
      !core ||
      !testing ||
      !server ||
      !('runLive' in core.Runner.prototype) ||
      !('ScriptedLiveModel' in testing)
    ) {
      report.skipped.push('@adk/core has no Runner.runLive / ScriptedLiveModel in this build');
      return report;
    }
    const frames = config.quick ? 200 : 5000;
    const warmup = config.quick ? 50 : 500;

    // The model side: one frame per request from the bench, stamped when the connection yields it.
    let release: (() => void) | undefined;
    let kind: Kind = 'text';
    const audio = Buffer.alloc(AUDIO_FRAME_BYTES, 1).toString('base64');
    const model = new testing.ScriptedLiveModel({
      model: 'bench-live',
      connections: [
        async function* () {
          for (;;) {
            await new Promise<void>((resolve) => {
              release = resolve;
            });
            const part =
              kind === 'text'
                ? { text: 'word ' }
                : { inlineData: { mimeType: 'audio/pcm;rate=24000', data: audio } };
            yield {
              content: { role: 'model' as const, parts: [part] },
              partial: kind === 'text',
              customMetadata: { sentAt: performance.now() },
            };
          }
        },
      ],
    });
    const agent = new core.LlmAgent({ name: 'bench_live', model, instruction: 'Talk.' });
    const sessions = new core.InMemorySessionService();
    await sessions.createSession({ appName: 'bench_live', userId: 'u', sessionId: 's' });
    const adk = await server.createAdkServer({
      apps: { bench_live: agent },
      sessionService: sessions,
      a2a: false,
      logger: {
        info: () => undefined,
        warn: () => undefined,
        error: (line) => config.log(`  server: ${line}`),
      },
    });
    const listening = await server.listenAdkServer(adk, { port: 0 });
    try {
      const url = `${listening.url.replace('http', 'ws')}/run_live?app_name=bench_live&user_id=u&session_id=s&modalities=AUDIO`;
      const socket = new WebSocket(url);
      let received: ((latency: number) => void) | undefined;
      socket.addEventListener('message', (e) => {
        const now = performance.now();
        const event = JSON.parse(String(e.data)) as { customMetadata?: { sentAt?: number } };
        const sentAt = event.customMetadata?.sentAt;
        if (typeof sentAt === 'number') received?.(now - sentAt);
      });
      await new Promise((resolve, reject) => {
        socket.addEventListener('open', resolve, { once: true });
        socket.addEventListener('error', () => reject(new Error('the /run_live socket did not open')), {
          once: true,
        });
      });
      // The connection opens when the live flow starts: wait for the script to be waiting.
      const started = Date.now();
      while (!release) {
        if (Date.now() - started > 10_000) throw new Error('the live connection did not open');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const one = () =>
        new Promise<number>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error('a live frame did not arrive within 5 s')), 5000);
          received = (latency) => {
            clearTimeout(timer);
            resolve(latency);
          };
          const go = release;
          release = undefined;
          go?.();
        });
      // The script is ready for the next frame once the flow has asked for one (bounded, so a run
      // that ended early fails the scenario instead of hanging it).
      const waitReady = async () => {
        const deadline = performance.now() + 10_000;
        while (!release) {
          if (socket.readyState !== WebSocket.OPEN) throw new Error('the /run_live socket closed');
          if (performance.now() > deadline) throw new Error('the live connection stopped asking for frames');
          await new Promise((resolve) => setImmediate(resolve));
        }
      };
      const rows: string[][] = [];
      for (const k of ['text', 'audio'] as const) {
        kind = k;
        for (let i = 0; i < warmup; i++) {
          await waitReady();
          await one();
        }
        const latencies: number[] = [];
        for (let i = 0; i < frames; i++) {
          await waitReady();
          latencies.push(await one());
        }
        const p50 = percentile(latencies, 50);
        const p99 = percentile(latencies, 99);
        rows.push([
          k === 'text' ? 'partial text chunk' : `audio chunk (${AUDIO_FRAME_BYTES} B PCM, base64)`,
          String(frames),
          fmtMs(p50),
          fmtMs(p99),
          fmtMs(Math.max(...latencies)),
        ]);
        report.checks.push({
          scenario: this.id,
          label: `/run_live added latency p50, ${k === 'text' ? 'text chunk' : 'audio chunk'}`,
          target: `≤ ${TARGET_P50_MS} ms`,
          measured: `${fmtMs(p50)} (p99 ${fmtMs(p99)})`,
          pass: p50 <= TARGET_P50_MS,
        });
        config.log(`  ${k}: p50 ${fmtMs(p50)}, p99 ${fmtMs(p99)} over ${frames} frames`);
      }
      report.tables.push({
        caption: `From the moment a scripted live connection yields a model frame to the moment a \`/run_live\` WebSocket client (Node's WebSocket, same process, loopback) has the event: the live flow, the runner (partial and audio events are not stored), JSON encoding, the socket. One frame in flight; ${warmup} warm-up frames per row; the server's defaults (in-memory sessions, tracing on).`,
        headers: ['frame', 'frames', 'p50', 'p99', 'max'],
        rows,
      });
      socket.close();
    } finally {
      await listening.close();
    }
    return report;
  },
};
