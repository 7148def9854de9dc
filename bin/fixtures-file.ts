/**
 * `serve --fixtures FILE`: the fixtures read from a JSON file (their format is checked by createEmulator); the banner
 * shows what they created (start.ts).
 */
import { readFileSync } from 'node:fs';

/** A fixtures file that cannot be read or is not JSON: the message says why. */
export class FixturesFileError extends Error {}

export function readFixturesFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new FixturesFileError(code === 'ENOENT' ? 'no such file' : `cannot read it (${code ?? (error as Error).message})`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new FixturesFileError(`is not JSON (${(error as Error).message})`);
  }
}
