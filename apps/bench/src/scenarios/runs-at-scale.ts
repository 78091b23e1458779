import { browserSuiteSkip, CHROMIUM } from '../../../../packages/dev-ui/src/__fixtures__/chromium.js';
import { type RunningWorker, runWorker, SkipSignal, startWorker, summarizeError } from '../harness/child.js';
import { fmt, fmtMs, fmtRatio } from '../harness/format.js';
import { type PostgresCluster, startPostgres } from '../harness/postgres.js';
import { median, percentile } from '../harness/stats.js';
import { newReport, type Scenario, type ScenarioReport } from '../harness/types.js';
import type { RecoveryWorkerArgs } from '../workers/recovery-worker.js';
import type { ScaleServerArgs, ScaleServerInfo } from '../workers/scale-server.js';
import type { ServerLoadArgs, ServerLoadResult } from '../workers/server-load.js';

const LIST_TARGET_MS = 20;
const OPEN_TARGET_MS = 300;
const RUNS_RATIO_TARGET = 0.8;
/** The run manager's default heartbeat interval (RunTiming.heartbeatMs). */
const HEARTBEAT_MS = 2000;
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];

/**
 * 11. Runs and sessions at scale, on a throwaway Postgres: one page of a user's 10,000 sessions
 * (store and HTTP), the dev UI opened on a 5,000-event session in Chromium, and turns/s as
 * background runs (POST …/runs + the SSE tail) beside direct /run_sse on the same server.
 */
export const runsAtScale: Scenario = {
  id: 'runs-at-scale',
  title: '11. Runs and sessions at scale (Postgres)',
  async run(config) {
    const report = newReport(this.id, this.title);
    let cluster: PostgresCluster | undefined;
    try {
      cluster = await startPostgres();
    } catch (error) {
      report.skipped.push(`every part: ${summarizeError(error)}`);
      return report;
    }
    try {
      await sessionsAtScale(report, cluster.url, config.quick, config.log);
      await runsThroughput(report, cluster.url, config.quick, config.log);
      await recoveryTime(report, cluster.url, config.quick, config.log);
    } finally {
      await cluster.stop();
    }
    return report;
  },
};

async function sessionsAtScale(
  report: ScenarioReport,
  postgresUrl: string,
  quick: boolean,
  log: (message: string) => void,
): Promise<void> {
  const args: ScaleServerArgs = {
    postgresUrl,
    sessions: quick ? 500 : 10_000,
    events: quick ? 500 : 5_000,
    pageSize: 50,
    iterations: quick ? 20 : 200,
  };
  log(`  seeding ${args.sessions} sessions and a ${args.events}-event session on Postgres`);
  let running: RunningWorker<ScaleServerInfo>;
  try {
    running = await startWorker<ScaleServerInfo>('scale-server.ts', args, 600_000);
  } catch (error) {
    if (error instanceof SkipSignal) report.skipped.push(`sessions at scale: ${error.message}`);
    else report.notes.push(`**Error** starting the seeded server: ${summarizeError(error)}`);
    return;
  }
  try {
    const info = running.info;
    const listUrl = `${info.url}/apps/bench/users/${info.pagedUser}/sessions`;
    const http = async (url: string, times: number) => {
      const out: number[] = [];
      for (let i = 0; i < times; i++) {
        const t0 = performance.now();
        const res = await fetch(url);
        await res.arrayBuffer();
        if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
        out.push(performance.now() - t0);
      }
      return out;
    };
    const firstPage = (await (await fetch(`${listUrl}?pageSize=${args.pageSize}`)).json()) as {
      nextPageToken?: string;
    };
    const httpFirst = await http(`${listUrl}?pageSize=${args.pageSize}`, args.iterations);
    const httpNext = firstPage.nextPageToken
      ? await http(
          `${listUrl}?pageSize=${args.pageSize}&pageToken=${encodeURIComponent(firstPage.nextPageToken)}`,
          args.iterations,
        )
      : [];
    const httpFull = await http(listUrl, 5);
    const row = (label: string, sample: number[]) => [
      label,
      String(sample.length),
      fmtMs(median(sample)),
      fmtMs(percentile(sample, 99)),
    ];
    report.tables.push({
      caption: `One user with ${fmt(args.sessions, 0)} sessions on a throwaway Postgres (seeded in ${fmt(info.seedMs.sessions / 1000)} s); pages of ${args.pageSize}, newest first. "Store" is \`SqlSessionService.listSessions\` in the server's process; "HTTP" is \`GET …/sessions\` on loopback from the bench process (fetch), the whole answer read. The whole list (no paging params) is ADK's answer, kept for its web UI.`,
      headers: ['list', 'samples', 'p50', 'p99'],
      rows: [
        row('store, first page', info.store.firstPageMs),
        row('store, page 100 (cursor)', info.store.deepPageMs),
        row('store, whole list', info.store.fullListMs),
        row('HTTP, `?pageSize=50`', httpFirst),
        row('HTTP, `?pageSize=50&pageToken=…` (second page)', httpNext),
        row('HTTP, whole list (no params)', httpFull),
      ],
    });
    const listP50 = median(httpFirst);
    report.checks.push({
      scenario: report.title,
      label: `one page of ${fmt(args.sessions, 0)} Postgres sessions over HTTP, p50`,
      target: `≤ ${LIST_TARGET_MS} ms`,
      measured: fmtMs(listP50),
      pass: Number.isFinite(listP50) ? listP50 <= LIST_TARGET_MS : undefined,
    });
    log(
      `  list p50: store ${fmtMs(median(info.store.firstPageMs))}, HTTP page ${fmtMs(listP50)}, HTTP whole list ${fmtMs(median(httpFull))}`,
    );
    await openLongSession(report, info, args.events, quick, log);
  } catch (error) {
    report.notes.push(`**Error** in sessions at scale: ${summarizeError(error)}`);
  } finally {
    await running.stop();
  }
}

