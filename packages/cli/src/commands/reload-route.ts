import type { AdkServerOptions } from '@adk/server';
import type { AppLoader } from '../loader/app-loader.js';

/** The shape of `GET /dev/reload` (documented in the README). */
export interface ReloadStatus {
  /** Whether the server watches the agents folder (`adk web`, unless `--no-reload`). */
  enabled: boolean;
  /** Each app loaded (or that failed to load) so far: the version served and the latest error. */
  apps: Record<
    string,
    {
      revision: number;
      loadedAt?: string;
      error?: { file: string; message: string; at: string; keptPrevious: boolean };
    }
  >;
}

/**
 * `GET /dev/reload`: what the dev UI polls to show a banner for an app whose files fail to load and
 * to refresh an app's graph and info once a new version is served. Not part of ADK's API (ADK has
 * no hot reload), hence under `/dev/`. It sits behind the server's token like every API route.
 */
export function reloadRoutes(loader: AppLoader, enabled: boolean): NonNullable<AdkServerOptions['routes']> {
  return [
    (app) => {
      app.get('/dev/reload', (c) => {
        const apps: ReloadStatus['apps'] = {};
        for (const [name, state] of Object.entries(loader.reloadStates())) {
          apps[name] = {
            revision: state.revision,
            ...(state.loadedAt ? { loadedAt: state.loadedAt } : {}),
            ...(state.error
              ? {
                  error: {
                    file: state.error.file,
                    message: state.error.message,
                    at: state.error.at,
                    keptPrevious: state.error.keptPrevious,
                  },
                }
              : {}),
          };
        }
        const status: ReloadStatus = { enabled, apps };
        c.header('cache-control', 'no-store');
        return c.json(status);
      });
    },
  ];
}
