import { BaseTool, type FunctionDeclaration, type ToolContext } from '@adk/core';
import type { BaseEnvironment, ExecResult, WorkspaceFile } from './base-environment.js';

/** How one language runs: the program reads the code on stdin. */
export interface CodeLanguage {
  argv: readonly string[];
}

export const defaultLanguages: Readonly<Record<string, CodeLanguage>> = Object.freeze({
  python: { argv: ['python3', '-'] },
  shell: { argv: ['sh', '-s'] },
});

export interface CodeExecutionToolOptions {
  environment: BaseEnvironment;
  /** Tool name (default `execute_code`). */
  name?: string;
  /** Languages offered to the model (default python and shell). */
  languages?: Record<string, CodeLanguage>;
  /** Save files the code creates or changes in the workspace as artifacts (default true). */
  saveArtifacts?: boolean;
  /** Files larger than this are not saved as artifacts (default 10 MiB). */
  maxArtifactBytes?: number;
  /** At most this many files are saved per call (default 20). */
  maxArtifacts?: number;
  /** Per-call timeout (default: the environment's). */
  timeoutMs?: number;
}

const MIME_TYPES: Record<string, string> = {
  txt: 'text/plain',
  md: 'text/markdown',
  csv: 'text/csv',
  json: 'application/json',
  html: 'text/html',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  pdf: 'application/pdf',
  py: 'text/x-python',
};

/** The MIME type of a workspace file, by its extension. */
export function mimeTypeOf(path: string): string {
  const ext = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
  return MIME_TYPES[ext] ?? 'application/octet-stream';
}

/**
 * Lets a model without a built-in code executor run code: the code goes to the environment (never
 * this process) on the language's stdin, and the response carries the exit code, the output and
 * why the environment stopped it, if it did. Files the code writes in the workspace are saved as
 * artifacts of the session (their names and versions are in the response).
 */
export class CodeExecutionTool extends BaseTool {
  private readonly languages: Record<string, CodeLanguage>;

  constructor(private readonly options: CodeExecutionToolOptions) {
    super({
      name: options.name ?? 'execute_code',
      description:
        'Runs code in an isolated sandbox and returns its exit code, stdout and stderr. The working directory is /workspace; files written there are kept as artifacts. There is no network access.',
    });
    this.languages = options.languages ?? { ...defaultLanguages };
  }

  declaration(): FunctionDeclaration {
    return {
      name: this.name,
      description: this.description,
      parameters: {
        type: 'object',
        properties: {
          language: {
            type: 'string',
            enum: Object.keys(this.languages),
            description: 'The language of the code.',
          },
          code: { type: 'string', description: 'The complete program to run.' },
        },
        required: ['language', 'code'],
      },
    };
  }

  async run(args: Record<string, unknown>, context: ToolContext): Promise<unknown> {
    const language = typeof args.language === 'string' ? args.language : '';
    const code = args.code;
    const spec = this.languages[language];
    if (!spec) {
      return {
        error: `Unknown language ${JSON.stringify(language)}; use one of: ${Object.keys(this.languages).join(', ')}`,
      };
    }
    if (typeof code !== 'string') return { error: 'code must be a string' };
    const env = this.options.environment;
    const before = await snapshot(env);
    const result = await env.exec(spec.argv, {
      stdin: code,
      signal: context.signal,
      ...(this.options.timeoutMs === undefined ? {} : { timeoutMs: this.options.timeoutMs }),
    });
    const artifacts = this.options.saveArtifacts === false ? [] : await this.saveChanged(before, context);
    return { ...execResponse(result), ...(artifacts.length > 0 ? { artifacts } : {}) };
  }

  private async saveChanged(before: Map<string, WorkspaceFile>, context: ToolContext) {
    const env = this.options.environment;
    const maxBytes = this.options.maxArtifactBytes ?? 10 * 1024 * 1024;
    const maxCount = this.options.maxArtifacts ?? 20;
    const saved: { filename: string; version: number }[] = [];
    for (const file of await env.listFiles()) {
      const old = before.get(file.path);
      if (old && old.mtimeMs === file.mtimeMs && old.size === file.size) continue;
      if (file.size > maxBytes || saved.length >= maxCount) continue;
      const bytes = await env.readFile(file.path);
      const version = await context.saveArtifact(file.path, {
        inlineData: { mimeType: mimeTypeOf(file.path), data: Buffer.from(bytes).toString('base64') },
      });
      saved.push({ filename: file.path, version });
    }
    return saved;
  }
}

async function snapshot(env: BaseEnvironment): Promise<Map<string, WorkspaceFile>> {
  return new Map((await env.listFiles()).map((file) => [file.path, file]));
}

/** An exec result as a function response (snake_case keys, as ADK's responses are). */
export function execResponse(result: ExecResult): Record<string, unknown> {
  return {
    exit_code: result.exitCode,
    stdout: result.stdout,
    stderr: result.stderr,
    ...(result.signal ? { signal: result.signal } : {}),
    ...(result.killed ? { killed: result.killed } : {}),
    ...(result.outputTruncated ? { output_truncated: true } : {}),
  };
}
