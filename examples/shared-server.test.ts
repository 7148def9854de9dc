// The README's "Sharing one server" example, kept runnable: `import { connect } from 'catalog-emulator'` in your
// project, against a server started with `npx catalog-emulator` (here one started in process).
import { afterAll, expect, test } from 'vitest';
import { connect, createEmulator } from '../src/index.js';

const emu = createEmulator();
const server = await emu.listen({ port: 0 });
afterAll(async () => {
  await server.close();
  await emu.close();
});

test('a company on its own clock on a shared server: its credential, its faults and its time only', async () => {
  const company = await connect(server.url, { company: { cnpjRoot: '11222333' } });
  const answer = await company.fetch('/v1/empresa'); // sends the company's credential
  expect(answer.status).toBe(200);
  await company.faults.add({ target: 'delivery', effect: { status: 500 }, times: 7 });
  const moved = await company.clock.advance('22h35m'); // only this company's time moves
  expect(moved.now).toBe(new Date(emu.clock.now().getTime() + (22 * 60 + 35) * 60_000).toISOString());
  expect((await company.faults.list()).map((fault) => fault.match)).toEqual([{ companyId: company.companyId }]);
  await company.reset(); // back as created, for the next test
  expect(await company.faults.list()).toEqual([]); // its faults, inbox and journal start over too
  expect((await company.clock.now()).toISOString()).toBe(emu.clock.now().toISOString());
  await company.remove(); // when the suite ends
  expect((await company.fetch('/v1/empresa')).status).toBe(401);
});
