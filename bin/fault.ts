/**
 * `catalog-emulator fault add|list|near-misses|remove`: a running server's faults. The flags of an effect are the
 * fault schema's own (faultEffects): each field of an effect is a flag in kebab case (`loseResponse` is
 * --lose-response, the optional `retryAfter` of `status` is --retry-after), read as the field's kind of value says,
 * and the help lists them by target. An effect added to the schema is a flag and a part of the help with no edit
 * here; what its value may be is the server's to check, as for every flag of the command.
 */
import { faultEffects, type FaultEffect, type FaultEffectValue } from '../src/index.js';
import type { CommandHelp } from './help.js';
import { shown } from './log-format.js';
import { actionOf, namedActions } from './remote-actions.js';
import { call, COMMON_FLAGS, remoteOf, usageError, type Io, type Options } from './remote-client.js';
import { allOf, noMore, nonEmpty, number, plural, printJson, read, wholeNumber } from './remote-command.js';
import { alternatives } from './suggest.js';

const FAULT_USAGE =
  'fault add [options] | fault list [--company ID] | fault near-misses ID [--company ID] | fault remove ID | fault remove --all [--company ID]';

/** Its lines of the Usage block, and its options, whose effects are the schema's (effectHelp). */
export const FAULT_HELP: CommandHelp = {
  usage: `  catalog-emulator fault add|list|near-misses|remove [options]
                                       inject, list, explain or remove a running server's faults`,
  get options() {
    return `Options of fault:
  add                 inject one: an effect, a match, --times, --skip, --probability, for --target api
                      (the default), delivery or job
${effectHelp(faultEffects())}
    match             api: --method M, --path GLOB; delivery: --match-url GLOB, --event-type T;
                      job: --kind K; any: --company ID
    --times N|forever the firings before it is spent (default 1)
    --skip N          the matching occurrences it lets pass before it may fire (default 0: --skip 2
                      fires on the third)
    --probability P   the chance that each matching occurrence fires (default 1)
    --json FAULT      the whole fault as JSON instead, e.g. '{"target":"api","effect":{"status":503}}'
  list [--company ID] the faults in force, with the firings left and hits (--json: as JSON)
  near-misses ID [--company ID]
                      why a fault has not fired: the requests (deliveries, job runs) since it was
                      armed that came closest, what each failed and met (--company: that
                      company's only; --json: as JSON)
  remove ID           remove one fault
  remove --all [--company ID]
                      remove every fault (of that company)`;
  },
};

/** The flags of `fault add` that are its match: each its match field. */
const MATCH_FLAGS = {
  method: 'method',
  path: 'path',
  'match-url': 'url',
  'event-type': 'eventType',
  kind: 'kind',
  company: 'companyId',
} as const;

/** The flags of `fault add` besides its effect's: its target, its match, how often it fires, or all of it as --json. */
const TARGET_FLAG = { target: { type: 'string' } } as const;
const MATCH_OPTIONS = Object.fromEntries(Object.keys(MATCH_FLAGS).map((flag) => [flag, { type: 'string' }])) as Options;
const LAST_FLAGS = {
  times: { type: 'string' },
  skip: { type: 'string' },
  probability: { type: 'string' },
  json: { type: 'string' },
  all: { type: 'boolean' },
} as const;

/** A flag made of a field of an effect: the field, and how the flag reads its value. */
interface EffectFlag {
  readonly field: string;
  readonly reads: 'switch' | 'integer' | 'text';
}

/** A flag of an optional field of an effect (--retry-after), and the flags of the effects that take it. */
interface OptionFlag extends EffectFlag {
  readonly with: string[];
}

/** The flags of `fault add` made of the effects: those that name one, and those of their optional fields. */
export interface EffectFlags {
  readonly effects: ReadonlyMap<string, EffectFlag>;
  readonly options: ReadonlyMap<string, OptionFlag>;
}

/** `loseResponse` → `lose-response`. */
const flagOf = (field: string): string => field.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

/** How a flag reads a value of this kind: `true` is a switch, a whole number is checked here, text is the server's. */
const readsOf = ({ kind }: FaultEffectValue): EffectFlag['reads'] =>
  kind === 'true' ? 'switch' : kind === 'integer' ? 'integer' : 'text';

