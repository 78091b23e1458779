#!/usr/bin/env node
// Architecture references must resolve inside the repository: code and docs point to sections of
// docs/architecture.md ("docs/architecture.md §4.2" or a markdown link "architecture.md#4-…"),
// never to a design document that does not ship with the repo.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const architecture = readFileSync(join(root, 'docs/architecture.md'), 'utf8');

// Section numbers ("4", "4.2") and GitHub-style anchors of every heading.
const sections = new Set();
const anchors = new Set();
for (const line of architecture.split('\n')) {
  const m = /^#{2,4} (\d+(?:\.\d+)*)\.? (.*)$/.exec(line);
  if (!m) continue;
  sections.add(m[1]);
  const anchor = `${m[1]} ${m[2]}`
    .toLowerCase()
    .replace(/[^\p{L}\p{N} -]/gu, '')
    .replace(/ /g, '-');
  anchors.add(anchor);
}

const files = execFileSync(
  'git',
  ['ls-files', '-co', '--exclude-standard', 'packages', 'apps', 'docs', 'README.md', 'CONTRIBUTING.md'],
  {
    cwd: root,
    encoding: 'utf8',
  },
)
  .split('\n')
  .filter((f) => /\.(ts|tsx|mjs|js|md)$/.test(f) && !f.includes('node_modules/') && !f.includes('/dist/'));

const problems = [];
for (const file of files) {
  let text;
  try {
    text = readFileSync(join(root, file), 'utf8');
  } catch {
    continue;
  }
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    const where = `${file}:${i + 1}`;
    if (/DESIGN §|shared\/DESIGN\.md|\.\.\/shared\//.test(line) && file !== 'scripts/check-docs.mjs')
      problems.push(`${where}: cites a design document that is not in the repository`);
    for (const m of line.matchAll(/architecture\.md §(\d+(?:\.\d+)*)/g)) {
      if (!sections.has(m[1])) problems.push(`${where}: docs/architecture.md has no section §${m[1]}`);
    }
    for (const m of line.matchAll(/architecture\.md#([\w-]+)/g)) {
      if (!anchors.has(m[1])) problems.push(`${where}: docs/architecture.md has no heading #${m[1]}`);
    }
  });
}

if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exit(1);
}
console.log(`check-docs: ${files.length} files, every architecture reference resolves`);
