/**
 * The files `serve` reads at start (--state and its change log, --fixtures): regular files of a bounded size, or
 * refused before anything is read. A FIFO would block the start forever and /dev/zero never ends, so what a path
 * names is checked before it is opened (lstat and stat), opened without blocking, and checked again on the open
 * file (fstat), which is then read to its size and no further. A symbolic link is followed once, at start, to the
 * file it names (resolveTarget): the state is read from and written to that file, in its own folder, and the link
 * stays a link.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readlinkSync,
  readSync,
  realpathSync,
  statSync,
  type Stats,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/** A file that cannot be used: the message says why, for the one line of a usage error. */
export class FileError extends Error {}

const MiB = 1024 * 1024;

/**
 * The largest state file: the longest string Node holds (its JSON is read as one), 512 MiB less 24 characters; a
 * snapshot of a million products is about a third of it.
 */
export const STATE_FILE_LIMIT = 512 * MiB - 24;
/** The largest fixtures file: far beyond any set of fixtures a test writes by hand or generates. */
export const FIXTURES_FILE_LIMIT = 64 * MiB;

const shown = (bytes: number): string =>
  bytes % MiB === 0 || bytes > MiB ? `${Math.round(bytes / MiB)} MiB` : `${bytes} bytes`;

/** What a non-regular file is, for a refusal. */
function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a folder';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  return 'not a regular file';
}

/**
 * The file `path` names: itself, or the end of its chain of symbolic links, in its folder's real path (where a
 * temporary file renamed over it stays on its file system). The file itself need not exist; its folder must.
 */
export function resolveTarget(path: string): string {
  let current = resolve(path);
  for (let hops = 0; ; hops++) {
    if (hops > 40) throw new FileError('is a chain of more than 40 symbolic links');
    let stats: Stats;
    try {
      stats = lstatSync(current);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') break;
      throw new FileError(`cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
    if (!stats.isSymbolicLink()) break;
    current = resolve(dirname(current), readlinkSync(current));
  }
  try {
    return join(realpathSync(dirname(current)), basename(current));
  } catch (error) {
    throw new FileError(
      `cannot be written: the folder of ${current} ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : `cannot be read (${(error as NodeJS.ErrnoException).code})`}`,
    );
  }
}

/**
 * The content of the regular file `path` (symbolic links followed), at most `limit` bytes; undefined when there is
 * no such file. Throws a FileError for anything else: a folder, FIFO, socket or device, a file over the limit, one
 * that cannot be read.
 */
export function readRegular(path: string, limit: number, what: string): Buffer | undefined {
  let stats: Stats;
  try {
    stats = statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new FileError(`cannot be read (${code ?? (error as Error).message})`);
  }
  refuseUnusable(stats, limit, what);
  let fd: number;
  try {
    // Without blocking: if a FIFO took the file's place since the stat, the open returns and fstat refuses it.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    // Gone since the stat (a log renamed over another): not there.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new FileError(`cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  try {
    const opened = fstatSync(fd);
    refuseUnusable(opened, limit, what);
    // One byte more than it said: a file that grew past its limit meanwhile is refused too.
    const buffer = Buffer.allocUnsafe(Math.min(opened.size, limit) + 1);
    let length = 0;
    for (let read = -1; read !== 0 && length < buffer.length; length += read)
      read = readSync(fd, buffer, length, buffer.length - length, null);
    if (length > limit) throw new FileError(`is over ${shown(limit)}, the limit of ${what}: it grew while it was read`);
    return buffer.subarray(0, length);
  } catch (error) {
    if (error instanceof FileError) throw error;
    throw new FileError(`cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  } finally {
    closeSync(fd);
  }
}

function refuseUnusable(stats: Stats, limit: number, what: string): void {
  if (!stats.isFile()) throw new FileError(`is ${kindOf(stats)}, not a regular file: ${what} is a regular file`);
  if (stats.size > limit) throw new FileError(`is ${shown(stats.size)}, over ${shown(limit)}, the limit of ${what}`);
}
