import { type AgentCardInput, agentCardToV03, buildAgentCard } from '../protocol/agent-card.js';
import { A2aError, isA2aError } from '../protocol/errors.js';
import type { AgentCard, ProtocolVersion } from '../protocol/types.js';
import type { TaskStore } from '../stores/task-store.js';
import type { AgentExecutor, Caller } from './agent-executor.js';
import type { AuthOptions } from './auth.js';
import { A2A_VERSION_HEADER, jsonResponse, readBodyText, requestedVersion } from './http-utils.js';
import { handleJsonRpc } from './jsonrpc-binding.js';
import { requestUrlOf } from './known-bodies.js';
import { HttpPushNotificationSender, type PushNotificationOptions } from './push-sender.js';
import { A2aRequestHandler } from './request-handler.js';
import { handleRest, matchRestRoute, restError } from './rest-binding.js';
import type { TaskEventBus } from './task-event-bus.js';

export interface A2aServerOptions {
  executor: AgentExecutor;
  card: AgentCardInput;
  /** Public base URL advertised in the card; derived from each request when absent. */
  url?: string;
  /** Path prefix the server is mounted under (e.g. `/a2a`). Default ''. */
  basePath?: string;
  store?: TaskStore;
  /**
   * Carries live task updates between server processes sharing `store` (e.g. `PostgresTaskEventBus`),
   * so streaming and resubscription work on any instance. The caller closes it.
   */
  eventBus?: TaskEventBus;
  /** Streaming (SSE) support. Default true. */
  streaming?: boolean;
  /** Push notifications; `true` for defaults. Default false (not advertised). */
  pushNotifications?: boolean | PushNotificationOptions;
  /** An extended card for authenticated callers; enables `capabilities.extendedAgentCard`. */
  extendedCard?: AgentCardInput | ((caller: Caller | undefined) => AgentCardInput | Promise<AgentCardInput>);
  auth?: AuthOptions;
  /** Largest accepted request body, bytes. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Agent card `Cache-Control: max-age`, seconds. Default 300. */
  cardMaxAge?: number;
  /** Told about unexpected (non-protocol) errors; the caller gets -32603 / 500. */
  onError?: (error: unknown) => void;
}

export interface A2aServer {
  /** The Web-standard handler: mount it in any Fetch-API runtime. */
  fetch(request: Request): Promise<Response>;
  readonly handler: A2aRequestHandler;
  /** The 1.0 card as served at `baseUrl`. */
  card(baseUrl: string): AgentCard;
  close(): Promise<void>;
}

const CARD_PATHS = ['/.well-known/agent-card.json', '/.well-known/agent.json'];

async function etagOf(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return `"${Buffer.from(digest).toString('base64url').slice(0, 27)}"`;
}

