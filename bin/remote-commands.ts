/**
 * The commands that drive a running server through its controls: `clock`, `fault`, `events`, `report` (and
 * `logs tail`, in logs-tail.ts). Each reads its own flags, calls one control (two for some) by its id, and prints
 * what happened in a line or a few, or the server's answer with --json. What the server refuses, it refuses: the
 * rules live in the controls, and their refusal (its `mensagem`) is the one line a refusal prints. What the server
 * answers is its control's answer or the command exits 2 (remote-client.ts call); what is printed of it is escaped
 * as the log escapes a value (shown; --json: jsonLine).
 */
import { parseArgs } from 'node:util';
import { call, COMMON_FLAGS, readFlags, remoteOf, usageError, type Io, type Options } from './remote-client.js';
import { runLogsTail } from './logs-tail.js';
import { jsonLine, shown } from './log-format.js';
import { actionOf, namedActions, type RemoteCommand } from './remote-actions.js';
import { alternatives } from './suggest.js';
import { formatReport, type Report } from '../src/index.js';

export type { RemoteCommand } from './remote-actions.js';

/** `args` read with the common flags and `options`. */
const read = <O extends Options>(args: string[], options: O) => readFlags(() => parseArgs({ args, options: { ...COMMON_FLAGS, ...options }, allowPositionals: true, strict: true }), [...Object.keys(COMMON_FLAGS), ...Object.keys(options)]);

/** Runs `command` with `args`; resolves to its exit code (a CommandExit is printed and exits by the caller). */
export async function runRemote(command: RemoteCommand, args: string[], io: Io): Promise<number> {
  switch (command) {
    case 'clock':
      return clockCommand(args, io);
    case 'fault':
      return faultCommand(args, io);
    case 'events':
      return eventsCommand(args, io);
    case 'logs':
      return runLogsTail(args, io);
    case 'report':
      return reportCommand(args, io);
  }
}

