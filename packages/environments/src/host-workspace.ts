import { constants } from 'node:fs';
import {
  chown,
  type FileHandle,
  lchown,
  mkdir,
  mkdtemp,
  open,
  readdir,
  realpath,
  rm,
  stat,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { WorkspaceFile } from './base-environment.js';
import { WorkspacePathError } from './errors.js';

/**
 * A workspace directory on the host, shared by the environments that mount one (the sandbox, a
 * container, the unsafe local one). Every path is checked to stay inside it, symlinks included:
 * a command in the sandbox can plant a symlink, and the server must not follow it out.
 */
export class HostWorkspace {
  private constructor(
    /** The workspace's real path on the host. */
    readonly dir: string,
    private readonly owned: boolean,
    private readonly owner: { uid: number; gid: number } | undefined,
  ) {}

  /** Uses `dir` (created if missing), or a fresh private temporary directory deleted on dispose. */
  static async open(dir: string | undefined, owner?: { uid: number; gid: number }): Promise<HostWorkspace> {
    let path: string;
    let owned = false;
    if (dir === undefined) {
      path = await mkdtemp(join(tmpdir(), 'adk-workspace-'));
      owned = true;
    } else {
      path = resolve(dir);
      await mkdir(path, { recursive: true });
    }
    if (owner) await chown(path, owner.uid, owner.gid);
    return new HostWorkspace(await realpath(path), owned, owner);
  }

  /** The host path of a workspace-relative path, refused when it leaves the workspace. */
  async resolve(path: string, { forWrite = false } = {}): Promise<string> {
    if (typeof path !== 'string' || path.length === 0 || path.includes('\0')) {
      throw new WorkspacePathError(`Not a workspace path: ${JSON.stringify(path)}`);
    }
    const relativePath = path.startsWith('/workspace/') ? path.slice('/workspace/'.length) : path;
    if (isAbsolute(relativePath)) {
      throw new WorkspacePathError(`Workspace paths are relative: ${path}`);
    }
    const full = resolve(this.dir, relativePath);
    if (!inside(this.dir, full)) throw new WorkspacePathError(`Path leaves the workspace: ${path}`);
    // Follow symlinks on the existing part of the path and check again.
    let existing = forWrite ? dirname(full) : full;
    for (;;) {
      try {
        const real = await realpath(existing);
        if (!inside(this.dir, real))
          throw new WorkspacePathError(`Path leaves the workspace through a link: ${path}`);
        break;
      } catch (error) {
        if (error instanceof WorkspacePathError) throw error;
        if (existing === this.dir) break;
        existing = dirname(existing);
      }
    }
    return full;
  }

  async read(path: string): Promise<Uint8Array> {
    const full = await this.resolve(path);
    // O_NOFOLLOW: a link planted in the last component (by code in the sandbox) is refused, not
    // followed, and the checks are made on the file actually opened.
    const handle = await openNoFollow(full, constants.O_RDONLY, path);
    try {
      if (!(await handle.stat()).isFile())
        throw new WorkspacePathError(`Not a file in the workspace: ${path}`);
      return new Uint8Array(await handle.readFile());
    } finally {
      await handle.close();
    }
  }

  async write(path: string, data: string | Uint8Array): Promise<void> {
    const full = await this.resolve(path, { forWrite: true });
    const parent = dirname(full);
    await mkdir(parent, { recursive: true });
    // The parent may have been created just now: check that it is still inside.
    await this.resolve(relative(this.dir, parent) || '.', {});
    const handle = await openNoFollow(full, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC, path);
    try {
      if (!(await handle.stat()).isFile())
        throw new WorkspacePathError(`Not a file in the workspace: ${path}`);
      await handle.writeFile(data);
      if (this.owner) await handle.chown(this.owner.uid, this.owner.gid);
    } finally {
      await handle.close();
    }
    if (this.owner) {
      for (let dir = parent; inside(this.dir, dir) && dir !== this.dir; dir = dirname(dir)) {
        await lchown(dir, this.owner.uid, this.owner.gid);
      }
    }
  }

  async list(): Promise<WorkspaceFile[]> {
    const out: WorkspaceFile[] = [];
    const walk = async (dir: string): Promise<void> => {
      let entries: import('node:fs').Dirent[];
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const entry of entries) {
        const full = join(dir, entry.name);
        if (entry.isDirectory()) await walk(full);
        else if (entry.isFile()) {
          const info = await stat(full);
          out.push({
            path: relative(this.dir, full).split(sep).join('/'),
            size: info.size,
            mtimeMs: info.mtimeMs,
          });
        }
      }
    };
    await walk(this.dir);
    return out.sort((a, b) => a.path.localeCompare(b.path));
  }

  async dispose(): Promise<void> {
    if (this.owned) await rm(this.dir, { recursive: true, force: true });
  }
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** Opens a file without following a link in its last component; a link is a WorkspacePathError. */
async function openNoFollow(full: string, flags: number, path: string): Promise<FileHandle> {
  try {
    return await open(full, flags | constants.O_NOFOLLOW, 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP')
      throw new WorkspacePathError(`Path is a link, refused: ${path}`);
    throw error;
  }
}
