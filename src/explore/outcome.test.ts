import { describe, expect, it } from 'vitest';
import { createEmulator } from '../index.js';
import { outcomeDiff, readOutcome, type Outcome } from './outcome.js';

const empty: Outcome = { estabelecimentos: {}, catalogos: {}, produtos: {}, vigilancia: null, webhook: null };

describe('the outcome of a company', () => {
  it('holds each record under its natural key, ids replaced by the keys of what they name, without versions or times', async () => {
    const emu = createEmulator();
    const { token, headOffice } = emu.companies.create({ cnpjRoot: '11222333' });
    const send = (method: string, path: string, body: unknown, key: string) =>
      emu.fetch(path, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify(body),
      });
    const catalog = (await (
      await send('POST', '/v1/catalogos', { estabelecimento_id: headOffice.id, nome: 'Loja' }, 'outcome-catalog-0001')
    ).json()) as { id: string };
    await send(
      'POST',
      `/v1/catalogos/${catalog.id}/produtos`,
      { origem: 'erp', ncm: '84713012', sku: 'SKU-1' },
      'outcome-product-0001',
    );
    const outcome = await readOutcome(emu.fetch, token);
    expect(Object.keys(outcome.estabelecimentos)).toEqual([headOffice.cnpj]);
    expect(outcome.estabelecimentos[headOffice.cnpj]).toMatchObject({ catalogo_id: `catalogo ${headOffice.cnpj}` });
    expect(outcome.produtos['SKU-1']).toMatchObject({ sku: 'SKU-1', catalogos: [`catalogo ${headOffice.cnpj}`] });
    expect(JSON.stringify(outcome)).not.toMatch(/"(id|versao|criado_em|atualizado_em)"/);
    expect(outcome.webhook).toBeNull();
    // The surveillance selection: the company's one record, its counters and mode, without its version.
    expect(outcome.vigilancia).toMatchObject({ cadastrados: 1, selecionados: 0, modo: 'selecao' });
    expect(outcome.vigilancia).not.toHaveProperty('versao');
    await emu.close();
  });

  it('a diff names each record missing or extra and each field changed, leaving out what ignore names', () => {
    const expected: Outcome = { ...empty, produtos: { 'SKU-1': { descricao: 'A', ncm: '1' }, 'SKU-2': {} } };
    const got: Outcome = {
      ...empty,
      produtos: { 'SKU-1': { descricao: 'B', ncm: '1' }, 'SKU-3': {} },
      vigilancia: { selecionados: 2 },
      webhook: { url: 'x' },
    };
    expect(outcomeDiff({ ...expected, vigilancia: { selecionados: 1 } }, got)).toEqual([
      'produtos "SKU-1": descricao "A" → "B"',
      'produtos "SKU-2": missing',
      'produtos "SKU-3": extra',
      'vigilancia: selecionados 1 → 2',
      'webhook: none expected, one configured',
    ]);
    expect(outcomeDiff(expected, got, ['produtos.descricao', 'vigilancia', 'webhook'])).toEqual([
      'produtos "SKU-2": missing',
      'produtos "SKU-3": extra',
    ]);
    expect(outcomeDiff(expected, got, ['produtos', 'vigilancia', 'webhook'])).toEqual([]);
  });
});
