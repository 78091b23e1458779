import { existsSync, realpathSync } from 'node:fs';
import { basename, join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describeError } from '@adk/core';
import { describeValue } from './errors.js';
import type { YamlPathSegment } from './names.js';
import { registeredReference } from './references.js';
import type { ArgumentConfig } from './types.js';
import type { YamlSource } from './yaml-source.js';

/** Imports one module file (the CLI passes one that also loads TypeScript on Node 22). */
export type ModuleImporter = (file: string) => Promise<Record<string, unknown>>;

const MODULE_EXTENSIONS = ['.ts', '.mts', '.js', '.mjs'];
const SEGMENT = /^[A-Za-z_$][\w$-]*$/;

export const defaultImporter: ModuleImporter = async (file) =>
  (await import(pathToFileURL(file).href)) as Record<string, unknown>;

/** Whether `path` is `root` or inside it (both already absolute and canonical). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return (
    rel === '' ||
    (!rel.startsWith(`..${sep}`) && rel !== '..' && !rel.startsWith(sep) && !/^[A-Za-z]:/.test(rel))
  );
}

export function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

export interface CodeResolverOptions {
  /** The app folder: modules must be inside it. */
  appRoot: string;
  /** Where dotted module paths start (adk-python: the agents folder, so `my_app.tools` is `my_app/tools.ts`). */
  agentsRoot: string;
  references: Record<string, unknown> | undefined;
  importModule: ModuleImporter;
}

/** Resolves dotted names to exports of modules inside the app folder, or to registered names. */
export class CodeResolver {
  private readonly modules = new Map<string, Promise<Record<string, unknown>>>();

  constructor(private readonly options: CodeResolverOptions) {}

  /** The value of a dotted or registered name; errors are located at `path` of `source`. */
  async resolve(name: string, source: YamlSource, path: readonly YamlPathSegment[]): Promise<unknown> {
    if (this.options.references && Object.hasOwn(this.options.references, name)) {
      return this.options.references[name];
    }
    const registered = registeredReference(name);
    if (registered.found) return registered.value;
    const located = this.moduleOf(name, source, path);
    if (!located) {
      const segments = name.split('.').slice(0, -1);
      throw source.error(
        path,
        `a module ${segments.join('/')}.ts (or .js) in ${this.options.agentsRoot} or ${this.options.appRoot}, or a registered name`,
        `no such module for ${describeValue(name)}`,
      );
    }
    const { file, exportName } = located;
    let module: Record<string, unknown>;
    try {
      module = await this.load(file);
    } catch (error) {
      throw source.error(path, `a module that loads (${file})`, `an error: ${describeError(error)}`, error);
    }
    if (!(exportName in module)) {
      const exports = Object.keys(module).filter((k) => k !== '__esModule');
      throw source.error(
        path,
        `an export "${exportName}" of ${file}`,
        exports.length > 0 ? `only the exports ${exports.join(', ')}` : 'no exports',
      );
    }
    return module[exportName];
  }

  /**
   * The module file and export a dotted name points to, or undefined when no module file matches
   * (it may still be a registered name). Throws for a malformed name and for a module outside the
   * app folder. Reads no module: the builder uses it to check files before anything runs.
   */
  moduleOf(
    name: string,
    source: YamlSource,
    path: readonly YamlPathSegment[],
  ): { file: string; exportName: string } | undefined {
    const segments = name.split('.');
    if (segments.length < 2 || segments.some((s) => !SEGMENT.test(s))) {
      throw source.error(
        path,
        'a registered name or a dotted name (module path and export, e.g. my_app.tools.get_weather)',
        describeValue(name),
      );
    }
    const exportName = segments.pop() as string;
    const appRoot = canonical(this.options.appRoot);
    const bases: string[][] = [[this.options.agentsRoot, ...segments]];
    // Also accept names relative to the app folder itself (`tools.get_weather`).
    if (segments[0] !== basename(appRoot)) bases.push([this.options.appRoot, ...segments]);
    for (const parts of bases) {
      for (const candidate of [
        ...MODULE_EXTENSIONS.map((ext) => `${join(...parts)}${ext}`),
        ...MODULE_EXTENSIONS.map((ext) => join(...parts, `index${ext}`)),
      ]) {
        if (!existsSync(candidate)) continue;
        const real = canonical(candidate);
        if (!isInside(appRoot, real)) {
          throw source.error(
            path,
            `a module inside the app folder ${this.options.appRoot}`,
            `${describeValue(name)}, which names ${real} outside it`,
          );
        }
        return { file: real, exportName };
      }
    }
    return undefined;
  }

  private load(file: string): Promise<Record<string, unknown>> {
    let pending = this.modules.get(file);
    if (!pending) {
      pending = this.options.importModule(file);
      this.modules.set(file, pending);
    }
    return pending;
  }
}

export function isClass(value: unknown): value is new (...args: unknown[]) => unknown {
  return typeof value === 'function' && /^class[\s{]/.test(Function.prototype.toString.call(value));
}

/**
 * Calls a factory (or constructs a class) with config arguments: unnamed ones positionally, named
 * ones together as one object after them (`{ name: value }`).
 */
export async function applyArguments(target: unknown, args: readonly ArgumentConfig[]): Promise<unknown> {
  const positional = args.filter((a) => a.name === undefined || a.name === null).map((a) => a.value);
  const named = args.filter((a) => typeof a.name === 'string');
  const callArgs =
    named.length > 0 ? [...positional, Object.fromEntries(named.map((a) => [a.name, a.value]))] : positional;
  if (isClass(target)) return new target(...callArgs);
  return await (target as (...a: unknown[]) => unknown)(...callArgs);
}
