/**
 * The last run's outcome of each test, from vitest's JSON reporter (`--reporter=json --outputFile=…`), and which
 * outcome a test found in the source had.
 */
import { relative } from 'node:path';
import { nameMatches, type ScannedTest } from './tags.js';

export type TestStatus = 'passed' | 'failed' | 'not run';

export interface RunResult {
  /** The suite names, outermost first, then the test's name, as vitest reported them. */
  readonly names: readonly string[];
  readonly status: TestStatus;
}

interface ReporterFile {
  readonly name: string;
  readonly assertionResults: readonly {
    readonly ancestorTitles: readonly string[];
    readonly title: string;
    readonly status: string;
  }[];
}

/** Results per file (path from `root`, with `/`); skipped and todo tests count as not run. */
export function parseResults(json: string, root: string): Map<string, RunResult[]> {
  const report = JSON.parse(json) as { testResults?: readonly ReporterFile[] };
  if (!Array.isArray(report.testResults)) throw new Error('not a vitest JSON report: it has no testResults');
  const byFile = new Map<string, RunResult[]>();
  for (const file of report.testResults) {
    const path = relative(root, file.name).split('\\').join('/');
    const list = byFile.get(path) ?? [];
    for (const result of file.assertionResults) {
      const status: TestStatus =
        result.status === 'passed' ? 'passed' : result.status === 'failed' ? 'failed' : 'not run';
      list.push({ names: [...result.ancestorTitles, result.title], status });
    }
    byFile.set(path, list);
  }
  return byFile;
}

/**
 * A source test's outcome: failed if any run it stands for failed (an `it.each` or a loop stands for several),
 * passed if some passed and none failed, not run otherwise.
 */
export function statusOf(test: ScannedTest, results: ReadonlyMap<string, readonly RunResult[]>): TestStatus {
  const runs = (results.get(test.file) ?? []).filter(
    (run) => run.names.length === test.names.length && run.names.every((name, i) => nameMatches(test.names[i]!, name)),
  );
  if (runs.some((run) => run.status === 'failed')) return 'failed';
  if (runs.some((run) => run.status === 'passed')) return 'passed';
  return 'not run';
}
