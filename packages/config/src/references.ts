const registry = new Map<string, unknown>();

/**
 * Names that agent config files may use for code: tools, callbacks, schemas, agents, agent classes
 * and models. A registered name wins over a module of the same dotted name, so apps bundled into
 * one file (or code that is not beside the YAML) can still be referenced. Later calls add to and
 * replace earlier ones.
 */
export function registerConfigReferences(references: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(references)) registry.set(name, value);
}

/** Forgets registered names (all of them, or the given ones). */
export function clearConfigReferences(names?: readonly string[]): void {
  if (!names) registry.clear();
  else for (const name of names) registry.delete(name);
}

export function registeredReference(name: string): { found: boolean; value?: unknown } {
  return registry.has(name) ? { found: true, value: registry.get(name) } : { found: false };
}
