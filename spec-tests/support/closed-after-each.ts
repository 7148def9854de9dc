/**
 * Emulators a test makes for itself, each closed after the test (its servers stopped, its timers cleared) even
 * when the test fails: `const closing = closedAfterEach();` in a file, then `closing(createEmulator(options))`.
 */
import { afterEach } from 'vitest';

interface Closable {
  close(): Promise<void>;
}

export function closedAfterEach(): <T extends Closable>(made: T) => T {
  const open: Closable[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((made) => made.close()));
  });
  return (made) => {
    open.push(made);
    return made;
  };
}
