/**
 * A report file (`serve --report FILE`, `conformance --report FILE`), written when the command ends, and never at the
 * cost of a file the user did not hand over for it. At start FILE is checked and nothing is written or removed: its
 * folder must exist and be writable, it must not be a file the command reads or writes besides (the state file and
 * its log, the fixtures, the ready file: compared as the files they are, symbolic links followed, and by device and
 * inode), and a file already there must be a report of the same kind this emulator wrote. At the end the report goes
 * to a temporary file of its own in the same folder (created exclusively, under a name no one else uses), flushed,
 * then renamed over FILE: a reader, or a crash in the middle, sees the previous file or the whole report, never part
 * of one.
 *
 * A symbolic link is followed once, at start, as `--state` follows one (regular-file.ts): the report replaces the
 * file the link names, and the link stays.
 */
import { randomBytes } from 'node:crypto';
import {
  accessSync,
  closeSync,
  constants,
  fsyncSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { formatReport, type Report } from '../src/index.js';
import { FileError, readRegular, resolveTarget } from './regular-file.js';

/** What `--report FILE` writes: JSON to a `.json` file, Markdown to a `.md` one. */
export type ReportFormat = 'json' | 'markdown';

/** The format the name of `path` asks for; undefined for any other name. */
export function reportFormatOf(path: string): ReportFormat | undefined {
  return /\.json$/i.test(path) ? 'json' : /\.md$/i.test(path) ? 'markdown' : undefined;
}

/**
 * A kind of report file: what a refusal calls it, and how a file of that kind this emulator wrote is known (the only
 * file the report may replace).
 */
export interface ReportKind {
  readonly name: string;
  readonly recognises: (text: string) => boolean;
}

/** The kinds `serve --report` writes, by format. */
export const SERVE_REPORTS: Readonly<Record<ReportFormat, ReportKind>> = {
  json: { name: 'a JSON report of catalog-emulator', recognises: (text) => isJsonReport(text) },
  markdown: { name: 'a Markdown report of catalog-emulator', recognises: (text) => text.startsWith(MARKDOWN_OPENING) },
};

/** The report as `--report` writes it, in `format`. */
export function reportText(report: Report, format: ReportFormat): string {
  return format === 'json' ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report);
}

/**
 * A file the report must never replace: what the server reads or writes besides. `name` says which, for the
 * refusal (`--state s.json`, `the change log of --state s.json`).
 */
export interface GuardedFile {
  readonly path: string;
  readonly name: string;
}

const MiB = 1024 * 1024;
/**
 * The largest file taken for a report of ours: far above the largest report (1,000 findings, each naming at most two
 * requests, whose request lines Node bounds at 16 KiB, and a coverage table of fixed size).
 */
const REPORT_FILE_LIMIT = 128 * MiB;

/**
 * The file `--report path` will write (symbolic links followed), checked as the module's comment says; a FileError
 * saying why it cannot be used. Reads the file already there, if any; writes and removes nothing.
 */
export function checkReportFile(path: string, kind: ReportKind, guarded: readonly GuardedFile[]): string {
  // A file where its folder should be (`package.json/report.json`): said as such, not as an error of the lookup.
  const named = dirname(resolve(path));
  if (statOf(named)?.isDirectory() === false) throw new FileError(`cannot be written: ${named} is not a folder`);
  const target = resolveTarget(path);
  const folder = dirname(target);
  try {
    // As the process's user: a folder that denies it is refused now, not at stop when the report is due.
    accessSync(folder, constants.W_OK | constants.X_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new FileError(`cannot be written: the folder ${folder} is not writable (${code})`);
  }
  for (const file of guarded) {
    if (!sameFile(target, file.path)) continue;
    throw new FileError(`is the same file as ${file.name}: the report would replace it; it was left as it is`);
  }
  const unusable = notOurs(target, kind);
  if (unusable !== undefined) throw new FileError(`${unusable}; it was left as it is`);
  return target;
}

/**
 * Writes `text` over `target` (what checkReportFile returned) through a temporary file in its folder, renamed over it
 * once whole and flushed. A file that took the report's place since the start and is not a report of ours is left
 * as it is (a FileError); so is the previous report when anything fails, and the temporary file is removed.
 */
export function writeReportFile(target: string, kind: ReportKind, text: string): void {
  const unusable = notOurs(target, kind);
  if (unusable !== undefined) throw new FileError(`${unusable}, put there since the start; it was left as it is`);
  const { path, fd } = createTemporary(dirname(target));
  let open = true;
  try {
    const bytes = Buffer.from(text, 'utf8');
    for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written, bytes.length - written);
    fsyncSync(fd);
    closeSync(fd);
    open = false;
    renameSync(path, target);
  } catch (error) {
    if (open) closeSync(fd);
    rmSync(path, { force: true });
    throw error;
  }
}

