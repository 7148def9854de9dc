/**
 * What the shared-server suite's files share: a company on a clock of its own on the ONE server the project
 * started (the test kit's `connect`), seen as the spec tests' `World` so their helpers work unchanged, and that
 * company's clock.
 *
 * The files run at the same time against that server, so a file must never touch what is the whole emulator's:
 * the shared clock, `POST /_emulator/reset`, the state, or another company's faults. The controls handed to
 * the helpers make that a failure, not a silent interference: their clock is the company's own, a fault added
 * through them always carries `match.companyId`, and a call to a whole-emulator route throws.
 */
import { afterAll, expect } from 'vitest';
import { connect, type ConnectedCompany } from '../../src/index.js';
import { Api, Controls, type Answer, type World } from '../support/client.js';
import { checkedFetch } from '../support/contract.js';
import { serverUrl, type Target } from '../support/target.js';

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export const iso = (instant: number): string => new Date(instant).toISOString();

/** A company of this file: the spec tests' World, the kit's handle, and the instant its clock started. */
export interface OwnCompany extends World {
  readonly kit: ConnectedCompany;
  /** Its clock's now when it was created (or started over): every time a file asserts is counted from it. */
  readonly start: number;
}

/** Routes under /_emulator that act on the whole emulator, so on every file's companies. */
const WHOLE_EMULATOR = /^\/(clock|reset|state|faults)/;

/** The /_emulator controls seen by one company of a shared server: its clock, its faults, nothing global. */
class CompanyControls extends Controls {
  constructor(target: Target, kit: ConnectedCompany) {
    super(target);
    const raw = this.raw;
    this.raw = (method, path, body) => {
      if (WHOLE_EMULATOR.test(path)) {
        throw new Error(`${method} /_emulator${path} acts on the whole shared server: use the company's own controls`);
      }
      return raw(method, path, body);
    };
    this.clock = async () => kit.clock.info();
    this.advance = (by) => kit.clock.advance(by);
    // The company's own faults: they match only its requests, deliveries and jobs.
    this.addFault = (fault) => kit.faults.add(fault as never);
    const refuse = (what: string) => () => {
      throw new Error(`${what} acts on the whole shared server`);
    };
    this.faults = refuse('GET /_emulator/faults');
    this.clearFaults = refuse('DELETE /_emulator/faults');
    this.snapshot = refuse('GET /_emulator/state');
    this.restore = refuse('PUT /_emulator/state');
  }
}

/** The companies this file created: removed when it ends, so the server can run the suite again. */
const created: ConnectedCompany[] = [];
afterAll(async () => {
  for (const kit of created.splice(0)) await kit.remove();
});

/** The server the shared-server project started (its global setup provides the URL). */
function sharedServer(): string {
  const url = serverUrl();
  if (url === undefined)
    throw new Error('the shared-server files run only in the shared-server project, against its server');
  return url;
}

/**
 * A new company on a clock of its own on the shared server, with this CNPJ root (8 digits; each file uses its
 * own, so no two files ever collide, and the company's ids are those it would get alone).
 */
export async function ownCompany(cnpjRoot: string, options: { analysisAllowance?: number } = {}): Promise<OwnCompany> {
  const kit = await connect(sharedServer(), { company: { cnpjRoot, ...options } });
  created.push(kit);
  expect(kit.cnpjRoot).toBe(cnpjRoot);
  const target: Target = {
    kind: 'server',
    baseUrl: kit.baseUrl,
    fetch: checkedFetch((path, init) => fetch(`${kit.baseUrl}${path}`, init)),
  };
  const company = { companyId: kit.companyId, cnpjRoot: kit.cnpjRoot, token: kit.token, headOffice: kit.headOffice };
  return {
    target,
    controls: new CompanyControls(target, kit),
    company,
    api: new Api(target, kit.token),
    kit,
    start: (await kit.clock.now()).getTime(),
  };
}

/**
 * The company as it was created, for the next test of a file (`POST /_emulator/companies/{id}/reset`): the same
 * id, token and head office, no records, no tasks, its clock back at the server's now.
 */
export async function startOver(c: OwnCompany): Promise<OwnCompany> {
  await c.kit.reset();
  return { ...c, start: (await c.kit.clock.now()).getTime() };
}

/** Advances the company's clock by `by`; returns its new now (Unix ms). */
export async function advance(c: OwnCompany, by: string | number): Promise<number> {
  return Date.parse((await c.kit.clock.advance(by)).now);
}

/** Advances the company's clock to `start + offset`; returns that instant, checked. */
export async function advanceToOffset(c: OwnCompany, offset: number): Promise<number> {
  const target = c.start + offset;
  expect((await c.kit.clock.advanceTo(new Date(target))).now).toBe(iso(target));
  return target;
}

/** The instant a UUIDv7 id was drawn at (its first 48 bits): the virtual time of the request that made it. */
export function idTime(id: string): number {
  expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
  return Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16);
}

/** A 2xx answer's body, or a failure that shows the answer. */
export function ok(answer: Answer, status: number): any {
  expect(answer.status, answer.text).toBe(status);
  return answer.body;
}
