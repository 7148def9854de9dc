/** What the demos share: a scenario type and a client that prints each request and its answer. */
import { createEmulator, type CompanyOptions, type Emulator } from '../public.js';

export interface Demo {
  readonly name: string;
  readonly summary: string;
  /** Runs the scenario, printing its narration; with a pacer, each step waits for it first. */
  run(print: (line: string) => void, pacer?: DemoPacer): Promise<void>;
}

/** What paces a scenario step by step (the inspector's DemoGate does): it gets its emulator, then holds each step. */
export interface DemoPacer {
  /** The scenario's emulator, as soon as it exists, before any step. */
  begin(emulator: Emulator): void;
  /** Awaited before step `n` (1, 2, … in the order they run) whose heading is `text`: the step runs when it resolves. */
  step(n: number, text: string): Promise<void>;
}

export interface Exchange {
  readonly status: number;
  readonly headers: Headers;
  readonly body: any; // narrated JSON
}

/** Sends a request through the emulator and prints it and its answer, as a reader would see them on the wire. */
export function narratedClient(emu: Emulator, token: string, print: (line: string) => void) {
  return async (
    method: string,
    path: string,
    options: { headers?: Record<string, string>; body?: unknown } = {},
  ): Promise<Exchange> => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, ...options.headers };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    print(`  → ${method} ${path}`);
    for (const [name, value] of Object.entries(options.headers ?? {})) print(`      ${name}: ${value}`);
    if (options.body !== undefined) print(`      ${JSON.stringify(options.body)}`);
    const response = await emu.fetch(path, {
      method,
      headers,
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    });
    const text = await response.text();
    print(`  ← ${response.status}`);
    for (const name of ['etag', 'location', 'idempotent-replayed', 'retry-after']) {
      const value = response.headers.get(name);
      if (value !== null) print(`      ${name}: ${value}`);
    }
    print(`      ${text.length > 400 ? `${text.slice(0, 400)}…` : text}`);
    return { status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) };
  };
}

/** Prints rows under a header as aligned columns (null shows as "-"), as the demos' small result tables. */
export function table(
  print: (line: string) => void,
  header: readonly string[],
  rows: ReadonlyArray<ReadonlyArray<string | number | null>>,
  indent = '  ',
): void {
  const cells = [header, ...rows.map((row) => row.map((cell) => (cell === null ? '-' : String(cell))))];
  const widths = header.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)));
  for (const row of cells)
    print(
      `${indent}${row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd()}`,
    );
}

/**
 * What every demo opens with: a fresh emulator, Acme Alimentos (root 11222333) with `company` options, a client
 * that narrates and one that does not, steps (each printed under a blank line once `pacer`, if any, lets it run),
 * and a fresh idempotency key per request.
 */
export function scene(
  print: (line: string) => void,
  pacer: DemoPacer | undefined,
  keyPrefix: string,
  company: CompanyOptions = {},
) {
  const emu = createEmulator();
  const acme = emu.companies.create({ cnpjRoot: '11222333', name: 'Acme Alimentos', ...company });
  pacer?.begin(emu);
  let keys = 0;
  let steps = 0;
  return {
    emu,
    company: acme,
    api: narratedClient(emu, acme.token, print),
    quiet: narratedClient(emu, acme.token, () => undefined),
    step: async (text: string): Promise<void> => {
      await pacer?.step(++steps, text);
      print(`\n${text}`);
    },
    key: () => `${keyPrefix}-${String(++keys).padStart(6, '0')}`,
  };
}