const READ_AS = { switch: 'no value', integer: 'a whole number', text: 'text' } as const;

/**
 * The flags of `effects`, in their order, each once: the same field in two targets is one flag (--status of api and
 * delivery), read the same way in both. An error for a field that cannot be a flag: one read two ways, one that
 * would both name an effect and be an option of one, or one named as another flag of the command.
 */
export function effectFlags(effects: readonly FaultEffect[]): EffectFlags {
  const named = new Map<string, EffectFlag>();
  const options = new Map<string, OptionFlag>();
  const taken = new Set(Object.keys({ ...COMMON_FLAGS, ...TARGET_FLAG, ...MATCH_OPTIONS, ...LAST_FLAGS }));
  type Reads = EffectFlag['reads'];
  const refuse = (target: string, field: string, reads: Reads, same: EffectFlag | undefined, other: boolean) => {
    const flag = flagOf(field);
    const why = taken.has(flag)
      ? `--${flag} is another flag of fault add`
      : other
        ? `--${flag} would both name an effect and be an option of one`
        : same !== undefined && same.reads !== reads
          ? `--${flag} would read ${READ_AS[same.reads]} for one target and ${READ_AS[reads]} for another`
          : undefined;
    if (why !== undefined) throw new Error(`the ${target} effect field ${field} cannot be a flag of fault add: ${why}`);
  };
  for (const { target, field, value } of effects) {
    const flag = flagOf(field);
    refuse(target, field, readsOf(value), named.get(flag), false);
    if (!named.has(flag)) named.set(flag, { field, reads: readsOf(value) });
  }
  for (const effect of effects) {
    for (const { field, value } of effect.options) {
      const flag = flagOf(field);
      refuse(effect.target, field, readsOf(value), options.get(flag), named.has(flag));
      const option = options.get(flag) ?? { field, reads: readsOf(value), with: [] };
      options.set(flag, option);
      if (!option.with.includes(flagOf(effect.field))) option.with.push(flagOf(effect.field));
    }
  }
  return { effects: named, options };
}

/** The usage text's width, which the lines of the effects wrap at. */
const WIDTH = 100;

/** A flag as the help writes it: `--trickle-ms N`, `--retry-after S` (seconds), `--redirect URL`, `--tamper a|b`. */
function flagUsage({ field, value }: { field: string; value: FaultEffectValue }): string {
  const flag = `--${flagOf(field)}`;
  switch (value.kind) {
    case 'true':
      return flag;
    case 'integer':
      return `${flag} ${value.unit === 's' ? 'S' : 'N'}`;
    case 'url':
      return `${flag} URL`;
    case 'choice':
      return `${flag} ${value.choices.join('|')}`;
  }
}

/**
 * The help's lines of the effects: each target's flags (an optional field's in brackets after its effect's), the
 * target on a line of its own, wrapped at WIDTH under the column of the descriptions.
 */
export function effectHelp(effects: readonly FaultEffect[]): string {
  const indent = ' '.repeat(22);
  const targets = [...new Set(effects.map((effect) => effect.target))];
  const lines = targets.map((target, t) => {
    const items = effects
      .filter((effect) => effect.target === target)
      .map((effect) => [flagUsage(effect), ...effect.options.map((option) => `[${flagUsage(option)}]`)].join(' '));
    // Items end with a comma, the last of a target with a semicolon, the last of all with nothing.
    const end = (i: number) => (i < items.length - 1 ? ',' : t < targets.length - 1 ? ';' : '');
    const words = [`${target}:`, ...items.map((item, i) => `${item}${end(i)}`)];
    const wrapped = [indent];
    for (const word of words) {
      const line = wrapped.at(-1)!;
      if (line.length > indent.length && line.length + 1 + word.length > WIDTH) wrapped.push(`${indent}${word}`);
      else wrapped[wrapped.length - 1] = line.length === indent.length ? `${line}${word}` : `${line} ${word}`;
    }
    return wrapped.join('\n');
  });
  return `    effect${lines.join('\n').slice('    effect'.length)}`;
}

/** The flags of `fault add`, made once the command runs: an effect's from the schema, between the others. */
interface AddFlags {
  readonly effects: EffectFlags;
  readonly options: Options;
  /** The flags of fault's actions that take a value (--json of fault add aside: it is --json of the others too). */
  readonly valued: ReadonlySet<string>;
}

