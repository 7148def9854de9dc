// A vitest project (ES modules, tests in TypeScript as vitest runs them) that installed catalog-emulator from its
// tarball. `await using` is TypeScript's here: Node 20 itself does not have it yet.
import { createEmulator, formatReport } from 'catalog-emulator';
import { afterAll, expect, test } from 'vitest';

// The suite's emulator, whose report is printed once the suite is done.
const emu = createEmulator();
afterAll(() => {
  const report = formatReport(emu.report());
  console.log(report);
  expect(emu.report().findings).toEqual([]);
  expect(report).toContain('| GET /v1/empresa | 1 | 200×1 |');
});

test('GET /v1/empresa in process answers the company', async () => {
  const company = emu.companies.create({ cnpjRoot: '11222333' });
  const answer = await emu.fetch('/v1/empresa', { headers: { authorization: `Bearer ${company.token}` } });
  expect(answer.status).toBe(200);
  expect(await answer.json()).toEqual({ id: company.companyId, cnpj_raiz: '11222333', nome: 'Empresa 11222333' });
});

test('await using closes the emulator and its server at the end of the scope', async () => {
  let url: string;
  {
    await using emu = createEmulator();
    const company = emu.companies.create({ cnpjRoot: '11222333' });
    ({ url } = await emu.listen({ port: 0 }));
    expect((await fetch(`${url}/v1/empresa`, { headers: { authorization: `Bearer ${company.token}` } })).status).toBe(
      200,
    );
  }
  await expect(fetch(`${url}/v1/empresa`)).rejects.toThrow('fetch failed');
});
