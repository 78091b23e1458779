import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pnpmCommand } from './create/checkout.js';

const root = mkdtempSync(join(tmpdir(), 'adk-create-pnpm-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('adk create from a checkout: which pnpm packs', () => {
  it("uses the checkout's provisioned .tools/bin/pnpm, else pnpm on PATH, else npx pnpm@<packageManager>", () => {
    writeFileSync(join(root, 'package.json'), JSON.stringify({ packageManager: 'pnpm@10.34.9' }));
    const path = process.env.PATH;
    try {
      // Nothing provisioned and no pnpm on PATH: npm's npx fetches the pinned version.
      process.env.PATH = join(root, 'empty-bin');
      expect(pnpmCommand(root)).toEqual({ file: 'npx', args: ['--yes', 'pnpm@10.34.9'] });
      // pnpm on PATH.
      mkdirSync(join(root, 'path-bin'));
      writeFileSync(join(root, 'path-bin', 'pnpm'), '#!/bin/sh\n', { mode: 0o755 });
      process.env.PATH = join(root, 'path-bin');
      expect(pnpmCommand(root)).toEqual({ file: 'pnpm', args: [] });
      // What the root `npm start` provisions wins (the case that failed with "pnpm is needed").
      mkdirSync(join(root, '.tools', 'bin'), { recursive: true });
      writeFileSync(join(root, '.tools', 'bin', 'pnpm'), '#!/bin/sh\n', { mode: 0o755 });
      expect(pnpmCommand(root)).toEqual({ file: join(root, '.tools', 'bin', 'pnpm'), args: [] });
    } finally {
      process.env.PATH = path;
    }
  });
});
