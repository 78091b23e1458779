import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

export interface Footprint {
  /** Installed packages (every package folder under node_modules, nested ones included). */
  packages: number;
  /** Sum of file sizes. */
  bytes: number;
  /** Space the files take on this file system (allocated blocks). */
  diskBytes: number;
  /** Bytes (file sizes) per top-level package, nested dependencies included. */
  byPackage: Map<string, number>;
}

/** Counts the packages and bytes under a project's node_modules. */
export async function measureNodeModules(nodeModules: string): Promise<Footprint> {
  const total: Footprint = { packages: 0, bytes: 0, diskBytes: 0, byPackage: new Map() };
  await walkModules(nodeModules, total, true);
  return total;
}

async function walkModules(dir: string, total: Footprint, topLevel = false): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch {
    return;
  }
  for (const name of entries) {
    const path = join(dir, name);
    if (name === '.bin' || name === '.package-lock.json') {
      await addSizes(path, total);
    } else if (name.startsWith('@')) {
      for (const scoped of await readdir(path))
        await addTracked(join(path, scoped), `${name}/${scoped}`, total, topLevel);
    } else if (!name.startsWith('.')) {
      await addTracked(path, name, total, topLevel);
    } else {
      await addSizes(path, total);
    }
  }
}

async function addTracked(dir: string, name: string, total: Footprint, topLevel: boolean): Promise<void> {
  const before = total.bytes;
  await addPackage(dir, total);
  if (topLevel) total.byPackage.set(name, total.bytes - before);
}

async function addPackage(dir: string, total: Footprint): Promise<void> {
  const stat = await lstat(dir);
  if (!stat.isDirectory()) return addSizes(dir, total);
  total.packages++;
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    if (name === 'node_modules') await walkModules(path, total);
    else await addSizes(path, total);
  }
}

async function addSizes(path: string, total: Footprint): Promise<void> {
  const stat = await lstat(path);
  total.bytes += stat.isDirectory() ? 0 : stat.size;
  total.diskBytes += stat.blocks * 512;
  if (stat.isDirectory()) for (const name of await readdir(path)) await addSizes(join(path, name), total);
}