let addFlags: AddFlags | undefined;

function faultAddFlags(): AddFlags {
  if (addFlags !== undefined) return addFlags;
  const effects = effectFlags(faultEffects());
  const type = ({ reads }: EffectFlag) => ({ type: reads === 'switch' ? 'boolean' : 'string' }) as const;
  const options: Options = {
    ...TARGET_FLAG,
    ...MATCH_OPTIONS,
    ...Object.fromEntries([...effects.effects].map(([flag, effect]) => [flag, type(effect)])),
    ...Object.fromEntries([...effects.options].map(([flag, option]) => [flag, type(option)])),
    ...LAST_FLAGS,
  };
  const all = Object.entries({ ...COMMON_FLAGS, ...options });
  const valued = new Set(
    all.flatMap(([flag, { type }]) => (type === 'string' && flag !== 'json' ? [`--${flag}`] : [])),
  );
  return (addFlags = { effects, options, valued });
}

/** The action of `fault ARGS`: its first word that is neither a flag nor the value of the flag before it. */
function faultAction(args: readonly string[]): string | undefined {
  const { valued } = faultAddFlags();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('-')) return arg;
    if (valued.has(arg) || (arg === '--json' && /^\s*[{[]/.test(args[i + 1] ?? ''))) i++;
  }
  return undefined;
}

