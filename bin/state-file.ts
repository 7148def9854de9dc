/**
 * `serve --state FILE`: the emulator's state kept in a file across restarts.
 *
 * The file holds the emulator's snapshot (emu.snapshot(), what GET /_emulator/state answers) with what a restart
 * needs besides: the seed and start instant it was made with (a reset goes back there, recreating the same
 * companies), the clock mode, and the wall-clock time of the save. A bare snapshot (the body of
 * GET /_emulator/state) is read too.
 *
 * Writes are atomic: the whole file goes to a temporary file in the same directory, which is fsynced, renamed
 * over FILE, and the directory fsynced. A kill at any moment leaves the previous file or the new one, whole.
 */
import { closeSync, fsyncSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Emulator, Snapshot } from '../src/index.js';

const FORMAT = 'catalog-emulator/state-file';
const SNAPSHOT_FORMAT = 'catalog-emulator/state';
/** The clock's last instant (9999-12-31T23:59:59.999Z): a restart in real mode never moves it past. */
const LATEST_INSTANT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** The file as written: version 1 of the state-file format. */
interface StateFile {
  readonly format: typeof FORMAT;
  readonly version: 1;
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
  /** The mode and wall-clock time of the save; undefined for a bare snapshot. */
  readonly saved: { readonly clock: 'real' | 'manual'; readonly at: number } | undefined;
  readonly snapshot: Snapshot;
}

/** A state file that cannot be used: the message says why, for the one line of a usage error. */
export class StateFileError extends Error {}

/**
 * The state in `path`; undefined when there is no such file (a fresh start). Throws a StateFileError for a file
 * that is there but is not a state of this emulator's format (not JSON, another format or version, a missing
 * field), or cannot be read.
 */
