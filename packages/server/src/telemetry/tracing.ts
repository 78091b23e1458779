import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { AdkServerLogger } from '../server/logger.js';
import { GenAiMetricsProcessor } from './gen-ai-metrics.js';
import { LightTracerProvider } from './light-tracer.js';
import { InMemorySpanStore } from './span-store.js';

/** The process's span store: one per process, since the tracer provider is process-wide. */
let store: InMemorySpanStore | undefined;
let setup: Promise<TracingState> | undefined;

export interface TracingState {
  store: InMemorySpanStore;
  /** Whether the store receives spans (false when another provider was registered first). */
  collecting: boolean;
  /** Whether spans are also exported over OTLP (`@opentelemetry/sdk-node`). */
  exporting: boolean;
  flush(): Promise<void>;
}

/** The in-process span store behind the `/debug/trace` routes (add it to your own provider if you register one). */
export function adkSpanStore(): InMemorySpanStore {
  store ??= new InMemorySpanStore();
  return store;
}

function otlpConfigured(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/**
 * Registers a tracer provider once per process so core's spans are recorded: with
 * `@opentelemetry/sdk-node` (spans exported over OTLP too) when `OTEL_EXPORTER_OTLP_ENDPOINT` is
 * set, else a light provider of our own that only feeds the in-process store and the GenAI metrics.
 */
export function setupTracing(logger: AdkServerLogger): Promise<TracingState> {
  setup ??= start(logger);
  return setup;
}

async function start(logger: AdkServerLogger): Promise<TracingState> {
  const spans = adkSpanStore();
  const api = await import('@opentelemetry/api');
  const metrics = new GenAiMetricsProcessor(api);
  if (otlpConfigured(process.env)) {
    const sdk = await startNodeSdk([spans, metrics], logger);
    if (sdk) return { store: spans, collecting: true, exporting: true, flush: sdk.flush };
  }
  // Nothing is exported: a light provider feeds the store and the metrics (see light-tracer.ts).
  const provider = new LightTracerProvider(api, [spans, metrics]);
  const registered = api.trace.setGlobalTracerProvider(provider);
  if (!registered) {
    logger.warn(
      'A tracer provider was already registered: add adkSpanStore() to its span processors to fill the /debug/trace routes.',
    );
  }
  return {
    store: spans,
    collecting: registered,
    exporting: false,
    flush: () => provider.forceFlush(),
  };
}

interface SdkHandle {
  flush(): Promise<void>;
}

async function startNodeSdk(ours: SpanProcessor[], logger: AdkServerLogger): Promise<SdkHandle | undefined> {
  let sdkModule: typeof import('@opentelemetry/sdk-node');
  try {
    sdkModule = await import('@opentelemetry/sdk-node');
  } catch {
    logger.warn(
      'OTEL_EXPORTER_OTLP_ENDPOINT is set but @opentelemetry/sdk-node is not installed: spans stay in process.',
    );
    return undefined;
  }
  // The exporters the SDK would build from OTEL_* variables, next to our store (passing
  // spanProcessors replaces the SDK's own choice, so both are given).
  let fromEnv: unknown[] = [];
  try {
    // An internal module of sdk-node (the package has no `exports` map, so it resolves).
    const internal = '@opentelemetry/sdk-node/build/src/utils.js';
    const utils = (await import(internal)) as {
      getSpanProcessorsFromEnv?: () => unknown[];
      default?: { getSpanProcessorsFromEnv?: () => unknown[] };
    };
    const get = utils.getSpanProcessorsFromEnv ?? utils.default?.getSpanProcessorsFromEnv;
    fromEnv = get ? get() : [];
  } catch (error) {
    logger.warn(`Could not build the OTLP exporter from the environment: ${(error as Error).message}`);
  }
  const sdk = new sdkModule.NodeSDK({
    serviceName: process.env.OTEL_SERVICE_NAME ?? 'adk-server',
    spanProcessors: [...ours, ...fromEnv] as never,
  });
  sdk.start();
  return {
    flush: async () => {
      for (const p of fromEnv as { forceFlush?: () => Promise<void> }[])
        await p.forceFlush?.().catch(() => undefined);
      // The SDK's meter provider (OTLP metrics), when it registered one.
      const meters = (await import('@opentelemetry/api')).metrics.getMeterProvider() as {
        forceFlush?: () => Promise<void>;
      };
      await meters.forceFlush?.().catch(() => undefined);
    },
  };
}