/** In the page before its scripts: notes when the last message of the long session is on screen. */
const watchLastMessage = (text: string) => `(() => {
  const needle = ${JSON.stringify(text)};
  const check = () => {
    const log = document.querySelector('[role=log]');
    const last = log && log.querySelector('article:last-of-type');
    if (last && last.textContent && last.textContent.includes(needle)) {
      window.__benchShownAt = performance.now();
      window.__benchShownCount = log.querySelectorAll('article').length;
      return true;
    }
    return false;
  };
  const observer = new MutationObserver(() => { if (check()) observer.disconnect(); });
  observer.observe(document, { subtree: true, childList: true });
})();`;

async function openLongSession(
  report: ScenarioReport,
  info: ScaleServerInfo,
  events: number,
  quick: boolean,
  log: (message: string) => void,
): Promise<void> {
  // In CI (CI=true) a missing browser fails the run instead of being skipped.
  const skipReason = browserSuiteSkip('dev UI on a long session', { warn: () => {} });
  if (skipReason !== undefined) {
    report.skipped.push(`dev UI on a long session: ${skipReason}`);
    return;
  }
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const reloads = quick ? 1 : 5;
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addInitScript({ content: watchLastMessage(`Answer ${events - 1}:`) });
    const page = await context.newPage();
    page.setDefaultTimeout(60_000);
    const url = `${info.url}/dev-ui/?app=bench&session=${info.longSession}`;
    const load = async (navigate: () => Promise<unknown>) => {
      await navigate();
      await page.waitForFunction('window.__benchShownAt !== undefined');
      return page.evaluate<{
        shownMs: number;
        interactiveMs: number;
        articles: number;
        getSessionMs: number;
        bytes: number;
      }>(`(() => {
        const get = performance.getEntriesByType('resource').find((r) => /\\/sessions\\/[^/?]+(\\?|$)/.test(new URL(r.name).pathname + new URL(r.name).search) && r.initiatorType === 'fetch');
        return {
          shownMs: window.__benchShownAt,
          interactiveMs: performance.getEntriesByName('adk:interactive')[0]?.startTime ?? NaN,
          articles: window.__benchShownCount,
          getSessionMs: get ? get.responseEnd - get.startTime : NaN,
          bytes: get ? get.encodedBodySize : NaN,
        };
      })()`);
    };
    log(`  dev UI on the ${events}-event session: cold load, then ${reloads} reloads`);
    const cold = await load(() => page.goto(url));
    const warm = [];
    for (let i = 0; i < reloads; i++) warm.push(await load(() => page.reload()));
    await context.close();
    const warmShown = median(warm.map((w) => w.shownMs));
    report.tables.push({
      caption: `Headless Chromium opens \`/dev-ui/?app=bench&session=…\` on a session of ${fmt(events, 0)} events (half user questions, half answers, Markdown) on the same Postgres server. "Shown" is from navigation start until the last message is in the conversation (a MutationObserver in the page); beside it, when the page became interactive (its app list answered; the same mark as scenario 10) and the first session request as the browser timed it. The page renders ${cold.articles} messages first (\`?numRecentEvents\`); the whole log follows.`,
      headers: [
        'load',
        'messages shown',
        'page interactive (`adk:interactive`)',
        'GET session took',
        'session answer (bytes on the wire)',
      ],
      rows: [
        [
          'cold (fresh browser context)',
          fmtMs(cold.shownMs),
          fmtMs(cold.interactiveMs),
          fmtMs(cold.getSessionMs),
          fmt(cold.bytes, 0),
        ],
        [
          `warm (median of ${reloads} reloads)`,
          fmtMs(warmShown),
          fmtMs(median(warm.map((w) => w.interactiveMs))),
          fmtMs(median(warm.map((w) => w.getSessionMs))),
          fmt(median(warm.map((w) => w.bytes)), 0),
        ],
      ],
    });
    report.checks.push({
      scenario: report.title,
      label: `dev UI on a ${fmt(events, 0)}-event Postgres session: messages shown (warm median)`,
      target: `≤ ${OPEN_TARGET_MS} ms`,
      measured: fmtMs(warmShown),
      pass: Number.isFinite(warmShown) ? warmShown <= OPEN_TARGET_MS : undefined,
    });
    log(`  dev UI shown: cold ${fmtMs(cold.shownMs)}, warm ${fmtMs(warmShown)}`);
  } catch (error) {
    report.notes.push(`**Error** opening the dev UI on the long session: ${summarizeError(error)}`);
  } finally {
    await browser.close();
  }
}