export async function faultCommand(args: string[], io: Io): Promise<number> {
  const word = faultAction(args);
  const action = actionOf('fault', word);
  if (action === undefined) {
    const actions = alternatives(namedActions('fault'));
    throw usageError(
      word === undefined ? `fault needs ${actions} (${FAULT_USAGE})` : `fault takes ${actions} (got "${word}")`,
    );
  }
  if (action === 'add') return faultAdd(args, io);
  const { values, positionals } = read(args, {
    company: { type: 'string' },
    all: { type: 'boolean' },
    json: { type: 'boolean' },
  });
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
      if (items.length === 0)
        io.out(values.company === undefined ? 'no faults' : `no faults for company ${values.company}`);
      for (const fault of items) io.out(faultLine(fault));
      const unfired = items.filter((fault) => fault.hits === 0).map((fault) => shown(fault.id));
      if (unfired.length > 0)
        io.out(
          `${allOf(unfired)} ${unfired.length === 1 ? 'has' : 'have'} not fired: "catalog-emulator fault near-misses ID" shows what came closest, and what each missed`,
        );
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
      if ((values.all === true) === (id !== undefined))
        throw usageError(`fault remove takes a fault's id or --all, one of them (${FAULT_USAGE})`);
      if (values.json)
        throw usageError('fault remove prints one line: --json is an option of fault list and of the other commands');
      if (id !== undefined) {
        if (values.company !== undefined)
          throw usageError('--company goes with fault remove --all (a fault id names one fault)');
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
  readonly skip?: number;
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
  const skip =
    fault.skip === undefined || fault.skip === 0
      ? ''
      : `, lets ${plural(fault.skip, 'more match', 'more matches')} pass first`;
  const chance = fault.probability === undefined ? '' : `, probability ${fault.probability}`;
  const hits = fault.hits === undefined ? '' : `, ${plural(fault.hits, 'hit')}`;
  const match = pairs(fault.match) || 'any';
  return shown(`${fault.id} ${fault.target} ${match} → ${pairs(fault.effect)}, ${left}${skip}${chance}${hits}`);
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
const OCCURRENCES: Readonly<Record<string, [one: string, many: string]>> = {
  api: ['request', 'requests'],
  delivery: ['delivery attempt', 'delivery attempts'],
  job: ['job run', 'job runs'],
};

/**
 * The fault, how many occurrences it missed since it was armed, and the closest, each on a line with what it failed
 * and what it met below. What the client sent (a path, a URL) is escaped: it reaches a terminal.
 */
function nearMissLines(near: NearMisses, company: string | undefined): string[] {
  const [one, many] = OCCURRENCES[near.fault.target] ?? ['occurrence', 'occurrences'];
  const whose = company === undefined ? '' : ` of company ${company}`;
  const passed =
    near.passedOver === 0 ? '' : `; its probability's draw passed over ${plural(near.passedOver, 'match', 'matches')}`;
  const lines = [faultLine(near.fault)];
  if (near.examined === 0)
    return [...lines, `no ${one}${whose} since it was armed${passed}: it has had nothing to fire on`];
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
  if (typeof c.requestId === 'string')
    return `${String(c.at)} ${String(c.method)} ${String(c.path)} → ${String(c.status)}, ${company}, request ${c.requestId}`;
  if (typeof c.url === 'string')
    return `${String(c.eventType)} ${c.eventId === null ? '' : `${String(c.eventId)} `}attempt ${String(c.attempt ?? '?')} → ${c.url}, ${company}`;
  return `${c.at === null ? '' : `${String(c.at)} `}${String(c.kind)}${c.subjectId === null ? '' : ` ${String(c.subjectId)}`}, ${c.companyId === null ? 'the whole emulator' : company}`;
}

/**
 * The fault `fault add` sends for its flags (`values`, as parseArgs read them with `flags`): its --json, or the one
 * its flags make. A usage error for flags that make none.
 */
export function faultOf(values: Readonly<Record<string, unknown>>, flags: EffectFlags): Record<string, unknown> {
  const given = (flag: string) => values[flag] !== undefined;
  const optionFlags = [...flags.options.keys()];
  const effectFlagNames = [...flags.effects.keys()];
  const shaped = [
    'target',
    ...optionFlags,
    'times',
    'skip',
    'probability',
    ...Object.keys(MATCH_FLAGS),
    ...effectFlagNames,
  ].filter(given);
  const json = values.json as string | undefined;
  if (json !== undefined) {
    if (shaped.length > 0) throw usageError(`--json is the whole fault: give --${shaped[0]} inside it, not beside it`);
    try {
      return JSON.parse(json) as Record<string, unknown>;
    } catch (error) {
      throw usageError(
        `--json must be a fault as JSON, e.g. '{"target":"api","effect":{"status":503}}' (${(error as Error).message})`,
      );
    }
  }
  const effects = effectFlagNames.filter((flag) => given(flag) && values[flag] !== false);
  if (effects.length !== 1) {
    const named = effectFlagNames.map((flag) => `--${flag}`).join(', ');
    throw usageError(
      effects.length === 0
        ? `fault add needs an effect: one of ${named} (or the whole fault as --json)`
        : `fault add takes one effect (got --${effects.join(' and --')})`,
    );
  }
  const flag = effects[0]!;
  const chosen = flags.effects.get(flag)!;
  const effect: Record<string, unknown> = { [chosen.field]: valueOf(values[flag], flag, chosen) };
  for (const [option, read] of flags.options) {
    if (!given(option)) continue;
    const goesWith = alternatives(read.with.map((name) => `--${name}`));
    if (!read.with.includes(flag)) throw usageError(`--${option} goes with ${goesWith}`);
    effect[read.field] = valueOf(values[option], option, read);
  }
  const match = Object.fromEntries(
    Object.entries(MATCH_FLAGS).flatMap(([name, field]) => (given(name) ? [[field, values[name]]] : [])),
  );
  const fault: Record<string, unknown> = { target: values.target ?? 'api', match, effect };
  const times = values.times as string | undefined;
  if (times !== undefined) fault.times = times === 'forever' ? null : wholeNumber(times, '--times', 'forever');
  const skip = values.skip as string | undefined;
  if (skip !== undefined) fault.skip = wholeNumber(skip, '--skip');
  const probability = values.probability as string | undefined;
  if (probability !== undefined) fault.probability = number(probability, '--probability');
  return fault;
}

/** A flag's value as its field takes it: `true` for a switch, a whole number, or the text as given. */
function valueOf(raw: unknown, flag: string, { reads }: EffectFlag): unknown {
  return reads === 'switch' ? true : reads === 'integer' ? wholeNumber(String(raw), `--${flag}`) : raw;
}

async function faultAdd(args: string[], io: Io): Promise<number> {
  const { effects, options } = faultAddFlags();
  const { values, positionals } = read(args, options);
  const remote = remoteOf(values as Parameters<typeof remoteOf>[0], io.env);
  noMore(positionals.slice(positionals.indexOf('add') + 1), FAULT_USAGE);
  if (values.all) throw usageError('--all is an option of fault remove');
  const fault = faultOf(values, effects);
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
