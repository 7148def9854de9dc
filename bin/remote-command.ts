/**
 * What the commands for a running server (clock, fault, events, logs, report) share: reading their flags (the
 * common ones, remote-client.ts COMMON_FLAGS, and their own), checking a value, printing the server's answer with
 * --json, and the section of the usage text about the common flags and the exit codes.
 */
import { parseArgs } from 'node:util';
import { jsonLine } from './log-format.js';
import { REMOTE_COMMANDS } from './remote-actions.js';
import { COMMON_FLAGS, readFlags, usageError, type Io, type Options } from './remote-client.js';

type Read<O extends Options> = typeof parseArgs<{
  args: string[];
  options: typeof COMMON_FLAGS & O;
  allowPositionals: true;
  strict: true;
}>;

/** `args` read with the common flags and `options`; a usage error for an unknown or malformed flag. */
export function read<O extends Options>(args: string[], options: O): ReturnType<Read<O>> {
  const all = { ...COMMON_FLAGS, ...options };
  return readFlags(() => parseArgs({ args, options: all, allowPositionals: true, strict: true }), Object.keys(all));
}

/** A positional argument beyond those a command takes is a usage error. */
export function noMore(rest: readonly string[], usage: string): void {
  if (rest.length > 0) throw usageError(`unexpected argument "${rest[0]}" (${usage})`);
}

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** "a", "a and b", "a, b and c". */
export function allOf(items: readonly string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** The server's answer on one line: JSON with every control character escaped (jsonLine). */
export function printJson(io: Io, value: unknown): number {
  io.out(jsonLine(value));
  return 0;
}

export function nonEmpty(value: string | undefined, flag: string, missing?: string): string {
  if (value === undefined) throw usageError(missing ?? `${flag} needs a value`);
  if (value.trim() === '') throw usageError(`${flag} needs a value`);
  return value;
}

export function wholeNumber(value: string, flag: string, or?: string): number {
  if (!/^\d+$/.test(value))
    throw usageError(`${flag} must be a whole number${or === undefined ? '' : ` or ${or}`} (got "${value}")`);
  return Number(value);
}

export function number(value: string, flag: string): number {
  if (!/^\d*\.?\d+$/.test(value)) throw usageError(`${flag} must be a number (got "${value}")`);
  return Number(value);
}

/** The usage text's section of the flags every one of these commands takes, and of their exit codes. */
export const REMOTE_SHARED_HELP = `Options of ${allOf(REMOTE_COMMANDS)} (the commands for a running server):
  --url URL           the server (default http://127.0.0.1:4747); also read from
                      CATALOG_EMULATOR_URL (the flag wins)
  --control-token T   its control token; also read from CATALOG_EMULATOR_CONTROL_TOKEN
  --request-timeout-ms N
                      the time each request may take, to its answer's last byte (default 30000)
Exit codes of these: 0 done (logs tail: stopped by Ctrl+C, SIGTERM or its reader closing stdout), 1
the server refused (the line is its message), or ended the stream logs tail follows, 2 bad usage, or
no catalog-emulator was reached at the URL: nothing answered, or what did is not the emulator's
answer (a redirect, a body over 16 MiB, not the control's answer; the line names it and why).`;
