// The fault examples of docs/faults.md (the first is the README's too), shown as written (examples/readme.test.ts
// checks them): adding an api fault, the refusals of faults that are not one (examples/fault-refusals.txt) and of a
// snapshot (examples/restore-refused.json).
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { createEmulator, FaultInputError, type FaultInput } from 'catalog-emulator';

const sample = (name: string) => readFileSync(new URL(name, import.meta.url), 'utf8');

test('an api fault for one company fires on its first matching request only, then is spent', async () => {
  const emu = createEmulator();
  const acme = emu.companies.create({ cnpjRoot: '11222333' });
  const other = emu.companies.create({ cnpjRoot: '44555666' });
  const catalog = (token: string, headOffice: string) =>
    emu.fetch('/v1/catalogos', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'idempotency-key': `catalog-${headOffice}`,
      },
      body: JSON.stringify({ estabelecimento_id: headOffice, nome: 'Loja' }),
    });
  const companyId = acme.companyId;
  // #region add
  emu.faults.add({
    target: 'api',
    match: { method: 'POST', path: '/v1/catalogos', companyId },
    effect: { status: 503, retryAfter: 2 },
    times: 1,
  });
  // #endregion

  expect((await catalog(other.token, other.headOffice.id)).status).toBe(201); // another company: no match
  const failed = await catalog(acme.token, acme.headOffice.id);
  expect(failed.status).toBe(503);
  expect(failed.headers.get('retry-after')).toBe('2');
  expect(((await failed.json()) as { erro: { codigo: string } }).erro.codigo).toBe('servico_indisponivel');
  expect((await catalog(acme.token, acme.headOffice.id)).status).toBe(201); // times: 1: spent
  expect(emu.faults.list()).toEqual([]); // a spent fault leaves the list
});

test('a fault bound to a position: skip lets the first matching requests pass, and it fires on the next', async () => {
  const emu = createEmulator();
  const { token, companyId } = emu.companies.create();
  const empresa = () => emu.fetch('/v1/empresa', { headers: { authorization: `Bearer ${token}` } });
  // #region skip
  // The third GET /v1/empresa of this company answers 503; the first two, and the fourth, are served.
  emu.faults.add({
    target: 'api',
    match: { method: 'GET', path: '/v1/empresa', companyId },
    effect: { status: 503 },
    skip: 2,
  });
  // #endregion
  const statuses = [];
  for (let i = 0; i < 4; i++) statuses.push((await empresa()).status);
  expect(statuses).toEqual([200, 200, 503, 200]);
});

test('a fault that is not one, or could never fire, is refused with the sentences docs/faults.md shows', () => {
  const emu = createEmulator();
  const refused: FaultInput[] = [
    { target: 'api', effect: { status: 700 } },
    { target: 'job', match: { kind: 'limpeza' }, effect: { fail: true } },
    { target: 'api', match: { method: 'POST', path: '/v1/catalogos' }, effect: { concurrentEdit: true } },
    { target: 'delivery', effect: { refuse: true }, probability: 0 },
  ] as unknown as FaultInput[]; // deliberately wrong input, as a caller from JavaScript or JSON could send it
  const messages = refused.map((fault) => {
    try {
      emu.faults.add(fault);
    } catch (error) {
      expect(error).toBeInstanceOf(FaultInputError);
      return (error as Error).message;
    }
    throw new Error(`accepted ${JSON.stringify(fault)}`);
  });
  expect(messages).toEqual(sample('fault-refusals.txt').trimEnd().split('\n'));
  expect(emu.faults.list()).toEqual([]);
});

test('a snapshot the clock could not hold is refused as docs/controls.md shows, and nothing changes', async () => {
  const emu = createEmulator();
  const before = await (await emu.fetch('/_emulator/state')).text();
  const refused = await emu.fetch('/_emulator/state', {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...JSON.parse(before), now: -1 }),
  });
  expect(refused.status).toBe(422);
  expect(await refused.json()).toEqual(JSON.parse(sample('restore-refused.json')));
  expect(await (await emu.fetch('/_emulator/state')).text()).toBe(before);
});
