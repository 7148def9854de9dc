// A node:test project (ES modules) that installed catalog-emulator from its tarball.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { createEmulator, formatReport } from 'catalog-emulator';

// The suite's emulator, whose report is printed once the suite is done.
const emu = createEmulator();
after(() => {
  const report = formatReport(emu.report());
  console.log(report);
  assert.deepEqual(emu.report().findings, []);
  assert.ok(report.includes('| GET /v1/empresa | 1 | 200×1 |'), report);
});

test('import loads the ES module build', () => {
  assert.match(import.meta.resolve('catalog-emulator'), /\/node_modules\/catalog-emulator\/dist\/src\/index\.js$/);
});

test('GET /v1/empresa over a server that is never closed', async () => {
  const company = emu.companies.create({ cnpjRoot: '11222333' });
  const server = await emu.listen({ port: 0 });
  const answer = await fetch(`${server.url}/v1/empresa`, { headers: { authorization: `Bearer ${company.token}` } });
  assert.equal(answer.status, 200);
  assert.deepEqual(await answer.json(), { id: company.companyId, cnpj_raiz: '11222333', nome: 'Empresa 11222333' });
  // No emu.close(): the test file's process must still exit, or `node --test` waits for it forever.
});