/** A new file in `folder` under a name of its own, open for writing. */
function createTemporary(folder: string): { readonly path: string; readonly fd: number } {
  for (let tries = 1; ; tries++) {
    const path = join(folder, `.catalog-emulator-report-${process.pid}-${randomBytes(6).toString('hex')}.tmp`);
    try {
      // Created exclusively: a name someone else's file holds is never opened, only passed over for another.
      return { path, fd: openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o666) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || tries === 8) throw error;
    }
  }
}

/** Whether `path` names the file `target` names: the same path once resolved, or the same device and inode. */
function sameFile(target: string, path: string): boolean {
  let resolved: string;
  try {
    resolved = resolveTarget(path);
  } catch {
    // A path that cannot be resolved names no file the report could replace (and its own option refuses it).
    return false;
  }
  if (resolved === target) return true;
  const [a, b] = [statOf(target), statOf(resolved)];
  return a !== undefined && b !== undefined && a.dev === b.dev && a.ino === b.ino;
}

function statOf(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/** Why the file at `target` is not one the report may replace; undefined when there is none, or a report of ours. */
function notOurs(target: string, kind: ReportKind): string | undefined {
  let bytes: Buffer | undefined;
  try {
    bytes = readRegular(target, REPORT_FILE_LIMIT, 'a report file');
  } catch (error) {
    if (error instanceof FileError) return error.message;
    throw error;
  }
  if (bytes === undefined || kind.recognises(bytes.toString('utf8'))) return undefined;
  return `holds a file that is not ${kind.name} (the report replaces only its own)`;
}

/**
 * Whether `text` is a JSON report `serve --report` wrote: an object of the report's fields alone, with its findings,
 * their count dropped and the coverage's score, as a report of any version of the emulator has. (A Markdown report
 * begins as formatReport begins every report: its title and the heading of the findings.)
 */
function isJsonReport(text: string): boolean {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return false;
  }
  if (!isObject(value) || !Object.keys(value).every((key) => Object.hasOwn(REPORT_FIELDS, key))) return false;
  const { findings, findingsDropped, coverage } = value;
  const dropped = typeof findingsDropped === 'number' && Number.isSafeInteger(findingsDropped) && findingsDropped >= 0;
  return Array.isArray(findings) && dropped && isObject(coverage) && isObject(coverage.score);
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The fields of a report, held equal to its type by the compiler. */
const REPORT_FIELDS: Readonly<Record<keyof Report, true>> = {
  findings: true,
  findingsDropped: true,
  coverage: true,
  receiver: true,
  exploration: true,
};

/**
 * How every Markdown report begins: taken from formatReport itself (an empty report, up to the count of its
 * findings), so the two never differ. Were that count ever gone from it, the whole empty report would be the
 * opening: fewer files taken for ours, never more.
 */
const MARKDOWN_OPENING = ((): string => {
  const empty = formatReport({
    findings: [],
    findingsDropped: 0,
    coverage: {
      score: { exercised: 0, listed: 0 },
      behaviours: [],
      gaps: [],
      operations: [],
      notCalled: [],
      unrouted: 0,
      faults: [],
      inboxAttempts: 0,
    },
  });
  const count = empty.indexOf('(');
  return count < 0 ? empty : empty.slice(0, count + 1);
})();
