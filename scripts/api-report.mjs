#!/usr/bin/env node
// The API report of a package (@microsoft/api-extractor): one `api/<name>.api.md` per `exports`
// entry with types, committed, so that every change to a public surface shows in review. Run in a
// package folder after its build. `node ../../scripts/api-report.mjs` fails when a report differs
// from the declarations (CI: `pnpm test` runs it through turbo's `api` task); `--update` rewrites
// the reports (commit them).
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';

const dir = process.cwd();
const update = process.argv.includes('--update');
const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
const short = pkg.name.replace(/^@[^/]+\//, '');
const reportFolder = join(dir, 'api');
mkdirSync(reportFolder, { recursive: true });

let failed = false;
for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
  const types = typeof target === 'object' && target !== null ? target.types : undefined;
  if (typeof types !== 'string' || !types.endsWith('.d.ts')) continue;
  const entry = join(dir, types);
  if (!existsSync(entry)) {
    console.error(`api-report: ${pkg.name}${subpath.slice(1)}: ${types} is missing; build the package first`);
    failed = true;
    continue;
  }
  const name = subpath === '.' ? short : `${short}-${subpath.slice(2).replace(/\//g, '-')}`;
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: dir,
      mainEntryPointFilePath: entry,
      compiler: { tsconfigFilePath: join(dir, 'tsconfig.json') },
      apiReport: {
        enabled: true,
        reportFileName: `${name}.api.md`,
        reportFolder,
        reportTempFolder: join(dir, 'node_modules', '.api-report'),
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        // The report is for review; TSDoc style and missing release tags are not checked here.
        extractorMessageReporting: {
          default: { logLevel: 'none' },
          'ae-missing-release-tag': { logLevel: 'none' },
          'ae-forgotten-export': { logLevel: 'none' },
        },
        tsdocMessageReporting: { default: { logLevel: 'none' } },
        compilerMessageReporting: { default: { logLevel: 'warning' } },
      },
    },
    configObjectFullPath: join(dir, 'api-extractor.json'),
    packageJsonFullPath: join(dir, 'package.json'),
  });
  const result = Extractor.invoke(config, { localBuild: update, showVerboseMessages: false });
  if (result.apiReportChanged && !update) {
    console.error(
      `api-report: the public API of ${pkg.name}${subpath.slice(1)} changed: run \`pnpm --filter ${pkg.name} api:update\` and commit api/${name}.api.md`,
    );
    failed = true;
  } else if (!result.succeeded && !result.apiReportChanged) {
    console.error(`api-report: api-extractor failed for ${pkg.name}${subpath.slice(1)}`);
    failed = true;
  } else console.log(`api-report: ${pkg.name}${subpath.slice(1)}: ${update ? 'written' : 'unchanged'}`);
}
process.exit(failed ? 1 : 0);