/** Builds an A2A server: JSON-RPC and REST bindings, 1.0 and 0.3, agent card, push, auth. */
export function createA2aServer(options: A2aServerOptions): A2aServer {
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');
  const maxBody = options.maxBodyBytes ?? 1024 * 1024;
  const streaming = options.streaming !== false;
  const pushOptions =
    options.pushNotifications === true
      ? {}
      : options.pushNotifications === false
        ? undefined
        : options.pushNotifications;
  const pushSender = pushOptions ? new HttpPushNotificationSender(pushOptions) : undefined;
  const flags = {
    streaming,
    pushNotifications: pushSender !== undefined,
    extendedAgentCard: !!options.extendedCard,
  };
  const onError = options.onError ?? (() => undefined);
  let currentBase = options.url ?? 'http://localhost';

  const cardFor = (baseUrl: string) => buildAgentCard(options.card, baseUrl, flags);
  // The handler reads the card several times per request (capabilities, input modes): build it
  // once per base URL rather than each time.
  let handlerCard: { baseUrl: string; card: AgentCard } | undefined;
  const currentCard = (): AgentCard => {
    if (handlerCard?.baseUrl !== currentBase)
      handlerCard = { baseUrl: currentBase, card: cardFor(currentBase) };
    return handlerCard.card;
  };
  const extended = options.extendedCard;
  const handler = new A2aRequestHandler({
    executor: options.executor,
    card: currentCard,
    ...(extended
      ? {
          extendedCard: async (caller: Caller | undefined) =>
            buildAgentCard(
              typeof extended === 'function' ? await extended(caller) : extended,
              currentBase,
              flags,
            ),
        }
      : {}),
    ...(options.store ? { store: options.store } : {}),
    ...(options.eventBus ? { eventBus: options.eventBus } : {}),
    ...(pushSender ? { pushSender } : {}),
  });

  async function serveCard(request: Request, url: URL, baseUrl: string): Promise<Response> {
    const version = requestedVersion(request, url);
    const card = cardFor(baseUrl);
    const body =
      version === '1.0'
        ? card
        : version === '0.3'
          ? agentCardToV03(card)
          : agentCardToV03(card, { hybrid: true });
    const text = JSON.stringify(body);
    const etag = await etagOf(text);
    const headers = {
      'Content-Type': 'application/json',
      ETag: etag,
      'Cache-Control': `public, max-age=${options.cardMaxAge ?? 300}`,
      Vary: A2A_VERSION_HEADER,
      'Access-Control-Allow-Origin': '*',
    };
    const inm = request.headers.get('if-none-match');
    if (inm?.split(',').some((t) => t.trim() === etag || t.trim() === '*')) {
      return new Response(null, { status: 304, headers });
    }
    return new Response(request.method === 'HEAD' ? null : text, { status: 200, headers });
  }

  async function handle(request: Request): Promise<Response> {
    const url = requestUrlOf(request);
    let path = url.pathname;
    if (basePath) {
      if (path !== basePath && !path.startsWith(`${basePath}/`)) return notFound();
      path = path.slice(basePath.length) || '/';
    }
    const baseUrl = options.url ?? `${url.origin}${basePath}`;
    currentBase = baseUrl;

    if ((request.method === 'GET' || request.method === 'HEAD') && CARD_PATHS.includes(path)) {
      return serveCard(request, url, baseUrl);
    }

    const headerVersion = requestedVersion(request, url);
    const isRpc = request.method === 'POST' && (path === '/' || path === '');
    // Without a header, 0.3 REST paths live under /v1; everything else is 1.0 (see README).
    let restVersion: ProtocolVersion;
    if (headerVersion === undefined) restVersion = path.startsWith('/v1/') ? '0.3' : '1.0';
    else if (headerVersion === '1.0' || headerVersion === '0.3') restVersion = headerVersion;
    else if (!isRpc) {
      return restError(
        new A2aError('VERSION_NOT_SUPPORTED', `A2A protocol version ${headerVersion} is not supported`, {
          metadata: { requestedVersion: headerVersion, supportedVersions: '1.0,0.3' },
        }),
        '1.0',
      );
    } else restVersion = '1.0';

    const route = isRpc ? undefined : matchRestRoute(request.method, path, restVersion);
    if (!isRpc && !route) return notFound();

    let caller: Caller | undefined;
    if (options.auth) {
      try {
        caller = (await options.auth.hook(request)) ?? undefined;
      } catch (error) {
        const e = isA2aError(error) ? error : new A2aError('UNAUTHENTICATED', undefined, { cause: error });
        return authFailure(e, isRpc, restVersion);
      }
      if (!caller) return authFailure(new A2aError('UNAUTHENTICATED'), isRpc, restVersion);
    }
    const extensions = (request.headers.get('a2a-extensions') ?? '')
      .split(',')
      .map((e) => e.trim())
      .filter((e) => e !== '');
    const ctx = { ...(caller ? { caller } : {}), ...(extensions.length > 0 ? { extensions } : {}) };

    let bodyText = '';
    if (request.method === 'POST' || request.method === 'PUT') {
      try {
        bodyText = await readBodyText(request, maxBody);
      } catch (error) {
        const e = isA2aError(error)
          ? error
          : new A2aError('INVALID_REQUEST', 'Unreadable request body', { cause: error });
        return isRpc
          ? jsonResponse(
              { jsonrpc: '2.0', id: null, error: { code: e.rpcCode, message: e.message } },
              e.httpStatus,
            )
          : restError(e, restVersion);
      }
    }
    if (isRpc) return handleJsonRpc(handler, bodyText, headerVersion, ctx, onError);
    return handleRest(handler, route!, url, bodyText, restVersion, ctx, onError);
  }

  function authFailure(error: A2aError, isRpc: boolean, version: ProtocolVersion): Response {
    const headers: Record<string, string> = {};
    if (error.httpStatus === 401 && options.auth?.challenge)
      headers['WWW-Authenticate'] = options.auth.challenge;
    if (isRpc) {
      return jsonResponse(
        { jsonrpc: '2.0', id: null, error: { code: error.rpcCode, message: error.message } },
        error.httpStatus,
        headers,
      );
    }
    const response = restError(error, version);
    for (const [k, v] of Object.entries(headers)) response.headers.set(k, v);
    return response;
  }

  return {
    async fetch(request: Request): Promise<Response> {
      try {
        return await handle(request);
      } catch (error) {
        // Last line of defence: the server keeps serving whatever one request did.
        onError(error);
        return jsonResponse({ error: { code: 500, status: 'INTERNAL', message: 'Internal error' } }, 500);
      }
    },
    handler,
    card: cardFor,
    close: () => handler.close(),
  };
}

function notFound(): Response {
  return jsonResponse({ error: { code: 404, status: 'NOT_FOUND', message: 'Not found' } }, 404);
}
