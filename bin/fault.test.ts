/**
 * `fault add`'s effect flags come from the fault schema (faultEffects), not from a list of the CLI's own: every
 * effect of the schema is a flag that builds it (the schema takes what it builds), and a part of the help on its
 * target's line; an effect the schema gains is both with no edit of bin/; the flags of earlier versions still work.
 * The check of the first two is also run against a CLI that kept its own table, and catches what that table misses.
 */
import { describe, expect, it } from 'vitest';
import { createEmulator, faultEffects } from '../src/index.js';
import type { FaultEffect, FaultEffectValue, FaultInput } from '../src/index.js';
import { effectFlags, effectHelp, FAULT_HELP, faultOf, type EffectFlags } from './fault.js';

/** What a user types after a flag for a value of this kind, and what the effect's field then holds. */
function sample(value: FaultEffectValue): { readonly typed: string | true; readonly field: unknown } {
  switch (value.kind) {
    case 'true':
      return { typed: true, field: true };
    case 'integer':
      return { typed: String(value.max), field: value.max };
    case 'url':
      return { typed: 'https://hooks.example.com/moved', field: 'https://hooks.example.com/moved' };
    case 'choice':
      return { typed: value.choices.at(-1)!, field: value.choices.at(-1)! };
  }
}

/** The flag of `flags` that builds `field` (an effect's own, or an optional one's), if any. */
function flagOf(table: ReadonlyMap<string, { readonly field: string }>, field: string): string | undefined {
  return [...table].find(([, flag]) => flag.field === field)?.[0];
}

/** The part of `help` about `target`: from "target:" to the next target's name, or the end. */
function targetPart(help: string, target: string, targets: readonly string[]): string {
  const from = help.indexOf(` ${target}: `);
  if (from < 0) return '';
  const ends = targets.map((other) => help.indexOf(` ${other}: `, from + 1)).filter((at) => at > from);
  return help.slice(from, ends.length === 0 ? undefined : Math.min(...ends));
}

/**
 * What a CLI with these flags and this help misses of `effects`: an effect (or optional field) with no flag, one
 * whose flag does not build it, and one its target's part of the help does not name (an optional field in brackets).
 */
function gaps(effects: readonly FaultEffect[], flags: EffectFlags, help: string): string[] {
  const targets = [...new Set(effects.map((effect) => effect.target))];
  const found: string[] = [];
  for (const effect of effects) {
    const name = `${effect.target} ${effect.field}`;
    const part = targetPart(help, effect.target, targets);
    const flag = flagOf(flags.effects, effect.field);
    if (flag === undefined) {
      found.push(`${name}: no flag`);
      continue;
    }
    const values: Record<string, unknown> = { target: effect.target, [flag]: sample(effect.value).typed };
    const expected: Record<string, unknown> = { [effect.field]: sample(effect.value).field };
    for (const option of effect.options) {
      const optionFlag = flagOf(flags.options, option.field);
      if (optionFlag === undefined) found.push(`${name}: no flag for its ${option.field}`);
      else {
        values[optionFlag] = sample(option.value).typed;
        expected[option.field] = sample(option.value).field;
        if (!part.includes(`[--${optionFlag}`)) found.push(`${name}: --${optionFlag} not in the help`);
      }
    }
    let built: unknown;
    try {
      built = faultOf(values, flags);
    } catch (error) {
      built = (error as Error).message;
    }
    const wanted = { target: effect.target, match: {}, effect: expected };
    const shown = JSON.stringify(built);
    if (shown !== JSON.stringify(wanted)) found.push(`${name}: --${flag} builds ${shown}`);
    if (!part.includes(`--${flag}`)) found.push(`${name}: --${flag} not in the help`);
  }
  return found;
}

/** An effect the schema does not have today, as faultEffects would describe it once it had. */
const NEW_EFFECT: FaultEffect = {
  target: 'api',
  field: 'slowHeadersMs',
  value: { kind: 'integer', min: 1, max: 60_000, unit: 'ms' },
  options: [{ field: 'chunkBytes', value: { kind: 'integer', min: 1, max: 1024, unit: null } }],
};

/**
 * The CLI as it was before its flags came from the schema: its own table of effect flags (field, how the value is
 * read) and --retry-after of --status, written by hand.
 */
const HAND_WRITTEN: EffectFlags = {
  effects: new Map(
    Object.entries({
      status: ['status', 'integer'],
      'lose-response': ['loseResponse', 'switch'],
      'concurrent-edit': ['concurrentEdit', 'switch'],
      'delay-ms': ['delayMs', 'integer'],
      'malformed-json': ['malformedJson', 'switch'],
      reset: ['reset', 'switch'],
      truncate: ['truncate', 'switch'],
      'trickle-ms': ['trickleMs', 'integer'],
      redirect: ['redirect', 'text'],
      timeout: ['timeout', 'switch'],
      refuse: ['refuse', 'switch'],
      'latency-ms': ['latencyMs', 'integer'],
      duplicate: ['duplicate', 'switch'],
      tamper: ['tamper', 'text'],
      fail: ['fail', 'switch'],
    } as const).map(([flag, [field, reads]]) => [flag, { field, reads }]),
  ),
  options: new Map([['retry-after', { field: 'retryAfter', reads: 'integer', with: ['status'] }]]),
};

