export interface BenchConfig {
  quick: boolean;
  /** Scratch folder for this run (databases, consumer projects, packed tarballs). */
  tmpDir: string;
  log(message: string): void;
}

export interface Table {
  caption?: string;
  headers: string[];
  rows: string[][];
}

/** A target from the issue, and what this run measured against it. */
export interface Check {
  scenario: string;
  label: string;
  target: string;
  measured: string;
  /** undefined when the figure could not be measured in this run. */
  pass: boolean | undefined;
  /** For the chart: measured ratio and the target ratio (higher is better), when the check is a ratio. */
  ratio?: { value: number; target: number; chartLabel: string };
}

export interface ScenarioReport {
  id: string;
  title: string;
  /** Reasons parts (or all) of the scenario were skipped. */
  skipped: string[];
  tables: Table[];
  checks: Check[];
  notes: string[];
}

export interface Scenario {
  id: string;
  title: string;
  run(config: BenchConfig): Promise<ScenarioReport>;
}

export function newReport(id: string, title: string): ScenarioReport {
  return { id, title, skipped: [], tables: [], checks: [], notes: [] };
}
