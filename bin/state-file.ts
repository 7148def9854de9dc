/**
 * `serve --state FILE`: the emulator's state kept in a file across restarts, and every change it acknowledges
 * durable before the answer leaves (spec: REQ-12: an acceptance is durable before it is answered).
 *
 * FILE holds a snapshot (emu.snapshot(), what GET /_emulator/state answers) with what a restart needs besides: the
 * seed and start instant it was made with (a reset goes back there), the clock mode, the wall-clock time of the
 * save, and its id. Beside it, FILE.log, its change log: a header naming the snapshot it follows (`base`), then one
 * line per change emu.changes tells (JSON), each written with one write(2) to a file opened for appending before the
 * answer it belongs to leaves. A kill of the process cannot lose a line the kernel took (it is in the page cache);
 * with `sync` (--state-sync) the answers also wait until their lines are flushed to the disk (fdatasync), so a power
 * loss cannot either: one fdatasync, once the event loop's turn is over, for every line written in it (a group
 * commit). A line torn by a kill in the middle of its write has no end of line: it was never answered, and a
 * restart ignores it.
 *
 * The log is folded into a new snapshot when it has grown as large as the snapshot (at least 64 KiB), at a reset or a
 * restore (which replace every world), at the start and at the end. A fold in the background: the snapshot is
 * taken, the lines after it go to FILE.log.next (its header names the new snapshot as `base` and the current one as
 * `after`), the snapshot's text is made a part at a time between the server's turns (json-in-turns.ts), written to
 * a temporary file, flushed to the disk and renamed over FILE, then
 * FILE.log.next is renamed over FILE.log. A synchronous fold (reset, restore, start, end) writes the snapshot over
 * FILE first and then a new FILE.log. A restart reads FILE, then the logs that follow it: FILE.log when its base is
 * FILE's id, then FILE.log.next when it comes after FILE; or FILE.log.next alone when its base is FILE's id (a fold
 * killed between its two renames). A kill at any moment leaves one of these, whole up to a torn last line.
 *
 * A bare snapshot (the body of GET /_emulator/state) is read too, and a file of version 1 (without a log).
 */
import { randomUUID } from 'node:crypto';
import {
  closeSync,
  constants,
  fdatasyncSync,
  fsyncSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { open } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ChangeLogError, replayChanges, type Emulator, type Snapshot, type StateChange } from '../src/index.js';
import { stringifyInTurns } from './json-in-turns.js';
import { FileError, readRegular, STATE_FILE_LIMIT } from './regular-file.js';

const FORMAT = 'catalog-emulator/state-file';
const SNAPSHOT_FORMAT = 'catalog-emulator/state';
const LOG_FORMAT = 'catalog-emulator/state-log';
/** The clock's last instant (9999-12-31T23:59:59.999Z): a restart in real mode never moves it past. */
const LATEST_INSTANT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
/**
 * A log is folded once it is as large as the snapshot, and not before it holds this much: a fold then writes at most
 * as many bytes as were logged since the last, and a restart replays at most that much.
 */
const FOLD_AT_LEAST = 64 * 1024;

/** The file as written: version 2 of the state-file format (version 1 had no id, and no log). */
interface StateFile {
  readonly format: typeof FORMAT;
  readonly version: 2;
  /** What the header of its change log names (`base`). */
  readonly id: string;
  /** Wall-clock time of the save (ISO 8601): how long the server was down, at the next start. */
  readonly savedAt: string;
  readonly clock: 'real' | 'manual';
  /** The start instant of the emulator that saved it (Unix ms): where a reset takes the clock. */
  readonly start: number;
  readonly snapshot: Snapshot;
}

/** What a state file holds, read and checked in its envelope (the snapshot itself is checked by emu.restore). */
export interface SavedState {
  readonly seed: number | string;
  /** Undefined for a bare snapshot, which does not say. */
  readonly start: number | undefined;
  /** The mode and wall-clock time of the save (of its last change logged); undefined for a bare snapshot. */
  readonly saved: { readonly clock: 'real' | 'manual'; readonly at: number } | undefined;
  readonly snapshot: Snapshot;
}

/** A state file (or its log) that cannot be used: the message says why, for the one line of a usage error. */
export class StateFileError extends Error {}

/** The paths of the change log of the state file `path` (its target: symbolic links resolved). */
export const logPaths = (path: string) => ({ log: `${path}.log`, next: `${path}.log.next` });

