import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
// The browser suites' Chromium location and CI rule, shared so that the bench decides the same way.
import { browserSuiteSkip, CHROMIUM } from '../../../../packages/dev-ui/src/__fixtures__/chromium.js';
import { summarizeError } from '../harness/child.js';
import { fmtBytes, fmtMs } from '../harness/format.js';
import { median } from '../harness/stats.js';
import { newReport, type Scenario, type ScenarioReport } from '../harness/types.js';

const GZIP_LEVEL = 9;
const JS_GZIP_TARGET_BYTES = 150 * 1024;
const INTERACTIVE_TARGET_MS = 300;
const WARM_RELOADS = 5;
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];

interface BundleSizes {
  files: { name: string; kind: 'js' | 'css'; raw: number; gzip: number }[];
  jsRaw: number;
  jsGzip: number;
  cssRaw: number;
  cssGzip: number;
}

interface LoadTiming {
  /** Navigation start until the message box is enabled (the app list is loaded and the app picked). */
  enabledMs: number;
  /** The page's own `adk:interactive` mark (set once the app list request settles). */
  markMs: number;
  /** DOMContentLoaded ended (the module script ran). */
  domReadyMs: number;
  /** Duration of the page's `GET /list-apps` (request start to response end, as the browser saw it). */
  listAppsMs: number;
}

export const devUiScenario: Scenario = {
  id: 'dev-ui',
  title: '10. Web UI (@adk/dev-ui)',
  async run(config) {
    const report = newReport(this.id, this.title);
    await measureBundle(report);
    await measureInteractive(report, config.quick, config.log);
    return report;
  },
};

function uiFolder(): string {
  const manifest = fileURLToPath(import.meta.resolve('@adk/dev-ui/package.json'));
  return join(dirname(manifest), 'dist', 'ui');
}

async function readBundle(root: string): Promise<BundleSizes> {
  const assets = join(root, 'assets');
  const sizes: BundleSizes = { files: [], jsRaw: 0, jsGzip: 0, cssRaw: 0, cssGzip: 0 };
  for (const name of (await readdir(assets)).sort()) {
    const kind = name.endsWith('.js') ? 'js' : name.endsWith('.css') ? 'css' : undefined;
    if (!kind) continue;
    const body = await readFile(join(assets, name));
    const raw = body.byteLength;
    const gzip = gzipSync(body, { level: GZIP_LEVEL }).byteLength;
    sizes.files.push({ name, kind, raw, gzip });
    if (kind === 'js') {
      sizes.jsRaw += raw;
      sizes.jsGzip += gzip;
    } else {
      sizes.cssRaw += raw;
      sizes.cssGzip += gzip;
    }
  }
  return sizes;
}

async function measureBundle(report: ScenarioReport): Promise<void> {
  let sizes: BundleSizes | undefined;
  try {
    const root = uiFolder();
    if (!existsSync(join(root, 'index.html'))) {
      report.skipped.push(
        `bundle size: @adk/dev-ui is not built (no dist/ui/index.html); run its build first`,
      );
    } else {
      sizes = await readBundle(root);
    }
  } catch (error) {
    report.skipped.push(`bundle size: @adk/dev-ui cannot be found: ${summarizeError(error)}`);
  }
  if (sizes) {
    report.tables.push({
      caption: `The built bundle in @adk/dev-ui's dist/ui/assets (what the package ships and the page loads; index.html aside). Gzipped with node:zlib at level ${GZIP_LEVEL}.`,
      headers: ['asset', 'raw', 'gzipped'],
      rows: [
        ...sizes.files.map((file) => [`\`${file.name}\``, fmtBytes(file.raw), fmtBytes(file.gzip)]),
        ['all JavaScript', fmtBytes(sizes.jsRaw), fmtBytes(sizes.jsGzip)],
        ['all CSS', fmtBytes(sizes.cssRaw), fmtBytes(sizes.cssGzip)],
      ],
    });
  }
  report.checks.push({
    scenario: report.title,
    label: 'web UI JavaScript, gzipped',
    target: `< ${fmtBytes(JS_GZIP_TARGET_BYTES)}`,
    measured: sizes ? fmtBytes(sizes.jsGzip) : 'n/a',
    pass: sizes ? sizes.jsGzip < JS_GZIP_TARGET_BYTES : undefined,
  });
}

