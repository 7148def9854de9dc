/**
 * Large spans on one company's own clock while the other files run theirs: six advances of 31 days, each landing
 * exactly 31 days on, running exactly the company's own housekeeping (26 occurrences a day: 24 hourly event
 * retentions, the idempotency purge and the surveillance schedule) and nothing of the other companies; what the
 * company creates after each carries that instant, and a key replays 31 days after its request and is new again 62 days after it.
 */
import { expect, it } from 'vitest';
import { headOfficeCatalog, NCM } from '../support/client.js';
import { productsPath } from '../support/fixtures.js';
import { DAY, HOUR, idTime, iso, ok, ownCompany } from './support.js';

const SPAN = 31 * DAY;
const HOUSEKEEPING_PER_DAY = 26;

it('advances 31 days six times, each exactly, running only its own tasks', async () => {
  const c = await ownCompany('61000900');
  const catalog = await headOfficeCatalog(c);
  const key = 'shared-server-long-spans-0001';
  const ids: string[] = [];
  let stored = '';
  for (let round = 1; round <= 6; round++) {
    const moved = await c.kit.clock.advance('31d');
    expect(moved).toEqual({ now: iso(c.start + round * SPAN), ran: 31 * HOUSEKEEPING_PER_DAY });
    expect(await c.kit.clock.info()).toEqual({
      now: iso(c.start + round * SPAN),
      mode: 'manual',
      pending: 0,
      deadlines: expect.any(Number),
    });
    const answer = await c.api.post(productsPath(catalog.id), { origem: 'erp', ncm: NCM, sku: 'MENSAL' }, { key });
    expect(answer.status, answer.text).toBe(201);
    if (round % 2 === 0) {
      // 31 days after the key's request: within its 60 days, the stored answer.
      expect(answer.text).toBe(stored);
      expect(answer.headers.get('idempotent-replayed')).toBe('true');
    } else {
      // 62 days after its last request (or the first use): a new product, made at this instant.
      expect(answer.headers.get('idempotent-replayed')).toBeNull();
      expect(idTime(answer.body.id)).toBe(c.start + round * SPAN);
      stored = answer.text;
      ids.push(answer.body.id);
    }
  }
  expect(new Set(ids).size).toBe(3);
  const listed = ok(await c.api.get(`${productsPath(catalog.id)}?limite=100`), 200).itens.map(
    (p: { id: string }) => p.id,
  );
  expect([...listed].sort()).toEqual([...ids].sort());
});

it("cannot touch what is the whole server's: its controls refuse the shared clock, the reset, the state and every company's faults", async () => {
  const c = await ownCompany('61000901');
  expect(() => c.controls.raw('POST', '/clock/advance', { by: '1d' })).toThrow(
    'POST /_emulator/clock/advance acts on the whole shared server',
  );
  expect(() => c.controls.raw('POST', '/reset')).toThrow('POST /_emulator/reset acts on the whole shared server');
  expect(() => c.controls.raw('GET', '/state')).toThrow('acts on the whole shared server');
  expect(() => c.controls.clearFaults()).toThrow('DELETE /_emulator/faults acts on the whole shared server');
  // Its clock controls are the company's own.
  expect(await c.controls.advance('1h')).toEqual({ now: iso(c.start + HOUR), ran: 1 });
  expect((await c.controls.clock()).now).toBe(iso(c.start + HOUR));
});