/** A positional argument beyond those a command takes is a usage error. */
function noMore(rest: readonly string[], usage: string): void {
  if (rest.length > 0) throw usageError(`unexpected argument "${rest[0]}" (${usage})`);
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

// ---- clock ---------------------------------------------------------------------------------------------------------

const CLOCK_USAGE = 'clock [advance DURATION | advance --to ISO | run-until-idle [--limit N]] [--company ID]';

async function clockCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = read(args, { to: { type: 'string' }, company: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean' } });
  const remote = remoteOf(values, io.env);
  const [word, ...rest] = positionals;
  const action = actionOf('clock', word);
  if (action === undefined) {
    const actions = alternatives(namedActions('clock'));
    throw usageError(`clock takes ${actions}, or nothing to show the clock (got "${word}")`);
  }
  // The shared clock, or a company's own: the same three controls under its path.
  const own = values.company === undefined ? undefined : { companyId: nonEmpty(values.company, '--company') };
  const ids =
    own === undefined
      ? ({ get: 'getClock', advance: 'advanceClock', run: 'runUntilIdle' } as const)
      : ({ get: 'getOwnClock', advance: 'advanceOwnClock', run: 'runUntilIdleOwnClock' } as const);
  const whose = own === undefined ? '' : ` (company ${own.companyId}'s own clock)`;
  if (action !== 'advance' && values.to !== undefined) throw usageError(`--to is an option of clock advance (${CLOCK_USAGE})`);
  if (action !== 'run-until-idle' && values.limit !== undefined) throw usageError(`--limit is an option of clock run-until-idle (${CLOCK_USAGE})`);
  let run: { now: string; ran: number };
  switch (action) {
    case '': {
      type Info = { now: string; mode: string; pending: number; deadlines: number };
      const info = (await call(remote, ids.get, { params: own })) as Info;
      if (values.json) return printJson(io, info);
      const work = `${plural(info.pending, 'task')} of work pending, ${plural(info.deadlines, 'deadline')} scheduled`;
      io.out(`${shown(info.now)}, ${info.mode} clock${whose}: ${work}`);
      return 0;
    }
    case 'advance': {
      const [by, ...extra] = rest;
      noMore(extra, CLOCK_USAGE);
      if ((by === undefined) === (values.to === undefined)) throw usageError(`clock advance takes a duration (90s, 15m, 24h, 1d, 1h30m, or milliseconds) or --to ISO, one of them (${CLOCK_USAGE})`);
      const body = by === undefined ? { to: values.to } : { by: /^\d+$/.test(by) ? Number(by) : by };
      run = (await call(remote, ids.advance, { params: own, body })) as typeof run;
      break;
    }
    case 'run-until-idle':
      noMore(rest, CLOCK_USAGE);
      const body = values.limit === undefined ? {} : { limit: wholeNumber(values.limit, '--limit') };
      run = (await call(remote, ids.run, { params: own, body })) as typeof run;
      break;
    default:
      return action satisfies never;
  }
  if (values.json) return printJson(io, run);
  io.out(`now ${shown(run.now)}${whose}: ran ${plural(run.ran, 'task')}`);
  return 0;
}

// ---- fault ---------------------------------------------------------------------------------------------------------

const FAULT_USAGE = 'fault add [options] | fault list [--company ID] | fault near-misses ID [--company ID] | fault remove ID | fault remove --all [--company ID]';

/** The flags of `fault add` that are the fault's effect: each its effect field, and how its value is read. */
const EFFECT_FLAGS = {
  status: ['status', 'integer'],
  'lose-response': ['loseResponse', 'flag'],
  'concurrent-edit': ['concurrentEdit', 'flag'],
  'delay-ms': ['delayMs', 'integer'],
  'malformed-json': ['malformedJson', 'flag'],
  reset: ['reset', 'flag'],
  truncate: ['truncate', 'flag'],
  'trickle-ms': ['trickleMs', 'integer'],
  redirect: ['redirect', 'text'],
  timeout: ['timeout', 'flag'],
  refuse: ['refuse', 'flag'],
  'latency-ms': ['latencyMs', 'integer'],
  duplicate: ['duplicate', 'flag'],
  tamper: ['tamper', 'text'],
  fail: ['fail', 'flag'],
} as const;
type EffectFlag = keyof typeof EFFECT_FLAGS;

/** The flags of `fault add` that are its match: each its match field. */
const MATCH_FLAGS = { method: 'method', path: 'path', 'match-url': 'url', 'event-type': 'eventType', kind: 'kind', company: 'companyId' } as const;

const FAULT_ADD_OPTIONS = {
  target: { type: 'string' },
  ...Object.fromEntries(Object.keys(MATCH_FLAGS).map((flag) => [flag, { type: 'string' }])),
  ...Object.fromEntries(Object.entries(EFFECT_FLAGS).map(([flag, [, kind]]) => [flag, { type: kind === 'flag' ? 'boolean' : 'string' }])),
  'retry-after': { type: 'string' },
  times: { type: 'string' },
  probability: { type: 'string' },
  json: { type: 'string' },
  all: { type: 'boolean' },
} as const satisfies Options;

/** The flags of fault's actions that take a value (--json of fault add aside: it is --json of the others too). */
const VALUED = new Set(Object.entries({ ...COMMON_FLAGS, ...FAULT_ADD_OPTIONS }).flatMap(([flag, { type }]) => (type === 'string' && flag !== 'json' ? [`--${flag}`] : [])));

/** The action of `fault ARGS`: its first word that is neither a flag nor the value of the flag before it. */
function faultAction(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('-')) return arg;
    if (VALUED.has(arg) || (arg === '--json' && /^\s*[{[]/.test(args[i + 1] ?? ''))) i++;
  }
  return undefined;
}

async function faultCommand(args: string[], io: Io): Promise<number> {
  const word = faultAction(args);
  const action = actionOf('fault', word);
  if (action === undefined) {
    const actions = alternatives(namedActions('fault'));
    throw usageError(word === undefined ? `fault needs ${actions} (${FAULT_USAGE})` : `fault takes ${actions} (got "${word}")`);
  }
  if (action === 'add') return faultAdd(args, io);
  const { values, positionals } = read(args, { company: { type: 'string' }, all: { type: 'boolean' }, json: { type: 'boolean' } });
  const remote = remoteOf(values, io.env);
  const rest = positionals.slice(positionals.indexOf(action) + 1);
  const company = values.company === undefined ? undefined : nonEmpty(values.company, '--company');
  const query = company === undefined ? undefined : `companyId=${encodeURIComponent(company)}`;
  if (action !== 'remove' && values.all) throw usageError('--all is an option of fault remove');
  switch (action) {
    case 'list': {
      noMore(rest, FAULT_USAGE);
      const { items } = (await call(remote, 'listFaults', { query })) as { items: FaultView[] };
      if (values.json) return printJson(io, { items });
      if (items.length === 0) io.out(values.company === undefined ? 'no faults' : `no faults for company ${values.company}`);
      for (const fault of items) io.out(faultLine(fault));
      const unfired = items.filter((fault) => fault.hits === 0).map((fault) => shown(fault.id));
      if (unfired.length > 0) io.out(`${oneOf(unfired)} ${unfired.length === 1 ? 'has' : 'have'} not fired: "catalog-emulator fault near-misses ID" shows what came closest, and what each missed`);
      return 0;
    }
    case 'near-misses': {
      const [id, ...extra] = rest;
      noMore(extra, FAULT_USAGE);
      if (id === undefined) throw usageError(`fault near-misses takes a fault's id (${FAULT_USAGE})`);
      const near = (await call(remote, 'getFaultNearMisses', { params: { id }, query })) as NearMisses;
      if (values.json) return printJson(io, near);
      for (const line of nearMissLines(near, values.company)) io.out(line);
      return 0;
    }
    case 'remove': {
      const [id, ...extra] = rest;
      noMore(extra, FAULT_USAGE);
      if ((values.all === true) === (id !== undefined)) throw usageError(`fault remove takes a fault's id or --all, one of them (${FAULT_USAGE})`);
      if (values.json) throw usageError('fault remove prints one line: --json is an option of fault list and of the other commands');
      if (id !== undefined) {
        if (values.company !== undefined) throw usageError('--company goes with fault remove --all (a fault id names one fault)');
        await call(remote, 'removeFault', { params: { id } });
        io.out(`removed fault ${id}`);
        return 0;
      }
      await call(remote, 'clearFaults', { query });
      io.out(values.company === undefined ? 'removed every fault' : `removed every fault of company ${values.company}`);
      return 0;
    }
    default:
      return action satisfies never;
  }
}

/** A fault as the controls list it. */
interface FaultView {
  readonly id: string;
  readonly target: string;
  readonly match: Readonly<Record<string, unknown>>;
  readonly effect: Readonly<Record<string, unknown>>;
  readonly times: number | null;
  readonly hits?: number;
  readonly probability?: number;
}

const pairs = (object: Readonly<Record<string, unknown>>) =>
  Object.entries(object)
    .map(([name, value]) => `${name}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' ');

/** `flt_1 api method=GET path=/v1/empresa → status=503, 2 left, 1 hit`. */
function faultLine(fault: FaultView): string {
  const left = fault.times === null ? 'until removed' : `${fault.times} left`;
  const chance = fault.probability === undefined ? '' : `, probability ${fault.probability}`;
  const hits = fault.hits === undefined ? '' : `, ${plural(fault.hits, 'hit')}`;
  const match = pairs(fault.match) || 'any';
  return shown(`${fault.id} ${fault.target} ${match} → ${pairs(fault.effect)}, ${left}${chance}${hits}`);
}

/** A fault's near-misses as the control answers them (src/engine/near-misses.ts). */
interface NearMisses {
  readonly fault: FaultView;
  readonly examined: number;
  readonly passedOver: number;
  readonly candidates: readonly NearMiss[];
}

interface NearMiss {
  readonly failed: readonly string[];
  readonly matched: readonly string[];
  readonly companyId: string | null;
  readonly [field: string]: unknown;
}

/** What a fault was checked against, by its target: requests, deliveries or job runs. */
const OCCURRENCES: Readonly<Record<string, [one: string, many: string]>> = { api: ['request', 'requests'], delivery: ['delivery attempt', 'delivery attempts'], job: ['job run', 'job runs'] };

/**
 * The fault, how many occurrences it missed since it was armed, and the closest, each on a line with what it failed
 * and what it met below. What the client sent (a path, a URL) is escaped: it reaches a terminal.
 */
function nearMissLines(near: NearMisses, company: string | undefined): string[] {
  const [one, many] = OCCURRENCES[near.fault.target] ?? ['occurrence', 'occurrences'];
  const whose = company === undefined ? '' : ` of company ${company}`;
  const passed = near.passedOver === 0 ? '' : `; its probability's draw passed over ${plural(near.passedOver, 'match', 'matches')}`;
  const lines = [faultLine(near.fault)];
  if (near.examined === 0) return [...lines, `no ${one}${whose} since it was armed${passed}: it has had nothing to fire on`];
  lines.push(`${plural(near.examined, one, many)}${whose} since it was armed, none fired it${passed}; the closest:`);
  for (const candidate of near.candidates) {
    lines.push(`  ${shown(occurrenceLine(candidate))}`);
    lines.push(`    failed: ${shown(candidate.failed.join('; '))}`);
    if (candidate.matched.length > 0) lines.push(`    met: ${shown(candidate.matched.join('; '))}`);
  }
  return lines;
}

/** A request (`2026-…Z POST /v1/catalogos → 422, company …`), a delivery attempt or a job run. */
function occurrenceLine(c: NearMiss): string {
  const company = c.companyId === null ? 'no company' : `company ${c.companyId}`;
  if (typeof c.requestId === 'string') return `${String(c.at)} ${String(c.method)} ${String(c.path)} → ${String(c.status)}, ${company}, request ${c.requestId}`;
  if (typeof c.url === 'string') return `${String(c.eventType)} ${c.eventId === null ? '' : `${String(c.eventId)} `}attempt ${String(c.attempt ?? '?')} → ${c.url}, ${company}`;
  return `${c.at === null ? '' : `${String(c.at)} `}${String(c.kind)}${c.subjectId === null ? '' : ` ${String(c.subjectId)}`}, ${c.companyId === null ? 'the whole emulator' : company}`;
}

/** "a", "a and b", "a, b and c". */
function oneOf(items: readonly string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

async function faultAdd(args: string[], io: Io): Promise<number> {
  const { values, positionals } = read(args, FAULT_ADD_OPTIONS);
  const remote = remoteOf(values, io.env);
  noMore(positionals.slice(positionals.indexOf('add') + 1), FAULT_USAGE);
  if (values.all) throw usageError('--all is an option of fault remove');
  const flags = values as Record<string, string | boolean | undefined>;
  const shaped = ['target', 'retry-after', 'times', 'probability', ...Object.keys(MATCH_FLAGS), ...Object.keys(EFFECT_FLAGS)].filter((flag) => flags[flag] !== undefined);
  let fault: Record<string, unknown>;
  if (values.json !== undefined) {
    if (shaped.length > 0) throw usageError(`--json is the whole fault: give --${shaped[0]} inside it, not beside it`);
    try {
      fault = JSON.parse(values.json) as Record<string, unknown>;
    } catch (error) {
      throw usageError(`--json must be a fault as JSON, e.g. '{"target":"api","effect":{"status":503}}' (${(error as Error).message})`);
    }
  } else {
    const effects = (Object.keys(EFFECT_FLAGS) as EffectFlag[]).filter((flag) => flags[flag] !== undefined && flags[flag] !== false);
    if (effects.length !== 1) {
      const named = Object.keys(EFFECT_FLAGS).map((flag) => `--${flag}`).join(', ');
      throw usageError(effects.length === 0 ? `fault add needs an effect: one of ${named} (or the whole fault as --json)` : `fault add takes one effect (got --${effects.join(' and --')})`);
    }
    const flag = effects[0]!;
    const [field, kind] = EFFECT_FLAGS[flag];
    const raw = flags[flag];
    const effect: Record<string, unknown> = { [field]: kind === 'flag' ? true : kind === 'integer' ? wholeNumber(String(raw), `--${flag}`) : raw };
    if (values['retry-after'] !== undefined) {
      if (flag !== 'status') throw usageError('--retry-after goes with --status');
      effect.retryAfter = wholeNumber(values['retry-after'], '--retry-after');
    }
    const match = Object.fromEntries(Object.entries(MATCH_FLAGS).flatMap(([name, field]) => (flags[name] === undefined ? [] : [[field, flags[name]]])));
    fault = { target: values.target ?? 'api', match, effect };
    if (values.times !== undefined) fault.times = values.times === 'forever' ? null : wholeNumber(values.times, '--times', 'forever');
    if (values.probability !== undefined) fault.probability = number(values.probability, '--probability');
  }
  const added = (await call(remote, 'addFault', { body: fault })) as { id: string };
  // Its whole view (the method in upper case, the defaults filled in), unless it is spent already.
  const { items } = (await call(remote, 'listFaults')) as { items: FaultView[] };
  const view = items.find((f) => f.id === added.id);
  if (view === undefined) io.out(`added fault ${shown(added.id)} (already spent)`);
  else {
    const { hits: _hits, ...fresh } = view;
    io.out(`added fault ${faultLine(fresh)}`);
  }
  return 0;
}

// ---- events --------------------------------------------------------------------------------------------------------

const EVENTS_USAGE = 'events trigger --company ID --type TYPE [--data JSON]';

async function eventsCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = read(args, { company: { type: 'string' }, type: { type: 'string' }, data: { type: 'string' }, json: { type: 'boolean' } });
  const remote = remoteOf(values, io.env);
  const [word, ...rest] = positionals;
  const action = actionOf('events', word);
  if (action === undefined) {
    const actions = alternatives(namedActions('events'));
    throw usageError(
      word === undefined ? `events needs ${actions} (${EVENTS_USAGE})` : `events takes ${actions} (got "${word}")`,
    );
  }
  action satisfies 'trigger';
  noMore(rest, EVENTS_USAGE);
  const company = nonEmpty(values.company, '--company', `events trigger needs --company ID: the company whose webhook destination gets the event (${EVENTS_USAGE})`);
  const type = nonEmpty(values.type, '--type', `events trigger needs --type TYPE, e.g. webhook.teste or catalogo.aplicado (${EVENTS_USAGE})`);
  let data: Record<string, unknown> = {};
  if (values.data !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(values.data);
    } catch (error) {
      throw usageError(`--data must be a JSON object, the event's fields, e.g. '{"catalogoId":"…"}' (${(error as Error).message})`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw usageError(`--data must be a JSON object, the event's fields (got ${values.data})`);
    data = parsed as Record<string, unknown>;
    if (data.tipo !== undefined && data.tipo !== type) throw usageError(`--data names tipo ${JSON.stringify(data.tipo)}, not --type ${type}`);
  }
  const body = { dados: { ...data, tipo: type } };
  const raised = (await call(remote, 'raiseEvent', { params: { companyId: company }, body })) as { eventId: string };
  if (values.json) return printJson(io, raised);
  const eventId = shown(raised.eventId);
  io.out(`raised ${type} event ${eventId} for company ${company}: delivered as the clock runs its attempts`);
  return 0;
}

// ---- report --------------------------------------------------------------------------------------------------------

/** The report control (GET /_emulator/report), which servers older than it lack. */
const REPORT = { name: 'report', control: 'GET /_emulator/report' } as const;

async function reportCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = read(args, { json: { type: 'boolean' } });
  const remote = remoteOf(values, io.env);
  // It takes no word: only the command alone is one of its actions.
  const action = positionals.length === 0 ? actionOf('report', undefined) : undefined;
  if (action === undefined) throw usageError(`unexpected argument "${positionals[0]}" (report [--json])`);
  action satisfies '';
  const report = (await call(remote, 'getReport', { feature: REPORT })) as Report;
  if (values.json) return printJson(io, report);
  // As Markdown, which reads well in a terminal too; each text of the server's in it escaped, one line.
  io.out(formatReport(escapedStrings(report) as Report).replace(/\n$/, ''));
  return 0;
}

/** `value` with each of its strings, at any depth, as the log shows a value (shown). */
function escapedStrings(value: unknown): unknown {
  if (typeof value === 'string') return shown(value);
  if (Array.isArray(value)) return value.map(escapedStrings);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, escapedStrings(item)]));
}

// ---- helpers -------------------------------------------------------------------------------------------------------

/** The server's answer on one line: JSON with every control character escaped (jsonLine). */
function printJson(io: Io, value: unknown): number {
  io.out(jsonLine(value));
  return 0;
}

function nonEmpty(value: string | undefined, flag: string, missing?: string): string {
  if (value === undefined) throw usageError(missing ?? `${flag} needs a value`);
  if (value.trim() === '') throw usageError(`${flag} needs a value`);
  return value;
}

function wholeNumber(value: string, flag: string, or?: string): number {
  if (!/^\d+$/.test(value)) throw usageError(`${flag} must be a whole number${or === undefined ? '' : ` or ${or}`} (got "${value}")`);
  return Number(value);
}

function number(value: string, flag: string): number {
  if (!/^\d*\.?\d+$/.test(value)) throw usageError(`${flag} must be a number (got "${value}")`);
  return Number(value);
}
