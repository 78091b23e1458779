import { ConfigError, type Content, type Event, type Part, type Plugin, type RunHookArgs } from '@adk/core';

export interface SavedFileInfo {
  filename: string;
  version: number;
  mimeType: string;
  appName: string;
  userId: string;
  sessionId: string;
}

export interface SaveFilesAsArtifactsPluginOptions {
  /** Default `'save_files_as_artifacts'`. */
  name?: string;
  /** Which inline parts to save (default: all). */
  shouldSave?: (part: Part) => boolean;
  /** The artifact name (default: the part's display name, else `upload_<invocation>_<index><ext>`). */
  filename?: (info: { part: Part; index: number; invocationId: string }) => string;
  /**
   * A URI the model can fetch the saved file from (e.g. `gs://…` when artifacts live in a bucket
   * the model can read). When given, a `fileData` part with it follows the text reference.
   */
  fileUri?: (info: SavedFileInfo) => string | undefined;
}

const EXTENSIONS: Record<string, string> = {
  'application/pdf': '.pdf',
  'application/json': '.json',
  'text/plain': '.txt',
  'text/csv': '.csv',
  'text/markdown': '.md',
  'text/html': '.html',
  'image/png': '.png',
  'image/jpeg': '.jpg',
  'image/gif': '.gif',
  'image/webp': '.webp',
  'audio/mpeg': '.mp3',
  'audio/wav': '.wav',
  'video/mp4': '.mp4',
};

/** A display name made safe as an artifact name (no path separators or control characters). */
function safeName(name: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we remove
  const cleaned = name.replace(/[/\\\u0000-\u001f\u007f]/g, '_').replace(/^user:/, 'user_');
  return cleaned === '' || cleaned === '.' || cleaned === '..' ? 'upload' : cleaned.slice(0, 200);
}

function defaultFilename({ part, index, invocationId }: { part: Part; index: number; invocationId: string }) {
  const data = part.inlineData;
  if (data?.displayName) return safeName(data.displayName);
  return `upload_${invocationId}_${index}${EXTENSIONS[data?.mimeType ?? ''] ?? ''}`;
}

/**
 * Saves the inline files of each user message as artifacts of the session and replaces them in the
 * message by a text reference (`[Uploaded Artifact: "name" …]`), so the session stores the bytes
 * once and the model is not sent them on every turn. The saves are recorded in the user event's
 * `artifactDelta`.
 */
export class SaveFilesAsArtifactsPlugin implements Plugin {
  readonly name: string;
  private readonly options: SaveFilesAsArtifactsPluginOptions;
  /** invocation id → artifact delta for that invocation's user event */
  private readonly pending = new Map<string, Record<string, number>>();

  constructor(options: SaveFilesAsArtifactsPluginOptions = {}) {
    this.name = options.name ?? 'save_files_as_artifacts';
    this.options = options;
  }

  async onUserMessage({
    context,
    message,
  }: RunHookArgs & { message: Content }): Promise<Content | undefined> {
    const shouldSave = this.options.shouldSave ?? (() => true);
    if (!message.parts.some((p) => p.inlineData && shouldSave(p))) return undefined;
    const service = context.artifactService;
    if (!service) {
      throw new ConfigError(
        'SaveFilesAsArtifactsPlugin needs an artifactService on the Runner to save uploaded files',
      );
    }
    const delta: Record<string, number> = {};
    const parts: Part[] = [];
    for (const [index, part] of message.parts.entries()) {
      const data = part.inlineData;
      if (!data || !shouldSave(part)) {
        parts.push(part);
        continue;
      }
      const filename = (this.options.filename ?? defaultFilename)({
        part,
        index,
        invocationId: context.invocationId,
      });
      const version = await service.saveArtifact({
        appName: context.appName,
        userId: context.userId,
        sessionId: context.session.id,
        filename,
        artifact: part,
      });
      delta[filename] = version;
      parts.push({ text: `[Uploaded Artifact: "${filename}" (${data.mimeType}, version ${version})]` });
      const uri = this.options.fileUri?.({
        filename,
        version,
        mimeType: data.mimeType,
        appName: context.appName,
        userId: context.userId,
        sessionId: context.session.id,
      });
      if (uri) parts.push({ fileData: { mimeType: data.mimeType, fileUri: uri, displayName: filename } });
    }
    this.pending.set(context.invocationId, delta);
    return { ...message, parts };
  }

  /** Records the saves in the user event, so the session's artifact history shows them. */
  onEvent({ context, event }: RunHookArgs & { event: Event }): Event | undefined {
    if (event.author !== 'user') return undefined;
    const delta = this.pending.get(context.invocationId);
    if (!delta) return undefined;
    this.pending.delete(context.invocationId);
    return {
      ...event,
      actions: { ...event.actions, artifactDelta: { ...event.actions.artifactDelta, ...delta } },
    };
  }
}
