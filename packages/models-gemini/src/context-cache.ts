// Gemini explicit context caching (`cachedContents`): the agent's static instruction and its tool
// declarations are stored once as a cached content and referenced by name from every request.
import { type HttpRequest, postJson } from '@adk/core/http';

export interface GeminiContextCacheOptions {
  /** How long a cached content lives (default 3600 s); it is created again when close to expiry. */
  ttlSeconds?: number;
}

interface Entry {
  name: string;
  expiresAt: number;
}

/** Cached contents of one model, keyed by what they hold. */
export class GeminiContextCache {
  private readonly entries = new Map<string, Promise<Entry>>();

  constructor(private readonly options: GeminiContextCacheOptions) {}

  /**
   * Moves the static instruction, tools and tool config of `body` into a cached content (created
   * when missing or about to expire) and references it by name. Gemini refuses a request that both
   * uses a cached content and sets those fields, so the rest of the system instruction becomes the
   * first user turn.
   */
  async apply(
    body: Record<string, unknown>,
    staticText: string,
    target: { url: string; model: string; http: Omit<HttpRequest, 'url' | 'body'> },
  ): Promise<void> {
    const system =
      (body.systemInstruction as { parts?: { text?: string }[] } | undefined)?.parts?.[0]?.text ?? '';
    if (!system.startsWith(staticText)) return;
    const rest = system.slice(staticText.length).replace(/^\n\n/, '');
    const cached: Record<string, unknown> = {
      model: target.model,
      systemInstruction: { parts: [{ text: staticText }] },
      ...(body.tools ? { tools: body.tools } : {}),
      ...(body.toolConfig ? { toolConfig: body.toolConfig } : {}),
    };
    const key = JSON.stringify(cached);
    const ttl = this.options.ttlSeconds ?? 3600;
    let entry = this.entries.get(key);
    const current = await entry?.catch(() => undefined);
    if (!entry || !current || current.expiresAt - Date.now() < 60_000) {
      entry = postJson<{ name: string; expireTime?: string }>({
        ...target.http,
        url: target.url,
        body: { ...cached, ttl: `${ttl}s` },
      }).then(({ value }) => ({
        name: value.name,
        expiresAt: value.expireTime ? Date.parse(value.expireTime) : Date.now() + ttl * 1000,
      }));
      this.entries.set(key, entry);
      entry.catch(() => this.entries.delete(key));
    }
    const { name } = await entry;
    delete body.systemInstruction;
    delete body.tools;
    delete body.toolConfig;
    body.cachedContent = name;
    if (rest) {
      const contents = (body.contents as unknown[] | undefined) ?? [];
      body.contents = [{ role: 'user', parts: [{ text: rest }] }, ...contents];
    }
  }
}
