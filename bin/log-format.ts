/**
 * One activity entry (emu.activity) as one line of the CLI's log: `--log pretty` for people, `--log json` for
 * programs.
 *
 * Much of an entry is the client's text: the method and the path (percent-decoded), the field names an error's
 * `caminho` repeats, a webhook URL, a fault's path glob. Written raw, a %0A in a path forges a second log line and
 * a %1B[2J reaches the terminal. The pretty line escapes every character that moves the cursor, breaks the line or
 * reorders the text in each value it shows, so each entry stays one readable line, and adds its own colours only
 * after; the json line is JSON.stringify's, which escapes C0 controls, with the other characters escapeControls
 * escapes written as \u escapes too (jsonLine): the same JSON, and nothing in it a terminal acts on.
 *
 * The commands for a running server print what a server sent through the same escaping (shown, jsonLine): `logs
 * tail` an entry that came from the stream, a hostile one included.
 */
import type {
  ActivityEntry,
  ControlActivity,
  DeliveryActivity,
  FindingActivity,
  JobActivity,
  RequestActivity,
} from '../src/index.js';

export type LogFormat = 'pretty' | 'json';

/** The kinds of entry, by the names --quiet takes. */
export const LOG_KINDS = {
  requests: 'request',
  controls: 'control',
  deliveries: 'delivery',
  jobs: 'job',
  findings: 'finding',
} as const;

/** --quiet's values (comma-separated, repeatable) as the entry kinds to leave out, or why one is not a kind. */
export function quietKinds(values: readonly string[]): Set<string> | string {
  const names = Object.keys(LOG_KINDS) as (keyof typeof LOG_KINDS)[];
  const kinds = new Set<string>();
  for (const name of values.flatMap((value) => value.split(',')).map((n) => n.trim())) {
    if (!names.includes(name as keyof typeof LOG_KINDS)) return `--quiet takes ${names.join(', ')} (got "${name}")`;
    kinds.add(LOG_KINDS[name as keyof typeof LOG_KINDS]);
  }
  return kinds;
}

/** Whether an entry is the inspector page's own call (its page, files, data reads, stream, a demo's pacing): what serve leaves out of its log without --log-inspector. */
export function isInspectorOwn(entry: ActivityEntry): boolean {
  return entry.kind === 'control' && entry.scope === 'inspector';
}

export function formatActivity(entry: ActivityEntry, log: LogFormat, color = false): string {
  if (log === 'json') return jsonLine(entry);
  const paint = color ? PAINT : PLAIN;
  const head = `${paint.dim(escapeControls(entry.at))} ${paint.kind(entry.kind, entry.kind.padEnd(8))}`;
  switch (entry.kind) {
    case 'request':
      return `${head} ${request(entry, paint)}`;
    case 'control':
      return `${head} ${control(entry, paint)}`;
    case 'delivery':
      return `${head} ${delivery(entry, paint)}`;
    case 'job':
      return `${head} ${job(entry, paint)}`;
    case 'finding':
      return `${head} ${finding(entry, paint)}`;
  }
}

function request(entry: RequestActivity, paint: Paint): string {
  const flags = [
    entry.replayed ? 'replayed' : '',
    entry.faultId === null ? '' : `fault ${escapeControls(entry.faultId)}`,
    entry.durationMs > 0 ? `${entry.durationMs}ms` : '',
  ]
    .filter(Boolean)
    .join(', ');
  return `${call(entry.method, entry.path)} → ${answer(entry.status, entry.error, paint)}${flags ? ` ${paint.flag(`(${flags})`)}` : ''}`;
}

function control(entry: ControlActivity, paint: Paint): string {
  // What it did when there is something to say ("addFault: fault flt_1: …"), else just which control it was.
  const head = `${call(entry.method, entry.path)} → ${answer(entry.status, entry.error, paint)}`;
  if (entry.operation === null) return head;
  const operation = escapeControls(entry.operation);
  if (entry.detail === null) return `${head} ${paint.dim(`(${operation})`)}`;
  return `${head} ${paint.dim(operation)}: ${escapeControls(entry.detail)}`;
}

function delivery(entry: DeliveryActivity, paint: Paint): string {
  const attempt =
    entry.cycle === 1
      ? `attempt ${entry.attemptInCycle}/${entry.attemptsPerCycle}`
      : `attempt ${entry.attempt} (${entry.attemptInCycle}/${entry.attemptsPerCycle} of cycle ${entry.cycle})`;
  const status = entry.status === null ? '' : String(entry.status);
  const result = [entry.outcome, status, escapeControls(entry.failure ?? '')].filter(Boolean).join(' ');
  const next = entry.nextAttemptAt === null ? '' : `, next ${escapeControls(entry.nextAttemptAt)}`;
  const event = `${escapeControls(entry.eventType)} ${escapeControls(entry.eventId)} ${attempt}`;
  const outcome = `${paint.outcome(entry.outcome, result)} (${entry.durationMs}ms)${next}`;
  return `${event} → ${escapeControls(entry.url)}: ${outcome}`;
}

