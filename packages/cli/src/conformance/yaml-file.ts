import type { Document, LineCounter } from 'yaml';
import { isMap, isNode, isScalar, isSeq, LineCounter as Lines, parseDocument, stringify } from 'yaml';
import { ConformanceFileError, describeFound } from './errors.js';

export type YamlPath = ReadonlyArray<string | number>;

/** `user_messages[1].content.parts[0]` */
export function formatYamlPath(path: YamlPath): string {
  if (path.length === 0) return '$';
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? segment : `.${segment}`;
  }
  return out;
}

/** A parsed YAML file that can say where each value sits, for errors that name line and path. */
export class YamlFile {
  readonly data: unknown;
  private readonly document: Document.Parsed;
  private readonly lines: LineCounter;

  constructor(
    readonly file: string,
    text: string,
  ) {
    this.lines = new Lines();
    this.document = parseDocument(text, { lineCounter: this.lines, uniqueKeys: true });
    const [first] = this.document.errors;
    if (first) {
      const pos = first.linePos?.[0];
      throw new ConformanceFileError({
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
      throw new ConformanceFileError(
        { file, yamlPath: '$', expected: 'well-formed YAML', found: (error as Error).message },
        { cause: error },
      );
    }
  }

  /** An error at `path`, placed at the deepest part of the path the file has. */
  error(path: YamlPath, expected: string, found: unknown, foundText?: string): ConformanceFileError {
    return new ConformanceFileError({
      file: this.file,
      yamlPath: formatYamlPath(path),
      expected,
      found: foundText ?? describeFound(found),
      ...this.position(path),
    });
  }

  private position(path: YamlPath): { line?: number; column?: number } {
    // A key that should not be there is pointed at itself, not at its value.
    const parent = path.length === 0 ? undefined : this.document.getIn(path.slice(0, -1), true);
    if (isMap(parent)) {
      const pair = parent.items.find((item) => isScalar(item.key) && item.key.value === path.at(-1));
      if (pair && isNode(pair.key) && pair.key.range) {
        const pos = this.lines.linePos(pair.key.range[0]);
        return { line: pos.line, column: pos.col };
      }
    }
    for (let depth = path.length; depth >= 0; depth--) {
      const node = depth === 0 ? this.document.contents : this.document.getIn(path.slice(0, depth), true);
      if (isNode(node) && node.range && (isMap(node) || isSeq(node) || isScalar(node))) {
        const pos = this.lines.linePos(node.range[0]);
        return { line: pos.line, column: pos.col };
      }
    }
    return {};
  }
}

/** YAML text in the layout ADK writes: two-space indent, keys in the order given, block strings. */
export function toYaml(value: unknown): string {
  const text = stringify(value, {
    indent: 2,
    lineWidth: 0,
    blockQuote: 'literal',
    aliasDuplicateObjects: false,
  });
  // An empty line inside a block string is written as its indentation; as an empty line it reads
  // the same, and files keep no trailing whitespace.
  return text.replace(/^[ ]+$/gm, '');
}
