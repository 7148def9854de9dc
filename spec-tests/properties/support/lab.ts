/**
 * A fresh in-process emulator with a company, for the property tests. The properties need what only the
 * process can give (snapshot(), page budgets, seeds, faults without HTTP), so they build the emulator
 * themselves and speak HTTP to it through emu.fetch with the spec tests' own client.
 */
import {
  createEmulator,
  type CompanyOptions,
  type CreatedCompanyInfo,
  type Emulator,
  type EmulatorOptions,
} from '../../../src/index.js';
import { Api, Controls, type Answer } from '../../support/client.js';
import { inProcessTarget, type Target } from '../../support/target.js';

export interface Lab {
  readonly emu: Emulator;
  readonly target: Target;
  readonly controls: Controls;
  readonly company: CreatedCompanyInfo;
  /** The company's all-permissions credential. */
  readonly api: Api;
}

export function lab(options: EmulatorOptions = {}, company: CompanyOptions = {}): Lab {
  const emu = createEmulator(options);
  const target = inProcessTarget(emu);
  const info = emu.companies.create(company);
  return { emu, target, controls: new Controls(target), company: info, api: new Api(target, info.token) };
}

/** Every header of an answer, as sorted [name, value] pairs. */
export function headerPairs(answer: Answer): [string, string][] {
  return [...answer.headers.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The part of snapshot() a refused request must leave alone: the records and the seeded id source. */
export function stateAndRandom(emu: Emulator): string {
  const snapshot = emu.snapshot();
  return JSON.stringify({ state: snapshot.state, random: snapshot.random });
}

const scale = (() => {
  const value = Number(process.env.PROPERTY_RUNS_SCALE ?? '1');
  return Number.isFinite(value) && value > 0 ? value : 1;
})();

/** numRuns, scaled by PROPERTY_RUNS_SCALE (e.g. 10 for a long local hunt). */
export function runs(base: number): number {
  return Math.max(1, Math.round(base * scale));
}

/**
 * The time-out of one property test, scaled like numRuns: it catches a hang, so it is generous (shrinking, a slow
 * machine: the restore property's 1,000 runs, 13 s alone, took over 120 s while two whole suites and other work
 * shared the machine's two cores).
 */
export const PROPERTY_TIMEOUT = Math.round(300_000 * Math.max(1, scale));
