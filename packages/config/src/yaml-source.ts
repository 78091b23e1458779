import { createRequire } from 'node:module';
import type { Document, LineCounter } from 'yaml';
import { AgentConfigError } from './errors.js';
import { formatYamlPath, type YamlPathSegment } from './names.js';

type YamlModule = typeof import('yaml');
let yamlModule: YamlModule | undefined;
// Loaded on first parse, not when the package is imported (it is most of this package's import time).
function yaml(): YamlModule {
  yamlModule ??= createRequire(import.meta.url)('yaml') as YamlModule;
  return yamlModule;
}

/** One parsed YAML file: its data, and where each value sits (for error messages). */
export class YamlSource {
  readonly file: string;
  readonly data: unknown;
  private readonly document: Document.Parsed;
  private readonly lines: LineCounter;

  constructor(file: string, text: string) {
    this.file = file;
    const { LineCounter: Lines, parseDocument } = yaml();
    this.lines = new Lines();
    this.document = parseDocument(text, { lineCounter: this.lines, prettyErrors: true, uniqueKeys: true });
    const [first] = this.document.errors;
    if (first) {
      const pos = first.linePos?.[0];
      throw new AgentConfigError({
        file,
        yamlPath: '$',
        expected: 'well-formed YAML',
        found: `a syntax error (${first.code}: ${first.message.split('\n')[0]})`,
        ...(pos ? { line: pos.line, column: pos.col } : {}),
      });
    }
    try {
      this.data = this.document.toJS({ maxAliasCount: 100 });
    } catch (error) {
      throw new AgentConfigError(
        { file, yamlPath: '$', expected: 'well-formed YAML', found: (error as Error).message },
        { cause: error },
      );
    }
  }

  /** An error at `path`, located at the deepest node of the path that exists in the file. */
  error(
    path: readonly YamlPathSegment[],
    expected: string,
    found: string,
    cause?: unknown,
  ): AgentConfigError {
    return new AgentConfigError(
      { file: this.file, yamlPath: formatYamlPath(path), expected, found, ...this.position(path) },
      cause === undefined ? {} : { cause },
    );
  }

  position(path: readonly YamlPathSegment[]): { line?: number; column?: number } {
    for (let depth = path.length; depth >= 0; depth--) {
      const node = depth === 0 ? this.document.contents : this.document.getIn(path.slice(0, depth), true);
      if (yaml().isNode(node) && node.range) {
        const pos = this.lines.linePos(node.range[0]);
        return { line: pos.line, column: pos.col };
      }
    }
    return {};
  }
}