/** The bytes of `path`, bounded; undefined when there is none. A file that cannot be used is a StateFileError. */
function readBounded(path: string, what: string, named = ''): Buffer | undefined {
  try {
    return readRegular(path, STATE_FILE_LIMIT, what);
  } catch (error) {
    if (error instanceof FileError) throw new StateFileError(`${named}${error.message}`);
    throw error;
  }
}

/**
 * The state file `path` alone (its log aside), with its id; undefined when there is no such file (a fresh start).
 * Throws a StateFileError for a file that is there but is not a state of this emulator's format (not JSON, another
 * format or version, a missing field), or cannot be read.
 */
export function readStateFile(path: string): (SavedState & { readonly id: string | undefined }) | undefined {
  const bytes = readBounded(path, 'a state file');
  if (bytes === undefined) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw new StateFileError(`is not JSON (${(error as Error).message}): not a state file of catalog-emulator`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw new StateFileError('is not a state file of catalog-emulator: not a JSON object');
  const file = data as Record<string, unknown>;
  if (file.format === SNAPSHOT_FORMAT) {
    const snapshot = data as Snapshot;
    return { seed: seedOf(snapshot.seed, 'seed'), start: undefined, saved: undefined, snapshot, id: undefined };
  }
  if (file.format !== FORMAT) {
    throw new StateFileError(
      `is not a state file of catalog-emulator: format is ${JSON.stringify(file.format) ?? 'missing'}, not "${FORMAT}" (nor "${SNAPSHOT_FORMAT}", a snapshot)`,
    );
  }
  if (file.version !== 1 && file.version !== 2)
    throw new StateFileError(
      `is version ${JSON.stringify(file.version) ?? '(missing)'} of the state-file format; this catalog-emulator reads versions 1 and 2`,
    );
  const keys = ['format', 'version', 'savedAt', 'clock', 'start', 'snapshot', ...(file.version === 2 ? ['id'] : [])];
  const unknown = Object.keys(file).find((key) => !keys.includes(key));
  if (unknown !== undefined)
    throw new StateFileError(
      `has a key version ${file.version} of the state-file format does not have: ${JSON.stringify(unknown)}`,
    );
  if (file.version === 2 && !(typeof file.id === 'string' && file.id.length > 0))
    throw new StateFileError('id: must be the id of the save (a string)');
  const savedAt = typeof file.savedAt === 'string' ? Date.parse(file.savedAt) : NaN;
  if (!Number.isFinite(savedAt)) throw new StateFileError('savedAt: must be an ISO 8601 date-time');
  if (file.clock !== 'real' && file.clock !== 'manual') throw new StateFileError('clock: must be "real" or "manual"');
  if (!(typeof file.start === 'number' && Number.isSafeInteger(file.start)))
    throw new StateFileError('start: must be whole Unix milliseconds');
  if (typeof file.snapshot !== 'object' || file.snapshot === null)
    throw new StateFileError('snapshot: must be the snapshot of an emulator (GET /_emulator/state)');
  const snapshot = file.snapshot as Snapshot;
  return {
    seed: seedOf(snapshot.seed, 'snapshot.seed'),
    start: file.start,
    saved: { clock: file.clock, at: savedAt },
    snapshot,
    id: file.version === 2 ? (file.id as string) : undefined,
  };
}

function seedOf(seed: unknown, where: string): number | string {
  if (typeof seed === 'number' || typeof seed === 'string') return seed;
  throw new StateFileError(`${where}: must be the seed of the emulator that saved it (a number or a string)`);
}

/** A change log as read: its header, and its complete lines (a torn last line left out), each with its line number. */
interface Log {
  readonly path: string;
  readonly base: string;
  readonly after: string | null;
  readonly lines: readonly { readonly line: number; readonly text: string }[];
}

/**
 * The change log at `path`; undefined when there is none, or when its header was torn by a kill (a log is created
 * with its header, before any change goes in). A header that is whole but not a log's is a StateFileError.
 */
function readLog(path: string): Log | undefined {
  const named = `${basename(path)} `;
  const bytes = readBounded(path, 'a change log', named);
  if (bytes === undefined) return undefined;
  const text = bytes.toString('utf8');
  const end = text.indexOf('\n');
  if (end < 0) return undefined;
  let header: unknown;
  try {
    header = JSON.parse(text.slice(0, end));
  } catch {
    header = undefined;
  }
  const h = header as Record<string, unknown> | undefined;
  if (
    typeof h !== 'object' ||
    h === null ||
    h.format !== LOG_FORMAT ||
    h.version !== 1 ||
    typeof h.base !== 'string' ||
    !(h.after === null || typeof h.after === 'string')
  ) {
    throw new StateFileError(
      `${named}line 1 is not the header of a change log of catalog-emulator ({"format":"${LOG_FORMAT}","version":1,"base":…,"after":…})`,
    );
  }
  const lines: { line: number; text: string }[] = [];
  let from = end + 1;
  for (let line = 2; ; line++) {
    const to = text.indexOf('\n', from);
    // No end of line: the last line, torn by a kill while it was written, and never answered.
    if (to < 0) break;
    lines.push({ line, text: text.slice(from, to) });
    from = to + 1;
  }
  return { path, base: h.base, after: h.after, lines };
}

/** The logs that follow the save `id` of `path`, in order (see the head of this file). */
function logsAfter(path: string, id: string | undefined): Log[] {
  // A save of version 1, or a bare snapshot, has no log: a log beside it is another state's.
  if (id === undefined) return [];
  const paths = logPaths(path);
  const main = readLog(paths.log);
  const next = readLog(paths.next);
  if (main?.base === id) return next?.after === id ? [main, next] : [main];
  return next?.base === id ? [next] : [];
}

/**
 * The state `path` holds: its snapshot with the changes of its logs replayed. Undefined when there is no such file.
 * Throws a StateFileError for a file or a log that cannot be used; neither is changed.
 */
export function loadState(path: string): SavedState | undefined {
  const file = readStateFile(path);
  if (file === undefined) return undefined;
  const logs = logsAfter(path, file.id);
  if (logs.length === 0) return file;
  const entries: unknown[] = [];
  const places: string[] = [];
  for (const log of logs) {
    for (const { line, text } of log.lines) {
      try {
        entries.push(JSON.parse(text));
      } catch (error) {
        throw new StateFileError(
          `has a change log that cannot be replayed: ${basename(log.path)} line ${line} is not JSON (${(error as Error).message})`,
        );
      }
      places.push(`${basename(log.path)} line ${line}`);
    }
  }
  const realTime = file.saved?.clock === 'real' ? file.saved.at : undefined;
  try {
    const { snapshot, at } = replayChanges(file.snapshot, entries, realTime);
    return { ...file, snapshot, saved: file.saved && { clock: file.saved.clock, at: at ?? file.saved.at } };
  } catch (error) {
    if (error instanceof ChangeLogError)
      throw new StateFileError(
        `has a change log that cannot be replayed: ${places[error.entry] ?? 'its first line'}: ${error.message.replace(/^entry \d+( at |: )/, (_, sep: string) => (sep === ': ' ? '' : 'at '))}`,
      );
    throw error;
  }
}

/**
 * The snapshot to restore: in real mode, when it was saved in real mode too, every clock moved on by the time the
 * server was down (the virtual clock keeps its offset from the wall clock, as the real service's time does not stop
 * while it is unreachable); tasks that fell due meanwhile run at once. In manual mode, the saved instant.
 */
export function snapshotToRestore(saved: SavedState, mode: 'real' | 'manual', wallNow: number): Snapshot {
  const down =
    saved.saved !== undefined && saved.saved.clock === 'real' && mode === 'real' ? wallNow - saved.saved.at : 0;
  if (!(down > 0)) return saved.snapshot;
  // Only a number moves: one the snapshot's check would refuse stays as it is, for the check to name.
  const later = (now: unknown) =>
    typeof now === 'number' && Number.isSafeInteger(now) ? Math.min(LATEST_INSTANT, Math.max(now, now + down)) : now;
  const snapshot = { ...saved.snapshot, now: later(saved.snapshot.now) } as Snapshot;
  if (Array.isArray(saved.snapshot.ownClocks)) {
    (snapshot as { ownClocks: unknown[] }).ownClocks = saved.snapshot.ownClocks.map((own) =>
      typeof own === 'object' && own !== null ? { ...own, now: later(own.now) } : own,
    );
  }
  return snapshot;
}

/** Temporary files of `path` and its log that a killed run left behind (`FILE.<pid>[.<n>].tmp`, `FILE.log.<pid>.tmp`). */
function leftovers(path: string): string[] {
  const name = basename(path);
  const ours = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:\\.log)?\\.\\d+(?:\\.\\d+)?\\.tmp$`);
  try {
    return readdirSync(dirname(path))
      .filter((entry) => ours.test(entry))
      .map((entry) => join(dirname(path), entry));
  } catch {
    return [];
  }
}

/** The directory's entry (a rename) made durable; a file system that cannot fsync a directory is left as it is. */
function syncDirectory(path: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dirname(path), 'r');
    fsyncSync(fd);
  } catch {
    // Windows and some file systems refuse to open or fsync a directory; the rename is then as durable as they make it.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Writes all of `bytes` at the end of the file `fd` (opened for appending): write(2) may take less than asked. */
function append(fd: number, bytes: Buffer): void {
  for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written, bytes.length - written);
}

/** A new file `path` holding `bytes` (a log's header), open for appending; flushed to the disk with `sync`. */
function createLog(path: string, bytes: Buffer, sync: boolean): number {
  const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_APPEND, 0o644);
  try {
    append(fd, bytes);
    if (sync) fdatasyncSync(fd);
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

interface StoreOptions {
  /** The state file: the file itself (symbolic links resolved), whose folder gets its log and temporary files. */
  readonly path: string;
  readonly clock: 'real' | 'manual';
  readonly start: number;
  /** Flush each change to the disk before its answer (fdatasync), so a power loss cannot lose it either. */
  readonly sync: boolean;
  /** Told of a fold that failed (the log keeps every change meanwhile, and grows until a fold succeeds). */
  readonly onError: (message: string) => void;
  /**
   * Told when a change cannot be made durable (the log cannot be written): the process must stop, so that no answer
   * acknowledges a change a restart would not have.
   */
  readonly onFatal: (message: string) => void;
  /** The least size of the log at which it is folded (default 64 KiB; a test folds sooner). */
  readonly foldAtLeast?: number;
  /**
   * Writes the snapshot of a fold in the background to its temporary file and flushes it to the disk: a test holds
   * it to look at the files in the middle of a fold, as a kill would leave them.
   */
  readonly writeInBackground?: (path: string, text: string) => Promise<void>;
}

/** The background write of a fold's snapshot: written whole, then flushed to the disk. */
async function writeFlushed(path: string, text: string): Promise<void> {
  const file = await open(path, 'w');
  try {
    await file.writeFile(text);
    await file.sync();
  } finally {
    await file.close();
  }
}

/**
 * Keeps the emulator's state in its file: every change appended to the log before its answer leaves, the log folded
 * into the snapshot now and then (see the head of this file).
 */
export class StateStore {
  readonly #emu: Emulator;
  readonly #options: StoreOptions;
  readonly #paths: { readonly log: string; readonly next: string };
  /** The id of the save FILE holds. */
  #id: string | undefined;
  /** The log the changes go to (FILE.log, or FILE.log.next during a fold in the background). */
  #fd: number | undefined;
  /** Bytes in the logs since the last save, and the size at which they are folded. */
  #logged = 0;
  #foldAt: number;
  readonly #foldAtLeast: number;
  /** Counts the folds started: a fold in the background that a later one overtook gives up. */
  #folds = 0;
  #folding: Promise<void> | undefined;
  /** A fold in the background failed: the next one is synchronous (it writes FILE before it touches a log). */
  #foldFailed = false;
  #stop: (() => void) | undefined;
  #temps = 0;
  /** --state-sync: the answers waiting for the next fdatasync of the log, and whether it is scheduled. */
  readonly #unsynced: (() => void)[] = [];
  #syncScheduled = false;

  constructor(emu: Emulator, options: StoreOptions) {
    this.#emu = emu;
    this.#options = options;
    this.#paths = logPaths(options.path);
    this.#foldAtLeast = options.foldAtLeast ?? FOLD_AT_LEAST;
    this.#foldAt = this.#foldAtLeast;
  }

  /**
   * Folds now, synchronously: the whole state saved over FILE, then a new, empty log (at the start, after a reset or
   * a restore, at the end). At start it first removes what killed runs left behind. Throws what the file system
   * throws, and then FILE and its log are as they were, or FILE holds the new save and its log is one that follows
   * no save (nothing is lost either way).
   */
  saveNow(): void {
    this.#folds++;
    if (this.#id === undefined) for (const leftover of leftovers(this.#options.path)) rmSync(leftover, { force: true });
    const { id, text } = this.#serialize();
    const temp = this.#temp();
    const fd = openSync(temp, 'w');
    try {
      append(fd, Buffer.from(text));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, this.#options.path);
    syncDirectory(this.#options.path);
    const logTemp = `${this.#paths.log}.${process.pid}.tmp`;
    const log = createLog(logTemp, this.#header(id, null), this.#options.sync);
    renameSync(logTemp, this.#paths.log);
    rmSync(this.#paths.next, { force: true });
    syncDirectory(this.#options.path);
    this.#switchTo(log);
    this.#saved(id, text.length);
    this.#foldFailed = false;
  }

  /** Starts logging every change of the emulator (after saveNow: the state as it is now is where they start). */
  start(): void {
    this.#stop = this.#emu.changes.subscribe((change) => this.#told(change));
  }

  /** Stops logging, waits for a fold under way, and folds the log one last time. */
  async close(): Promise<void> {
    this.#stop?.();
    this.#stop = undefined;
    if (this.#unsynced.length > 0) this.#syncNow();
    await this.#folding;
    this.saveNow();
    this.#switchTo(undefined);
  }

  #told(change: StateChange): Promise<void> | undefined {
    if (change.kind === 'replaced') {
      // A reset or a restore: the log would say nothing of the new worlds, the whole state is saved before the answer.
      try {
        this.saveNow();
      } catch (error) {
        this.#options.onFatal(
          `cannot save the state to ${this.#options.path} after a reset or a restore (${describe(error)})`,
        );
      }
      return undefined;
    }
    const bytes = Buffer.from(
      `${JSON.stringify({ kind: change.kind, at: Date.now(), worlds: change.worlds, dropped: change.dropped })}\n`,
    );
    try {
      append(this.#fd!, bytes);
    } catch (error) {
      this.#fatal(error);
      return undefined;
    }
    this.#logged += bytes.length;
    const durable = this.#options.sync ? this.#synced() : undefined;
    if (this.#logged >= this.#foldAt && this.#folding === undefined) {
      if (this.#foldFailed) this.#foldAgain();
      else this.#folding = this.#foldInBackground().finally(() => (this.#folding = undefined));
    }
    return durable;
  }

  /** Resolves once what was written to the log so far is on the disk: at the fdatasync that ends this turn. */
  #synced(): Promise<void> {
    const synced = new Promise<void>((resolve) => this.#unsynced.push(resolve));
    if (!this.#syncScheduled) {
      this.#syncScheduled = true;
      setImmediate(() => this.#syncNow());
    }
    return synced;
  }

  /** One fdatasync for every answer waiting; then they leave. */
  #syncNow(): void {
    this.#syncScheduled = false;
    const waiting = this.#unsynced.splice(0);
    try {
      if (this.#fd !== undefined) fdatasyncSync(this.#fd);
    } catch (error) {
      this.#fatal(error);
      return;
    }
    for (const resolve of waiting) resolve();
  }

  #fatal(error: unknown): void {
    this.#options.onFatal(
      `cannot write the change log of ${this.#options.path} (${describe(error)}): stopping, so that no change is answered that a restart would not have`,
    );
  }

  /** A synchronous fold after a failed one, reported if it fails too; the next tries once the log grew as much again. */
  #foldAgain(): void {
    try {
      this.saveNow();
      this.#options.onError(`folded the change log into ${this.#options.path} again`);
    } catch (error) {
      this.#foldAt = this.#logged + Math.max(this.#foldAtLeast, this.#foldAt);
      this.#options.onError(
        `cannot fold the change log into ${this.#options.path} (${describe(error)}); every change is still in the log, which goes on growing`,
      );
    }
  }

  /**
   * A fold that keeps answering meanwhile: the snapshot taken now and the next changes sent to FILE.log.next, then
   * the snapshot written and flushed without blocking, and the two renames (see the head of this file).
   */
  async #foldInBackground(): Promise<void> {
    const fold = ++this.#folds;
    let temp: string | undefined;
    try {
      // The snapshot now, in the turn that sends the next changes to the new log; its text made in turns after
      // (the snapshot is the caller's own data, which the changes meanwhile do not touch).
      const { id, file } = this.#take();
      this.#switchTo(createLog(this.#paths.next, this.#header(id, this.#id ?? null), this.#options.sync));
      const logged = this.#logged;
      const text = await stringifyInTurns(file);
      temp = this.#temp();
      await (this.#options.writeInBackground ?? writeFlushed)(temp, text);
      // A synchronous fold came meanwhile: it saved a newer state and made its own log.
      if (fold !== this.#folds) return;
      renameSync(temp, this.#options.path);
      temp = undefined;
      syncDirectory(this.#options.path);
      renameSync(this.#paths.next, this.#paths.log);
      syncDirectory(this.#options.path);
      this.#saved(id, text.length, this.#logged - logged);
    } catch (error) {
      this.#foldFailed = true;
      this.#foldAt = this.#logged + Math.max(this.#foldAtLeast, this.#foldAt);
      this.#options.onError(
        `cannot fold the change log into ${this.#options.path} (${describe(error)}); every change is still in the log, which goes on growing`,
      );
    } finally {
      if (temp !== undefined) rmSync(temp, { force: true });
    }
  }

  #saved(id: string, bytes: number, logged = 0): void {
    this.#id = id;
    this.#logged = logged;
    this.#foldAt = Math.max(this.#foldAtLeast, bytes);
  }

  #switchTo(fd: number | undefined): void {
    if (this.#fd !== undefined) {
      // Lines waiting for their fdatasync may be in the log being left: it is flushed before it is closed.
      if (this.#options.sync && this.#unsynced.length > 0) fdatasyncSync(this.#fd);
      closeSync(this.#fd);
    }
    this.#fd = fd;
  }

  #header(base: string, after: string | null): Buffer {
    return Buffer.from(`${JSON.stringify({ format: LOG_FORMAT, version: 1, base, after })}\n`);
  }

  #temp(): string {
    return `${this.#options.path}.${process.pid}.${++this.#temps}.tmp`;
  }

  #serialize(): { id: string; text: string } {
    const { id, file } = this.#take();
    return { id, text: JSON.stringify(file) };
  }

  #take(): { id: string; file: StateFile } {
    const id = randomUUID();
    return {
      id,
      file: {
        format: FORMAT,
        version: 2,
        id,
        savedAt: new Date().toISOString(),
        clock: this.#options.clock,
        start: this.#options.start,
        snapshot: this.#emu.snapshot(),
      },
    };
  }
}

const describe = (error: unknown): string => (error as NodeJS.ErrnoException).code ?? (error as Error).message;

/** What `serve` was told, as far as the state file is concerned. */
interface ServeSettings {
  readonly seed: number | string | undefined;
  /** --start, as given. */
  readonly start: string | undefined;
  readonly clock: 'real' | 'manual';
}

/** How `serve --state FILE` starts: the emulator's seed and start, and the state to restore (none: a fresh start). */
export interface StatePlan {
  readonly seed: number | string | undefined;
  readonly start: number;
  readonly saved: SavedState | undefined;
}

/**
 * Reads FILE (and its log) and decides the seed and start instant of the emulator: those the file was made with (a
 * reset then recreates the same companies and fixtures, with the same ids), or for a fresh file those given, the
 * start fixed now so that the file can record it. Throws a StateFileError for a file that cannot be used, or one
 * made with another --seed or --start than those given. `path` is the state file itself (resolveTarget).
 */
export function planState(path: string, settings: ServeSettings, defaultStart: number, wallNow: number): StatePlan {
  const saved = loadState(path);
  const given = settings.start === undefined ? undefined : Date.parse(settings.start);
  if (saved === undefined)
    return { seed: settings.seed, start: given ?? (settings.clock === 'real' ? wallNow : defaultStart), saved };
  if (settings.seed !== undefined && settings.seed !== saved.seed) {
    throw new StateFileError(
      `holds an emulator of seed ${JSON.stringify(saved.seed)}, not ${JSON.stringify(settings.seed)}: leave --seed out to go on with it, or give another --state file`,
    );
  }
  if (given !== undefined && saved.start !== undefined && given !== saved.start) {
    throw new StateFileError(
      `holds an emulator started at ${new Date(saved.start).toISOString()}, not ${new Date(given).toISOString()}: leave --start out to go on with it, or give another --state file`,
    );
  }
  return {
    seed: saved.seed,
    start: saved.start ?? given ?? (settings.clock === 'real' ? wallNow : defaultStart),
    saved,
  };
}
