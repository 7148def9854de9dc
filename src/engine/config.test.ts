/**
 * readConfig: createEmulator()'s options become one checked, frozen Config. The error messages of bad options
 * are asserted in emulator.test.ts and bin/cli.test.ts, through the public API.
 */
import { describe, expect, it, vi } from 'vitest';
import { DEFAULT_MAX_SNAPSHOT_BYTES, DEFAULT_PAGE_BUDGETS, DEFAULT_SEED, DEFAULT_START, readConfig } from './config.js';
import { DEFAULT_DELIVERY_POLICY } from '../core/webhooks/events.js';
import { DEFAULT_MAX_STORED_ANSWERS_PER_COMPANY } from '../core/idempotency.js';
import { DEFAULT_HANDLER_GRACE_MS } from '../network/transport.js';

const KIB = 1024;

describe('readConfig', () => {
  it('gives every default when no option is set', () => {
    expect(readConfig({})).toEqual({
      seed: DEFAULT_SEED,
      mode: 'manual',
      start: DEFAULT_START,
      core: { delivery: DEFAULT_DELIVERY_POLICY },
      pageBudgets: {
        catalogs: 256 * KIB,
        establishments: 256 * KIB,
        products: 256 * KIB,
        executions: 256 * KIB,
        analyses: 256 * KIB,
        ingestionErrors: 256 * KIB,
        events: 1024 * KIB,
        findings: 512 * KIB,
      },
      maxStoredAnswersPerCompany: DEFAULT_MAX_STORED_ANSWERS_PER_COMPANY,
      handlerGraceMs: DEFAULT_HANDLER_GRACE_MS,
      control: { token: undefined, maxSnapshotBytes: DEFAULT_MAX_SNAPSHOT_BYTES },
      companies: [],
      routes: [],
      history: { entries: 10_000, bytes: 16 * 1024 * KIB },
    });
  });

  it('reads each option into its place: durations parsed, settable budgets merged, the other lists keep theirs', () => {
    const config = readConfig({
      seed: 'abc',
      start: '2027-03-04T05:06:07.008Z',
      pageBudgets: { products: 1000 },
      idempotency: { maxStoredAnswersPerCompany: 3 },
      webhooks: { retryWaits: ['5s', 60_000, '2h'], attemptTimeout: '3s', handlerGraceMs: 0 },
      controlToken: 'secret-token',
      maxSnapshotBytes: 4096,
      inspector: { historyEntries: 50, historyBytes: 0 },
    });
    expect(config).toEqual({
      seed: 'abc',
      mode: 'manual',
      start: Date.UTC(2027, 2, 4, 5, 6, 7, 8),
      core: {
        delivery: { ...DEFAULT_DELIVERY_POLICY, retryWaitsMs: [5000, 60_000, 7_200_000], attemptTimeoutMs: 3000 },
      },
      pageBudgets: {
        ...DEFAULT_PAGE_BUDGETS,
        products: 1000,
        executions: 256 * KIB,
        analyses: 256 * KIB,
        ingestionErrors: 256 * KIB,
        events: 1024 * KIB,
        findings: 512 * KIB,
      },
      maxStoredAnswersPerCompany: 3,
      handlerGraceMs: 0,
      control: { token: 'secret-token', maxSnapshotBytes: 4096 },
      companies: [],
      routes: [],
      history: { entries: 50, bytes: 0 },
    });
  });

  it('is frozen all the way down, and leaves the defaults it started from unfrozen and unchanged', () => {
    const config = readConfig({ webhooks: { attemptTimeout: 1000 } });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.core)).toBe(true);
    expect(Object.isFrozen(config.core.delivery)).toBe(true);
    expect(Object.isFrozen(config.core.delivery.retryWaitsMs)).toBe(true);
    expect(Object.isFrozen(config.pageBudgets)).toBe(true);
    expect(Object.isFrozen(config.control)).toBe(true);
    expect(Object.isFrozen(DEFAULT_DELIVERY_POLICY)).toBe(false);
    expect(Object.isFrozen(DEFAULT_DELIVERY_POLICY.retryWaitsMs)).toBe(false);
    expect(Object.isFrozen(DEFAULT_PAGE_BUDGETS)).toBe(false);
    expect(DEFAULT_DELIVERY_POLICY.attemptTimeoutMs).toBe(15_000);
  });

  it("keeps copies of the configured companies and routes, frozen, and never freezes the caller's objects", () => {
    const permissions = ['catalogo:ler'] as const;
    const company = { cnpjRoot: '11222333', permissions: [...permissions] };
    const handler = () => new Response('ok');
    const route = { from: 'https://hooks.example/', to: handler };
    const config = readConfig({ companies: [company], routes: [route] });
    expect(config.companies).toEqual([company]);
    expect(config.routes).toEqual([route]);
    expect(Object.isFrozen(config.companies[0])).toBe(true);
    expect(Object.isFrozen(config.companies[0]!.permissions)).toBe(true);
    expect(Object.isFrozen(company)).toBe(false);
    expect(Object.isFrozen(company.permissions)).toBe(false);
    expect(Object.isFrozen(route)).toBe(false);
    expect(Object.isFrozen(handler)).toBe(false);
  });

  it('starts a real clock at the wall clock when no start is given', () => {
    // The wall clock's reading, mocked: the start is that reading exactly.
    const wall = Date.UTC(2031, 6, 4, 9, 30, 15, 123);
    const reading = vi.spyOn(Date, 'now').mockReturnValue(wall);
    try {
      expect(readConfig({ clock: 'real' })).toMatchObject({ mode: 'real', start: wall });
    } finally {
      reading.mockRestore();
    }
  });

  it('checks the options in the order they always were: the first bad one is named', () => {
    expect(() => readConfig({ clock: 'fast' as never, webhooks: { retryWaits: [] } })).toThrow(
      new TypeError('clock must be "manual" or "real", got fast'),
    );
    expect(() => readConfig({ idempotency: { maxStoredAnswersPerCompany: 0 }, webhooks: { retryWaits: [] } })).toThrow(
      new RangeError('idempotency.maxStoredAnswersPerCompany must be a whole number, 1 or more; got 0'),
    );
    expect(() => readConfig({ webhooks: { retryWaits: [], handlerGraceMs: -1 } })).toThrow(
      new RangeError('webhooks.retryWaits needs at least one wait'),
    );
    expect(() => readConfig({ webhooks: { handlerGraceMs: -1 }, maxSnapshotBytes: -1 })).toThrow(
      new RangeError('webhooks.handlerGraceMs must be a non-negative number of milliseconds; got -1'),
    );
  });
});
