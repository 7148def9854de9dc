// The fixtures example of docs/cli.md (examples/fixtures.json), kept loadable: the same file `--fixtures` takes, and
// `createEmulator({ fixtures })` in your project.
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { createEmulator, type Fixtures } from 'catalog-emulator';

const fixtures = JSON.parse(readFileSync(new URL('./fixtures.json', import.meta.url), 'utf8')) as Fixtures;

test('examples/fixtures.json creates its two companies, their records and the webhook destination, again after a reset', async () => {
  const emu = createEmulator({ fixtures });
  const [acme, reader] = emu.companies.fixtures();
  expect(acme).toMatchObject({
    cnpjRoot: '11222333',
    name: 'Acme Alimentos',
    establishments: [{ cnpj: '11222333000262', nome: 'Filial Campinas' }],
    webhook: { url: 'https://hooks.example.com/catalog' },
  });
  expect(acme!.catalogs.map((c) => [c.nome, c.products.map((p) => p.sku)])).toEqual([
    ['Loja Matriz', ['CAFE-500', 'CAFE-1K']],
    ['Loja Campinas', []],
  ]);
  expect(reader).toMatchObject({ cnpjRoot: '44555666', name: 'Leitura Ltda', catalogs: [], webhook: null });

  const products = await emu.fetch('/v1/produtos', { headers: { authorization: `Bearer ${acme!.token}` } });
  expect(
    ((await products.json()) as { itens: { id_externo: string | null }[] }).itens.map((p) => p.id_externo),
  ).toEqual(['erp-1001', null]);
  const before = emu.companies.fixtures();
  emu.reset();
  expect(emu.companies.fixtures()).toEqual(before);
});