function job(entry: JobActivity, paint: Paint): string {
  return `${escapeControls(entry.task)} ${entry.subjectId === null ? '' : escapeControls(entry.subjectId)}${entry.fault === null ? '' : ` ${paint.flag(`(fault: ${entry.fault})`)}`}`;
}

function finding(entry: FindingActivity, paint: Paint): string {
  return `${paint.finding(escapeControls(entry.rule))} (${entry.statements.map(escapeControls).join(', ')}): ${escapeControls(entry.message)} Fix: ${escapeControls(entry.fix)}`;
}

const call = (method: string, path: string) => `${escapeControls(method).padEnd(6)} ${escapeControls(path)}`;

function answer(status: number, error: RequestActivity['error'], paint: Paint): string {
  const text =
    error === null
      ? String(status)
      : `${status} ${escapeControls(error.codigo)}${error.caminho === null ? '' : ` at ${escapeControls(error.caminho)}`}`;
  return paint.status(status, text);
}

interface Paint {
  dim(text: string): string;
  kind(kind: ActivityEntry['kind'], text: string): string;
  status(status: number, text: string): string;
  outcome(outcome: DeliveryActivity['outcome'], text: string): string;
  flag(text: string): string;
  finding(text: string): string;
}

const PLAIN: Paint = {
  dim: (t) => t,
  kind: (_, t) => t,
  status: (_, t) => t,
  outcome: (_, t) => t,
  flag: (t) => t,
  finding: (t) => t,
};

const sgr = (code: string) => (text: string) => `\x1b[${code}m${text}\x1b[0m`;
const dim = sgr('2');
const red = sgr('31');
const green = sgr('32');
const yellow = sgr('33');
const blue = sgr('34');
const magenta = sgr('35');
const cyan = sgr('36');
const KIND_COLOURS = { request: blue, control: magenta, delivery: cyan, job: dim, finding: red } as const;
const OUTCOME_COLOURS = { entregue: green, falhou: red, incerta: yellow } as const;

const PAINT: Paint = {
  dim,
  kind: (kind, text) => KIND_COLOURS[kind](text),
  status: (status, text) => (status >= 500 ? red : status >= 400 ? yellow : status >= 300 ? cyan : green)(text),
  outcome: (outcome, text) => OUTCOME_COLOURS[outcome](text),
  flag: magenta,
  finding: yellow,
};

/**
 * Whether the log is coloured: FORCE_COLOR (anything but "0" or "false") turns colour on, as in Node itself; else
 * NO_COLOR (any non-empty value, no-color.org) turns it off; else only a terminal gets colour.
 */
export function wantsColor(isTty: boolean, env: NodeJS.ProcessEnv): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '') return force !== '0' && force !== 'false';
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return isTty;
}

/**
 * C0 controls, DEL, C1 controls, the line and paragraph separators (U+2028, U+2029) and the bidirectional
 * controls (ALM U+061C, LRM/RLM U+200E/U+200F, embeddings and overrides U+202A–U+202E, isolates
 * U+2066–U+2069), and the backslash itself: escaped, a backslash in the log always begins an escape, so a
 * client cannot write a "\x1b" of its own that reads like one.
 */
const UNSAFE = /[\\\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;
/** Those of them JSON.stringify leaves as they are: all but the C0 controls and the backslash (UNSAFE's own source). */
const UNSAFE_IN_JSON = new RegExp(UNSAFE.source.replace('\\\\\\x00-\\x1f', ''), 'g');

/** `text` with each unsafe character as an escape: `\x1b`, `\x0a`, `\u2028`, `\\`. */
export function escapeControls(text: string): string {
  return text.replace(UNSAFE, (char) => {
    if (char === '\\') return '\\\\';
    const code = char.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** `value` as one line of JSON (JSON.stringify's), every character escapeControls escapes written as a \u escape. */
export function jsonLine(value: unknown): string {
  // JSON.stringify escapes C0 controls, the quote and the backslash; the rest of UNSAFE can only be inside a string.
  const unicode = (char: string) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
  return JSON.stringify(value).replace(UNSAFE_IN_JSON, unicode);
}

/** The most characters of one text of a server the CLI prints: an error's message, a field, an excerpt. */
export const MAX_SHOWN = 4096;

/**
 * `text` as the log shows a value (escapeControls: one line, nothing a terminal acts on), at most `max` characters:
 * a longer one is cut (never inside an escape), saying how many characters of the text were left out.
 */
export function shown(text: string, max = MAX_SHOWN): string {
  let out = '';
  let used = 0;
  for (const char of text) {
    const piece = escapeControls(char);
    if (out.length + piece.length > max) return `${out}… (${text.length - used} more characters)`;
    out += piece;
    used += char.length;
  }
  return out;
}
