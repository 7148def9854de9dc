// A Jest project with Jest's default configuration (CommonJS, no transform set up) that installed
// catalog-emulator from its tarball.
const { createEmulator, formatReport } = require('catalog-emulator');

// The suite's emulator, whose report is printed once the suite is done.
const emu = createEmulator();
afterAll(() => {
  const report = formatReport(emu.report());
  console.log(report);
  expect(emu.report().findings).toEqual([]);
  expect(report).toContain('| GET /v1/empresa | 1 | 200×1 |');
});

test('require loads the CommonJS build', () => {
  expect(require.resolve('catalog-emulator')).toMatch(
    /[\\/]node_modules[\\/]catalog-emulator[\\/]dist[\\/]cjs[\\/]index\.js$/,
  );
});

test('GET /v1/empresa over a server that is never closed', async () => {
  const company = emu.companies.create({ cnpjRoot: '11222333' });
  const server = await emu.listen({ port: 0 });
  const answer = await fetch(`${server.url}/v1/empresa`, { headers: { authorization: `Bearer ${company.token}` } });
  expect(answer.status).toBe(200);
  expect(await answer.json()).toEqual({ id: company.companyId, cnpj_raiz: '11222333', nome: 'Empresa 11222333' });
  // No emu.close(): Jest must still exit, without "Jest did not exit one second after the test run has completed".
});