async function runsThroughput(
  report: ScenarioReport,
  postgresUrl: string,
  quick: boolean,
  log: (message: string) => void,
): Promise<void> {
  const sessions = quick ? 5 : 50;
  const turns = quick ? 3 : 20;
  const warmupTurns = quick ? 1 : 3;
  let running: RunningWorker<{ url: string }>;
  try {
    running = await startWorker<{ url: string }>(
      'server-adk.ts',
      { store: 'postgres', postgresUrl },
      180_000,
    );
  } catch (error) {
    if (error instanceof SkipSignal) report.skipped.push(`runs/s: ${error.message}`);
    else report.notes.push(`**Error** starting the server: ${summarizeError(error)}`);
    return;
  }
  const measured = new Map<string, { perSecond: number; p50: number; p99: number }>();
  try {
    // Both modes twice, interleaved, on fresh sessions each time; the better of each is kept, so a
    // burst of load from elsewhere on the machine does not decide the ratio.
    for (const round of [1, 2]) {
      for (const mode of ['run_sse', 'runs'] as const) {
        const base = { url: running.info.url, sessions, mode };
        log(`  ${mode} round ${round}: ${sessions} sessions × ${turns} turns`);
        const warm = await runWorker<ServerLoadResult>(
          'server-load.ts',
          { ...base, turns: warmupTurns, prefix: `warm-${mode}-${round}` } satisfies ServerLoadArgs,
          { timeoutMs: 600_000 },
        );
        if (warm.kind === 'result' && warm.value.errors > 0) {
          report.notes.push(`**Error** (${mode}, warm-up): ${warm.value.firstError}`);
          continue;
        }
        const outcome = await runWorker<ServerLoadResult>(
          'server-load.ts',
          { ...base, turns, prefix: `measured-${mode}-${round}` } satisfies ServerLoadArgs,
          { timeoutMs: 600_000 },
        );
        if (outcome.kind !== 'result') continue;
        const result = outcome.value;
        if (result.errors > 0)
          report.notes.push(`**Errors** (${mode}): ${result.errors}; first: ${result.firstError}`);
        const perSecond = (result.latencyMs.length * 1000) / result.totalMs;
        const previous = measured.get(mode);
        if (!previous || perSecond > previous.perSecond)
          measured.set(mode, {
            perSecond,
            p50: percentile(result.latencyMs, 50),
            p99: percentile(result.latencyMs, 99),
          });
      }
    }
  } catch (error) {
    report.notes.push(`**Error** measuring runs/s: ${summarizeError(error)}`);
  } finally {
    await running.stop();
  }
  const direct = measured.get('run_sse');
  const queued = measured.get('runs');
  const rows: string[][] = [];
  if (direct)
    rows.push(['`POST /run_sse` (direct)', fmt(direct.perSecond), fmtMs(direct.p50), fmtMs(direct.p99)]);
  if (queued)
    rows.push([
      '`POST …/runs` (202) + `GET …/runs/{id}/events` to `end`',
      fmt(queued.perSecond),
      fmtMs(queued.p50),
      fmtMs(queued.p99),
    ]);
  if (rows.length > 0)
    report.tables.push({
      caption: `One @adk/server process on Postgres (run records in SQL beside the sessions), ${sessions} sessions at once × ${turns} turns each (user message → tool call → tool → answer), from one client process (node:http, keep-alive); after ${warmupTurns} warm-up turns per session. Each mode ran twice, interleaved, on fresh sessions; the better round is shown.`,
      headers: ['how a turn is run', 'turns/s', 'p50 turn', 'p99 turn'],
      rows,
    });
  const ratio = direct && queued ? queued.perSecond / direct.perSecond : Number.NaN;
  report.checks.push({
    scenario: report.title,
    label: 'turns/s as background runs ÷ direct /run_sse, same Postgres server',
    target: `≥ ${RUNS_RATIO_TARGET}×`,
    measured: fmtRatio(ratio),
    pass: Number.isFinite(ratio) ? ratio >= RUNS_RATIO_TARGET : undefined,
    ratio: { value: ratio, target: RUNS_RATIO_TARGET, chartLabel: '11 runs vs /run_sse (Postgres)' },
  });
  log(`  runs ÷ run_sse: ${fmtRatio(ratio)}`);
}

