import { fetch as undiciFetch } from 'undici';
import type { ProtocolVersion, StreamResponse, TaskPushNotificationConfig } from '../protocol/types.js';
import { streamResponseToV03 } from '../protocol/v03.js';
import { assertPublicUrl, checkWebhookUrl, pinnedDispatcher, type SsrfGuardOptions } from './ssrf-guard.js';

/** The header carrying `TaskPushNotificationConfig.token`, so receivers can check the sender. */
export const NOTIFICATION_TOKEN_HEADER = 'X-A2A-Notification-Token';

export interface PushNotificationOptions extends SsrfGuardOptions {
  /** Attempts per notification (first try included). Default 3. */
  attempts?: number;
  /** Base backoff in ms, doubled per retry. Default 250. */
  backoffMs?: number;
  /** Per-attempt timeout in ms. Default 10 000. */
  timeoutMs?: number;
  /** Replaces undici's fetch (it receives the pinned `dispatcher` in its init). */
  fetch?: typeof fetch;
  /** Told about every delivery that failed after all attempts. */
  onDeliveryError?: (error: unknown, config: TaskPushNotificationConfig) => void;
}

export interface PushNotificationSender {
  validateUrl(url: string): Promise<void>;
  send(
    config: TaskPushNotificationConfig & { protocolVersion?: ProtocolVersion },
    item: StreamResponse,
  ): Promise<void>;
}

/**
 * Delivers stream events to webhooks with auth headers, retries with backoff, and the SSRF guard:
 * every attempt checks the URL again, connects only to the addresses that check resolved (pinned in
 * an undici dispatcher), and refuses redirects.
 */
export class HttpPushNotificationSender implements PushNotificationSender {
  readonly #options: PushNotificationOptions;

  constructor(options: PushNotificationOptions = {}) {
    this.#options = options;
  }

  async validateUrl(url: string): Promise<void> {
    await assertPublicUrl(url, this.#options);
  }

  async send(
    config: TaskPushNotificationConfig & { protocolVersion?: ProtocolVersion },
    item: StreamResponse,
  ): Promise<void> {
    const attempts = Math.max(1, this.#options.attempts ?? 3);
    const backoff = this.#options.backoffMs ?? 250;
    const doFetch = (this.#options.fetch ?? undiciFetch) as (
      url: string,
      init: Record<string, unknown>,
    ) => Promise<Response>;
    const timeoutMs = this.#options.timeoutMs ?? 10_000;
    // 0.3 receivers expect the task object itself; 1.0 receivers a StreamResponse.
    const legacy = config.protocolVersion === '0.3';
    const body = JSON.stringify(legacy ? streamResponseToV03(item) : item);
    const headers: Record<string, string> = {
      'Content-Type': legacy ? 'application/json' : 'application/a2a+json',
    };
    if (config.authentication) {
      headers.Authorization =
        `${config.authentication.scheme} ${config.authentication.credentials ?? ''}`.trim();
    }
    if (config.token) headers[NOTIFICATION_TOKEN_HEADER] = config.token;
    let lastError: unknown;
    for (let attempt = 0; attempt < attempts; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, backoff * 2 ** (attempt - 1)));
      let dispatcher: ReturnType<typeof pinnedDispatcher> | undefined;
      try {
        const checked = await checkWebhookUrl(config.url, this.#options);
        dispatcher = pinnedDispatcher(checked, timeoutMs);
        const response = await doFetch(checked.url.href, {
          method: 'POST',
          headers,
          body,
          signal: AbortSignal.timeout(timeoutMs),
          // A redirect could lead anywhere, past the check: it fails the delivery.
          redirect: 'manual',
          dispatcher,
        });
        await response.body?.cancel().catch(() => undefined);
        if (response.ok) return;
        if (response.status >= 300 && response.status < 400) {
          lastError = new Error(
            `Webhook answered a redirect (HTTP ${response.status}); redirects are refused`,
          );
          break;
        }
        lastError = new Error(`Webhook answered HTTP ${response.status}`);
        // 4xx other than 408/429 will not get better by retrying.
        if (response.status < 500 && response.status !== 408 && response.status !== 429) break;
      } catch (error) {
        lastError = error;
        if (
          error instanceof Error &&
          'type' in error &&
          (error as { type?: unknown }).type === 'INVALID_PARAMS'
        )
          break;
      } finally {
        await dispatcher?.close().catch(() => undefined);
      }
    }
    this.#options.onDeliveryError?.(lastError, config);
  }
}