async function measureInteractive(
  report: ScenarioReport,
  quick: boolean,
  log: (message: string) => void,
): Promise<void> {
  let timings: Awaited<ReturnType<typeof timeInteractive>>;
  // In CI (CI=true) a missing browser fails the run instead of being skipped.
  const skipReason = browserSuiteSkip('time to interactive', { warn: () => {} });
  if (skipReason === undefined) timings = await timeInteractive(report, quick, log);
  else report.skipped.push(`time to interactive: ${skipReason}`);
  if (timings) {
    const row = (label: string, loads: LoadTiming[]): string[] => [
      label,
      ...(['enabledMs', 'markMs', 'domReadyMs', 'listAppsMs'] as const).map((key) =>
        fmtMs(median(loads.map((t) => t[key]))),
      ),
    ];
    const rows = [row('cold (first load, fresh browser context)', [timings.cold])];
    if (timings.warm.length > 0)
      rows.push(row(`warm (median of ${timings.warm.length} reloads)`, timings.warm));
    report.tables.push({
      caption: `Headless Chromium opens /dev-ui/ on @adk/server (in memory, one scripted app, loopback) in this process. "Interactive" is from navigation start until the message box is enabled, which needs the app list loaded and the app picked (seen by a MutationObserver in the page); the page's own \`adk:interactive\` mark (set when the app list request settles) is beside it, then when DOMContentLoaded ended (the page's module script has run) and how long the page's app list request took, both from the browser's Navigation and Resource Timing. The machine's load shows in the cold figure most.${quick ? ' Quick mode: the cold load only.' : ''}`,
      headers: [
        'load',
        'interactive (message box enabled)',
        '`adk:interactive` mark',
        'DOMContentLoaded at',
        'GET /list-apps took',
      ],
      rows,
    });
  }
  const warmMedian =
    timings && timings.warm.length > 0 ? median(timings.warm.map((t) => t.enabledMs)) : Number.NaN;
  for (const [label, value] of [
    ['cold: first load in a fresh browser context', timings ? timings.cold.enabledMs : Number.NaN],
    [`warm: median of ${WARM_RELOADS} reloads`, warmMedian],
  ] as const) {
    report.checks.push({
      scenario: report.title,
      label: `web UI time to interactive, ${label}`,
      target: `< ${INTERACTIVE_TARGET_MS} ms`,
      measured: fmtMs(value),
      pass: Number.isFinite(value) ? value < INTERACTIVE_TARGET_MS : undefined,
    });
  }
}

/**
 * Runs in the page before its own scripts: notes when the message box first exists and is enabled.
 * A string, so the bench's types need no DOM library.
 */
const WATCH_COMPOSER = `(() => {
  const check = () => {
    const box = document.getElementById('message');
    if (box && !box.disabled) { window.__benchEnabledAt = performance.now(); return true; }
    return false;
  };
  const observer = new MutationObserver(() => { if (check()) observer.disconnect(); });
  observer.observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['disabled'] });
})();`;
const LOADED = `window.__benchEnabledAt !== undefined && performance.getEntriesByName('adk:interactive').length > 0`;
const READ_TIMING = `(() => {
  const listApps = performance.getEntriesByType('resource').find((r) => new URL(r.name).pathname.endsWith('/list-apps'));
  return {
    enabledMs: window.__benchEnabledAt,
    markMs: performance.getEntriesByName('adk:interactive')[0]?.startTime ?? Number.NaN,
    domReadyMs: performance.getEntriesByType('navigation')[0]?.domContentLoadedEventEnd ?? Number.NaN,
    listAppsMs: listApps ? listApps.responseEnd - listApps.startTime : Number.NaN,
  };
})()`;

async function timeInteractive(
  report: ScenarioReport,
  quick: boolean,
  log: (message: string) => void,
): Promise<{ cold: LoadTiming; warm: LoadTiming[] } | undefined> {
  let modules: [typeof import('@adk/server'), typeof import('@adk/dev-ui'), typeof import('playwright-core')];
  try {
    modules = await Promise.all([import('@adk/server'), import('@adk/dev-ui'), import('playwright-core')]);
  } catch (error) {
    report.skipped.push(`time to interactive: a package cannot be loaded: ${summarizeError(error)}`);
    return undefined;
  }
  const [{ createAdkServer, listenAdkServer }, { devUi }, { chromium }] = modules;
  const { InMemorySessionService, LlmAgent } = await import('@adk/core');
  const { ScriptedModel } = await import('@adk/core/testing');
  const server = await createAdkServer({
    apps: {
      bench: new LlmAgent({
        name: 'bench',
        model: new ScriptedModel({ respond: () => 'ok' }),
        instruction: 'Answer briefly.',
      }),
    },
    sessionService: new InMemorySessionService(),
    ui: devUi(),
    a2a: false,
    logger: { info() {}, warn() {}, error: (line: string) => console.error(line) },
  });
  const listening = await listenAdkServer(server, { port: 0 });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addInitScript({ content: WATCH_COMPOSER });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const url = `${listening.url}/dev-ui/`;
    const load = async (navigate: () => Promise<unknown>): Promise<LoadTiming> => {
      await navigate();
      await page.waitForFunction(LOADED);
      return page.evaluate<LoadTiming>(READ_TIMING);
    };
    log(`  cold load of ${url}${quick ? '' : `, then ${WARM_RELOADS} reloads`}`);
    const cold = await load(() => page.goto(url));
    const warm: LoadTiming[] = [];
    if (!quick) for (let i = 0; i < WARM_RELOADS; i++) warm.push(await load(() => page.reload()));
    else report.skipped.push('time to interactive, warm reloads: the quick mode times the cold load only');
    await context.close();
    return { cold, warm };
  } catch (error) {
    report.notes.push(`**Error** measuring time to interactive: ${summarizeError(error)}`);
    return undefined;
  } finally {
    await browser.close();
    await listening.close();
  }
}