describe('fault add: the effect flags are the fault schema', () => {
  it('every effect of the schema is a flag that builds it, and the schema takes what it builds', () => {
    const effects = faultEffects();
    const flags = effectFlags(effects);
    const emu = createEmulator();
    // The three targets, and every kind of value a field takes.
    expect(new Set(effects.map((effect) => effect.target))).toEqual(new Set(['api', 'delivery', 'job']));
    const kinds = new Set(effects.flatMap((effect) => [effect, ...effect.options]).map(({ value }) => value.kind));
    expect(kinds).toEqual(new Set(['true', 'integer', 'url', 'choice']));
    for (const effect of effects) {
      const flag = flagOf(flags.effects, effect.field)!;
      const values: Record<string, unknown> = { target: effect.target, [flag]: sample(effect.value).typed };
      for (const option of effect.options) values[flagOf(flags.options, option.field)!] = sample(option.value).typed;
      const fault = faultOf(values, flags);
      const added = emu.faults.add(fault as FaultInput);
      expect(added, `${effect.target} --${flag}`).toEqual({ id: expect.stringMatching(/^flt_\d+$/) });
    }
    expect(emu.faults.list()).toHaveLength(effects.length);
  });

  it("every effect is a flag, named on its target's part of the help; the help's effects are effectHelp's", () => {
    const effects = faultEffects();
    expect(gaps(effects, effectFlags(effects), effectHelp(effects))).toEqual([]);
    expect(FAULT_HELP.options).toContain(`\n${effectHelp(effects)}\n`);
  });

  it('an effect the schema gains is a flag, and a part of the help, with no edit of bin/', () => {
    const effects = [...faultEffects(), NEW_EFFECT];
    const flags = effectFlags(effects);
    const help = effectHelp(effects);
    expect(gaps(effects, flags, help)).toEqual([]);
    expect(faultOf({ 'slow-headers-ms': '250', 'chunk-bytes': '16', method: 'GET' }, flags)).toEqual({
      target: 'api',
      match: { method: 'GET' },
      effect: { slowHeadersMs: 250, chunkBytes: 16 },
    });
    expect(help.split('\n')[2]).toBe('                      --slow-headers-ms N [--chunk-bytes N];');
    // Its optional field goes with it alone; its value is a whole number, as its kind says.
    const stray = { reset: true, 'chunk-bytes': '16' };
    expect(() => faultOf(stray, flags)).toThrow('--chunk-bytes goes with --slow-headers-ms');
    expect(() => faultOf({ 'slow-headers-ms': 'soon' }, flags)).toThrow(
      '--slow-headers-ms must be a whole number (got "soon")',
    );
  });

  it('the check finds what a hand-written table misses: an effect the schema gained, one the help leaves out', () => {
    const effects = [...faultEffects(), NEW_EFFECT];
    expect(gaps(effects, HAND_WRITTEN, effectHelp(effects))).toEqual(['api slowHeadersMs: no flag']);
    const withoutFail = effectHelp(faultEffects().filter((effect) => effect.field !== 'fail'));
    const flags = effectFlags(faultEffects());
    expect(gaps(faultEffects(), flags, withoutFail)).toEqual(['job fail: --fail not in the help']);
    const withoutRetryAfter = effectHelp(faultEffects().map((effect) => ({ ...effect, options: [] })));
    expect(gaps(faultEffects(), flags, withoutRetryAfter)).toEqual(['api status: --retry-after not in the help']);
  });

  it("the flags of earlier versions (a table of the CLI's own) still work, each read as it was", () => {
    const flags = effectFlags(faultEffects());
    for (const [flag, { field, reads }] of HAND_WRITTEN.effects) {
      expect(flags.effects.get(flag), flag).toEqual({ field, reads });
    }
    expect(flags.options.get('retry-after')).toEqual({ field: 'retryAfter', reads: 'integer', with: ['status'] });
    const given = { status: '503', 'retry-after': '2', times: 'forever', probability: '0.5', 'match-url': '/x/**' };
    expect(faultOf(given, flags)).toEqual({
      target: 'api',
      match: { url: '/x/**' },
      effect: { status: 503, retryAfter: 2 },
      times: null,
      probability: 0.5,
    });
    expect(() => faultOf({ reset: true, 'retry-after': '2' }, flags)).toThrow(/^--retry-after goes with --status$/);
  });

  it('refuses, as the flags are made, a field that can be no flag: read two ways, effect and option, or taken', () => {
    const effects = faultEffects();
    const twoWays: FaultEffect = { target: 'job', field: 'status', value: { kind: 'true' }, options: [] };
    expect(() => effectFlags([...effects, twoWays])).toThrow(
      'the job effect field status cannot be a flag of fault add: --status would read a whole number for one target and no value for another',
    );
    const seconds = { kind: 'integer', min: 0, max: 1, unit: 's' } as const;
    const both: FaultEffect = { target: 'job', field: 'retryAfter', value: seconds, options: [] };
    expect(() => effectFlags([...effects, both])).toThrow(
      'the api effect field retryAfter cannot be a flag of fault add: --retry-after would both name an effect and be an option of one',
    );
    const taken: FaultEffect = { target: 'delivery', field: 'times', value: { kind: 'true' }, options: [] };
    expect(() => effectFlags([...effects, taken])).toThrow(
      'the delivery effect field times cannot be a flag of fault add: --times is another flag of fault add',
    );
  });
});