export function readStateFile(path: string): SavedState | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new StateFileError(`cannot read it (${code ?? (error as Error).message})`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new StateFileError(`is not JSON (${(error as Error).message}): not a state file of catalog-emulator`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new StateFileError('is not a state file of catalog-emulator: not a JSON object');
  const file = data as Record<string, unknown>;
  if (file.format === SNAPSHOT_FORMAT) {
    const snapshot = data as Snapshot;
    return { seed: seedOf(snapshot.seed, 'seed'), start: undefined, saved: undefined, snapshot };
  }
  if (file.format !== FORMAT) {
    throw new StateFileError(`is not a state file of catalog-emulator: format is ${JSON.stringify(file.format) ?? 'missing'}, not "${FORMAT}" (nor "${SNAPSHOT_FORMAT}", a snapshot)`);
  }
  if (file.version !== 1) throw new StateFileError(`is version ${JSON.stringify(file.version) ?? '(missing)'} of the state-file format; this catalog-emulator reads version 1`);
  const unknown = Object.keys(file).find((key) => !['format', 'version', 'savedAt', 'clock', 'start', 'snapshot'].includes(key));
  if (unknown !== undefined) throw new StateFileError(`has a key the state-file format does not have: ${JSON.stringify(unknown)}`);
  const savedAt = typeof file.savedAt === 'string' ? Date.parse(file.savedAt) : NaN;
  if (!Number.isFinite(savedAt)) throw new StateFileError('savedAt: must be an ISO 8601 date-time');
  if (file.clock !== 'real' && file.clock !== 'manual') throw new StateFileError('clock: must be "real" or "manual"');
  if (!(typeof file.start === 'number' && Number.isSafeInteger(file.start))) throw new StateFileError('start: must be whole Unix milliseconds');
  if (typeof file.snapshot !== 'object' || file.snapshot === null) throw new StateFileError('snapshot: must be the snapshot of an emulator (GET /_emulator/state)');
  const snapshot = file.snapshot as Snapshot;
  return { seed: seedOf(snapshot.seed, 'snapshot.seed'), start: file.start, saved: { clock: file.clock, at: savedAt }, snapshot };
}

function seedOf(seed: unknown, where: string): number | string {
  if (typeof seed === 'number' || typeof seed === 'string') return seed;
  throw new StateFileError(`${where}: must be the seed of the emulator that saved it (a number or a string)`);
}

/**
 * The snapshot to restore: in real mode, when it was saved in real mode too, every clock moved on by the time the
 * server was down (the virtual clock keeps its offset from the wall clock, as the real service's time does not stop
 * while it is unreachable); tasks that fell due meanwhile run at once. In manual mode, the saved instant.
 */
export function snapshotToRestore(saved: SavedState, mode: 'real' | 'manual', wallNow: number): Snapshot {
  const down = saved.saved !== undefined && saved.saved.clock === 'real' && mode === 'real' ? wallNow - saved.saved.at : 0;
  if (!(down > 0)) return saved.snapshot;
  // Only a number moves: one the snapshot's check would refuse stays as it is, for the check to name.
  const later = (now: unknown) => (typeof now === 'number' && Number.isSafeInteger(now) ? Math.min(LATEST_INSTANT, Math.max(now, now + down)) : now);
  const snapshot = { ...saved.snapshot, now: later(saved.snapshot.now) } as Snapshot;
  if (Array.isArray(saved.snapshot.ownClocks)) {
    (snapshot as { ownClocks: unknown[] }).ownClocks = saved.snapshot.ownClocks.map((own) => (typeof own === 'object' && own !== null ? { ...own, now: later(own.now) } : own));
  }
  return snapshot;
}

/** Temporary files of `path` that a kill left behind (`FILE.<pid>.tmp`). */
function leftovers(path: string): string[] {
  const prefix = `${basename(path)}.`;
  try {
    return readdirSync(dirname(path))
      .filter((name) => name.startsWith(prefix) && /^\d+\.tmp$/.test(name.slice(prefix.length)))
      .map((name) => join(dirname(path), name));
  } catch {
    return [];
  }
}

/** The directory's entry (the rename) made durable; a file system that cannot fsync a directory is left as it is. */
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

interface SaverOptions {
  readonly path: string;
  readonly clock: 'real' | 'manual';
  readonly start: number;
  /** Told of a save that failed (the file keeps its previous content); the saver tries again at the next change. */
  readonly onError: (message: string) => void;
  /** Least wait between two saves, in ms (default 100). */
  readonly minIntervalMs?: number;
}

/**
 * Saves the emulator's state to its file after every change, batched: it looks every `minIntervalMs` whether
 * emu.stateVersion() moved since the last save, and if so saves. A save whose snapshot takes long to take and
 * serialize spaces the next ones out (4 times that long), so saving a large state holds the server at most about a
 * fifth of its time.
 */
export class StateSaver {
  readonly #emu: Emulator;
  readonly #options: SaverOptions;
  readonly #temp: string;
  readonly #interval: number;
  #saved = -1;
  #running: Promise<void> | undefined;
  #notBefore = 0;
  #timer: ReturnType<typeof setInterval> | undefined;
  #failed: string | undefined;

  constructor(emu: Emulator, options: SaverOptions) {
    this.#emu = emu;
    this.#options = options;
    this.#temp = `${options.path}.${process.pid}.tmp`;
    this.#interval = options.minIntervalMs ?? 100;
  }

  /**
   * Saves now, synchronously (the first save, and the last), after removing what killed runs left behind. Throws
   * what the file system throws: at start, a file that cannot be written is a usage error.
   */
  saveNow(): void {
    for (const leftover of leftovers(this.#options.path)) if (leftover !== this.#temp) rmSync(leftover, { force: true });
    const { version, text } = this.#serialize();
    writeFileSync(this.#temp, text);
    const fd = openSync(this.#temp, 'r+');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(this.#temp, this.#options.path);
    syncDirectory(this.#options.path);
    this.#saved = version;
  }

  /** Starts watching for changes. The timer does not keep the process alive. */
  start(): void {
    this.#timer = setInterval(() => this.#tick(), this.#interval);
    this.#timer.unref();
  }

  /** Stops watching, waits for a save under way, and saves once more if anything changed since. */
  async close(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running;
    if (this.#emu.stateVersion() !== this.#saved) this.saveNow();
  }

  #tick(): void {
    if (this.#running !== undefined || this.#emu.stateVersion() === this.#saved || performance.now() < this.#notBefore) return;
    this.#running = this.#save()
      .then(
        (blockedMs) => {
          // Only the time the save held the event loop counts: waiting for the disk does not keep requests waiting.
          this.#notBefore = performance.now() + Math.max(0, 4 * blockedMs - this.#interval);
          if (this.#failed !== undefined) this.#options.onError(`saved again to ${this.#options.path}`);
          this.#failed = undefined;
        },
        (error: unknown) => {
          const message = `cannot save the state to ${this.#options.path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); it keeps its previous content, and the next change tries again`;
          // Once per kind of failure, not every 100 ms.
          if (message !== this.#failed) this.#options.onError(message);
          this.#failed = message;
        },
      )
      .finally(() => {
        this.#running = undefined;
      });
  }

  /**
   * One save: the snapshot taken and serialized at once (a consistent state), then written without blocking.
   * Resolves with how long it held the event loop, in ms.
   */
  async #save(): Promise<number> {
    const began = performance.now();
    const { version, text } = this.#serialize();
    const blockedMs = performance.now() - began;
    const file = await open(this.#temp, 'w');
    try {
      await file.writeFile(text);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(this.#temp, this.#options.path);
    syncDirectory(this.#options.path);
    this.#saved = version;
    return blockedMs;
  }

  #serialize(): { version: number; text: string } {
    const version = this.#emu.stateVersion();
    const file: StateFile = { format: FORMAT, version: 1, savedAt: new Date().toISOString(), clock: this.#options.clock, start: this.#options.start, snapshot: this.#emu.snapshot() };
    return { version, text: JSON.stringify(file) };
  }
}

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
 * Reads FILE and decides the seed and start instant of the emulator: those the file was made with (a reset then
 * recreates the same companies and fixtures, with the same ids), or for a fresh file those given, the start fixed
 * now so that the file can record it. Throws a StateFileError for a file that cannot be used, or one made with
 * another --seed or --start than those given.
 */
export function planState(path: string, settings: ServeSettings, defaultStart: number, wallNow: number): StatePlan {
  const saved = readStateFile(path);
  const given = settings.start === undefined ? undefined : Date.parse(settings.start);
  if (saved === undefined) return { seed: settings.seed, start: given ?? (settings.clock === 'real' ? wallNow : defaultStart), saved };
  if (settings.seed !== undefined && settings.seed !== saved.seed) {
    throw new StateFileError(`holds an emulator of seed ${JSON.stringify(saved.seed)}, not ${JSON.stringify(settings.seed)}: leave --seed out to go on with it, or give another --state file`);
  }
  if (given !== undefined && saved.start !== undefined && given !== saved.start) {
    throw new StateFileError(`holds an emulator started at ${new Date(saved.start).toISOString()}, not ${new Date(given).toISOString()}: leave --start out to go on with it, or give another --state file`);
  }
  return { seed: saved.seed, start: saved.start ?? given ?? (settings.clock === 'real' ? wallNow : defaultStart), saved };
}
