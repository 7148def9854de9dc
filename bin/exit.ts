/**
 * How a command that reads the CLI's one option table ends: a usage error in one line, or its exit code once its
 * output is out.
 */

/** Ends the process with `message` (one line) and where the usage is, exit `code` (2: bad usage or input). */
export function fail(message: string, code = 2): never {
  process.stderr.write(`catalog-emulator: ${message}\nRun "catalog-emulator --help" for usage.\n`);
  process.exit(code);
}

/** Exits with `code` once what was printed is out (a pipe reader gets all of it). */
export async function exitWith(code: number): Promise<never> {
  for (const stream of [process.stdout, process.stderr])
    await new Promise<void>((resolve) => stream.write('', () => resolve()));
  process.exit(code);
}
