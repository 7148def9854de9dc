// The example in TypeScript of docs/sharing-a-server.md, shown as written (examples/readme.test.ts checks it).
// In your suite EMULATOR_URL is the server `npx catalog-emulator` serves; here the server is started in process.
import { afterAll, expect, test } from 'vitest';
import { connect, createEmulator } from 'catalog-emulator';

const emu = createEmulator();
const server = await emu.listen({ port: 0 });
afterAll(async () => {
  await server.close();
  await emu.close();
});
const EMULATOR_URL = server.url;

// #region readme
test('a company on its own clock on a shared server: its credential, its faults and its time only', async () => {
  const company = await connect(EMULATOR_URL, { company: { cnpjRoot: '11222333' } });
  const answer = await company.fetch('/v1/empresa'); // sends the company's credential
  expect(answer.status).toBe(200);
  const start = await company.clock.now();

  await company.faults.add({ target: 'delivery', effect: { status: 500 }, times: 7 }); // matches only this company
  const moved = await company.clock.advance('22h35m'); // only this company's time moves
  expect(moved.now).toBe(new Date(start.getTime() + (22 * 60 + 35) * 60_000).toISOString());
  expect((await company.faults.list()).map((fault) => fault.match)).toEqual([{ companyId: company.companyId }]);

  await company.reset(); // back as created, for the next test: its faults, inbox, journal and clock start over
  expect(await company.faults.list()).toEqual([]);
  expect(await company.clock.now()).toEqual(start);

  await company.remove(); // when the suite ends: its credential is gone
  expect((await company.fetch('/v1/empresa')).status).toBe(401);
});
// #endregion
