// A Jest project with Jest's default configuration (CommonJS, no transform set up) that installed
// catalog-emulator from its tarball.
const { createEmulator } = require('catalog-emulator');

test('require loads the CommonJS build', () => {
  expect(require.resolve('catalog-emulator')).toMatch(/[\\/]node_modules[\\/]catalog-emulator[\\/]dist[\\/]cjs[\\/]index\.js$/);
});

test('GET /v1/empresa over a server that is never closed', async () => {
  const emu = createEmulator();
  const company = emu.companies.create({ cnpjRoot: '11222333' });
  const server = await emu.listen({ port: 0 });
  const answer = await fetch(`${server.url}/v1/empresa`, { headers: { authorization: `Bearer ${company.token}` } });
  expect(answer.status).toBe(200);
  expect(await answer.json()).toEqual({ id: company.companyId, cnpj_raiz: '11222333', nome: 'Empresa 11222333' });
  // No emu.close(): Jest must still exit, without "Jest did not exit one second after the test run has completed".
});