interface RecoverySample {
  /** SIGKILL → another worker owns the run. */
  claimMs: number;
  /** SIGKILL → the run has succeeded. */
  doneMs: number;
}

/**
 * Recovery time after kill -9: worker A executes a run that is mid-tool, worker B waits; A is
 * killed at a random point of its heartbeat interval, and the run's record is read every 10 ms
 * until B owns it and until it has succeeded. With run locks (the default on Postgres) and with
 * heartbeats alone (what a lost host leaves).
 */
async function recoveryTime(
  report: ScenarioReport,
  postgresUrl: string,
  quick: boolean,
  log: (message: string) => void,
): Promise<void> {
  const samples = quick ? 1 : 5;
  let stores: import('@adk/session-sql').SqlStores;
  let core: typeof import('@adk/core');
  let agentModule: typeof import('../workers/recovery-agent.js');
  try {
    core = await import('@adk/core');
    const sessionSql = await import('@adk/session-sql');
    agentModule = await import('../workers/recovery-agent.js');
    stores = await sessionSql.createSqlStores(postgresUrl);
  } catch (error) {
    report.notes.push(`**Error** opening the recovery-time stores: ${summarizeError(error)}`);
    return;
  }
  // Queues runs for the workers (execution 'queue': this process executes none).
  const queue = new core.Runner({
    appName: 'recovery',
    agent: agentModule.recoveryAgent(false),
    sessionService: stores.sessions,
    runStore: stores.runs,
    execution: 'queue',
  });
  const results = new Map<boolean, RecoverySample[]>();
  try {
    // The quick mode proves the harness with one kill; heartbeats alone only in the full run.
    for (const runLocks of quick ? [true] : [true, false]) {
      const taken: RecoverySample[] = [];
      for (let i = 0; i < samples; i++) {
        const sample = await recoverOnce(queue, stores, postgresUrl, runLocks, `${runLocks}-${i}`);
        taken.push(sample);
        log(
          `  recovery (${runLocks ? 'run locks' : 'heartbeats only'}) ${i + 1}/${samples}: claimed after ${fmtMs(sample.claimMs)}, done after ${fmtMs(sample.doneMs)}`,
        );
      }
      results.set(runLocks, taken);
    }
  } catch (error) {
    report.notes.push(`**Error** measuring the recovery time: ${summarizeError(error)}`);
  } finally {
    await queue.close().catch(() => undefined);
    await stores.close().catch(() => undefined);
  }
  const rows: string[][] = [];
  for (const [runLocks, label] of [
    [true, 'run locks (default on Postgres): the dead connection frees the session'],
    [false, 'heartbeats only (a lost host; `runLocks: false`)'],
  ] as const) {
    const taken = results.get(runLocks);
    if (!taken || taken.length === 0) continue;
    const claims = taken.map((t) => t.claimMs);
    rows.push([
      label,
      String(taken.length),
      fmtMs(median(claims)),
      fmtMs(Math.max(...claims)),
      fmtMs(median(taken.map((t) => t.doneMs))),
    ]);
  }
  if (rows.length > 0)
    report.tables.push({
      caption: `Two worker processes on the same Postgres (\`Runner.startWorker\`, claim poll 200 ms, heartbeat every ${HEARTBEAT_MS / 1000} s, stale after 1.75 intervals): worker A executes a run that is in the middle of a tool call; A is killed with SIGKILL at a random point of its heartbeat interval; the bench reads the run's record every 10 ms. "Taken over" is SIGKILL → worker B owns the run; "succeeded" is SIGKILL → the resumed run has ended (the idempotent tool ran again, the model answered).`,
      headers: [
        'how the dead owner is noticed',
        'kills',
        'taken over, p50',
        'taken over, max',
        'succeeded, p50',
      ],
      rows,
    });
  for (const runLocks of quick ? [true] : [true, false]) {
    const taken = results.get(runLocks);
    const worst = taken && taken.length > 0 ? Math.max(...taken.map((t) => t.claimMs)) : Number.NaN;
    report.checks.push({
      scenario: report.title,
      label: `recovery after kill -9, ${runLocks ? 'run locks (default)' : 'heartbeats only'}: slowest takeover of ${taken?.length ?? 0}`,
      target: `≤ ${fmtMs(2 * HEARTBEAT_MS)} (2 heartbeat intervals)`,
      measured: fmtMs(worst),
      pass: Number.isFinite(worst) ? worst <= 2 * HEARTBEAT_MS : undefined,
    });
  }
}

