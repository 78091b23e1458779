import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { Option } from 'commander';
import type { StreamingMode } from '../conformance/formats.js';
import type { ConformanceRun } from '../conformance/run-cases.js';
import { type CommandModule, collectList } from './command.js';

interface RecordOptions {
  streamingMode?: StreamingMode;
  filter?: string[];
}

interface TestOptions extends RecordOptions {
  lenientRequests?: boolean;
  report?: string;
  /** adk-python's spellings, kept with their underscores. */
  generate_report?: boolean;
  report_dir?: string;
}

const LAYOUT = `
Layout (adk-python's): <tests_dir>/<category>/<case>/
  spec.yaml                      description, agent (an app of <agents_dir>), initial_state,
                                 user_messages (text, or content; optional state_delta)
  generated-recordings.yaml      model requests/responses and tool calls per agent and message
  generated-session.yaml         the session after the last message
  generated-*-sse.yaml           the same for --streaming-mode sse`;

function streamingOption(): Option {
  return new Option('--streaming-mode <mode>', 'none (a /run_sse call with streaming off) or sse').choices([
    'none',
    'sse',
  ]);
}

function summary(run: ConformanceRun): { failed: number; line: string } {
  const count = (s: string) => run.results.filter((r) => r.status === s).length;
  const failed = count('failed');
  const done = run.mode === 'record' ? `${count('recorded')} recorded` : `${count('passed')} passed`;
  return {
    failed,
    line: `${run.results.length} case runs: ${done}, ${failed} failed, ${count('skipped')} skipped`,
  };
}

export const conformanceCommand: CommandModule = (program: Command) => {
  const group = program
    .command('conformance')
    .description("record and replay ADK conformance cases (adk-python's format) against this server");

  group
    .command('record')
    .description('run each case on the agents with the current model and write its generated-*.yaml files')
    .argument('<agents_dir>', 'folder of apps the cases run')
    .argument('[tests_dir...]', 'folders of cases (default: tests)')
    .addOption(streamingOption().default('none'))
    .option(
      '--filter <patterns>',
      'only cases whose category/name contains one of these (* wildcards)',
      collectList,
    )
    .addHelpText('after', LAYOUT)
    .action(async (agentsDir: string, testsDirs: string[], options: RecordOptions) => {
      // Loaded when used: the YAML parser and the server stay out of other commands' start-up.
      const { runConformance } = await import('../conformance/run-cases.js');
      const run = await runConformance({
        agentsDir,
        testPaths: testsDirs.length > 0 ? testsDirs : ['tests'],
        mode: 'record',
        streamingModes: [options.streamingMode ?? 'none'],
        ...(options.filter ? { filter: options.filter } : {}),
        log: (line) => process.stdout.write(`${line}\n`),
      });
      const { failed, line } = summary(run);
      process.stdout.write(`${line}\n`);
      if (failed > 0) process.exitCode = 1;
    });

  group
    .command('test')
    .description(
      'replay each case: the recorded model answers, every request and tool call is checked, then events and session',
    )
    .argument('<agents_dir>', 'folder of apps the cases run')
    .argument('[tests_dir...]', 'folders of cases (default: tests)')
    .addOption(streamingOption())
    .option(
      '--filter <patterns>',
      'only cases whose category/name contains one of these (* wildcards)',
      collectList,
    )
    .option(
      '--lenient-requests',
      "compare model requests as adk-python's replay does across languages (tool schema prose and formatting, transfer_to_agent's description ignored) instead of exactly",
    )
    .option('--report <file>', 'write a Markdown report to this file')
    .option(
      '--generate_report',
      'write a Markdown report (adk-python flag) to --report_dir or the working folder',
    )
    .option('--report_dir <dir>', 'folder of the --generate_report report')
    .addHelpText('after', LAYOUT)
    .action(async (agentsDir: string, testsDirs: string[], options: TestOptions) => {
      const { runConformance } = await import('../conformance/run-cases.js');
      const { markdownReport } = await import('../conformance/report.js');
      const run = await runConformance({
        agentsDir,
        testPaths: testsDirs.length > 0 ? testsDirs : ['tests'],
        mode: 'replay',
        ...(options.streamingMode ? { streamingModes: [options.streamingMode] } : {}),
        ...(options.filter ? { filter: options.filter } : {}),
        requestComparison: options.lenientRequests ? 'lenient' : 'strict',
        log: (line) => process.stdout.write(`${line}\n`),
      });
      const reportFile = options.report
        ? resolve(options.report)
        : options.generate_report || options.report_dir
          ? join(resolve(options.report_dir ?? '.'), 'adk-conformance-report.md')
          : undefined;
      if (reportFile) {
        await mkdir(dirname(reportFile), { recursive: true });
        await writeFile(reportFile, markdownReport(run));
        process.stdout.write(`Report: ${reportFile}\n`);
      }
      const { failed, line } = summary(run);
      process.stdout.write(`${line}\n`);
      if (failed > 0 || run.results.every((r) => r.status === 'skipped')) process.exitCode = 1;
    });
};
