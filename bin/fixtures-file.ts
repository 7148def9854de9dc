/**
 * `serve --fixtures FILE`: the fixtures read from a JSON file (their format is checked by createEmulator); the banner
 * shows what they created (start.ts).
 */
import { FileError, FIXTURES_FILE_LIMIT, readRegular } from './regular-file.js';

/** A fixtures file that cannot be read or is not JSON: the message says why. */
export class FixturesFileError extends Error {}

/** The fixtures in `path`: a regular file (symbolic links followed) of at most 64 MiB, read as JSON. */
export function readFixturesFile(path: string): unknown {
  let text: string;
  try {
    const bytes = readRegular(path, FIXTURES_FILE_LIMIT, 'a fixtures file');
    if (bytes === undefined) throw new FixturesFileError('no such file');
    text = bytes.toString('utf8');
  } catch (error) {
    if (error instanceof FileError) throw new FixturesFileError(error.message);
    throw error;
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new FixturesFileError(`is not JSON (${(error as Error).message})`);
  }
}