async function recoverOnce(
  queue: import('@adk/core').Runner,
  stores: import('@adk/session-sql').SqlStores,
  postgresUrl: string,
  runLocks: boolean,
  tag: string,
): Promise<RecoverySample> {
  const workerArgs = (slow: boolean, name: string): RecoveryWorkerArgs => ({
    postgresUrl,
    slow,
    runLocks,
    instanceId: `${name}-${tag}`,
  });
  const a = await startWorker<{ instanceId: string }>('recovery-worker.ts', workerArgs(true, 'a'), 60_000);
  let b: RunningWorker<{ instanceId: string }> | undefined;
  try {
    const sessionId = `recovery-${tag}`;
    await stores.sessions.createSession({ appName: 'recovery', userId: 'bench', sessionId });
    const run = await queue.startRun({
      userId: 'bench',
      sessionId,
      newMessage: { role: 'user', parts: [{ text: 'Do the step.' }] },
    });
    const read = () => stores.runs.getRun({ appName: 'recovery', runId: run.id });
    const until = async (check: (r: import('@adk/core').RunRecord) => boolean, timeoutMs: number) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const record = await read();
        if (record && check(record)) return record;
        if (Date.now() > deadline)
          throw new Error(`run ${run.id}: timed out; record ${JSON.stringify(record)}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    // A executes the run; its tool call is committed (the step is in flight) before the kill.
    await until((r) => r.status === 'running' && r.owner === a.info.instanceId, 30_000);
    const session = async () =>
      (await stores.sessions.getSession({ appName: 'recovery', userId: 'bench', sessionId }))?.events ?? [];
    for (let i = 0; !(await session()).some((e) => e.content?.parts.some((p) => p.functionCall)); i++) {
      if (i > 3000) throw new Error('the tool call was never committed');
      await new Promise((r) => setTimeout(r, 10));
    }
    b = await startWorker<{ instanceId: string }>('recovery-worker.ts', workerArgs(false, 'b'), 60_000);
    await new Promise((r) => setTimeout(r, Math.random() * HEARTBEAT_MS));
    const killedAt = performance.now();
    a.signal('SIGKILL');
    const bId = b.info.instanceId;
    await until((r) => r.owner === bId, 20_000);
    const claimMs = performance.now() - killedAt;
    const done = await until((r) => r.status !== 'running' && r.status !== 'queued', 20_000);
    const doneMs = performance.now() - killedAt;
    if (done.status !== 'succeeded')
      throw new Error(`the resumed run ended ${done.status}: ${done.error?.message}`);
    return { claimMs, doneMs };
  } finally {
    await a.stop().catch(() => undefined);
    await b?.stop().catch(() => undefined);
  }
}
