// docs/batch-ingestion.md shows the region below as written (examples/readme.test.ts checks it): it imports the package
// as your project does (here the built one, resolved by name, so `npm test` builds first).
// #region readme
import { expect, test } from 'vitest';
import { createEmulator } from 'catalog-emulator';

test('an ingestion replaces a catalog: batches, preview, application, catalogo.aplicado', async () => {
  const emu = createEmulator();
  const acme = emu.companies.create();
  let keys = 0;
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await emu.fetch(path, {
      method,
      headers: {
        authorization: `Bearer ${acme.token}`,
        'content-type': 'application/json',
        'idempotency-key': `example-${++keys}-0000000000`,
        ...headers,
      },
      body: body === undefined ? null : JSON.stringify(body),
    });
    return { status: response.status, etag: response.headers.get('etag'), body: (await response.json()) as any }; // JSON, read loosely
  };
  const catalog = await call('POST', '/v1/catalogos', { estabelecimento_id: acme.headOffice.id, nome: 'Loja' });
  // Events are recorded only for a company with a webhook destination (deliveries land in the built-in inbox).
  await call('PUT', '/v1/webhook', { url: 'https://hooks.acme.example/catalog' }, { 'if-none-match': '*' });

  // Without catalogo_id the ingestion goes to the head office's active catalog.
  const start = await call(
    'POST',
    '/v1/catalogos/ingestoes',
    { operacao: 'substituicao_catalogo' },
    { 'idempotency-key': 'erp-export-2026-11-22/run-1' },
  );
  expect(start).toMatchObject({
    status: 201,
    body: { estado: 'aberta', repetida: false, catalogo_id: catalog.body.id },
  });
  const ingestion = `/v1/catalogos/ingestoes/${start.body.ingestao_id}`;

  const batch = await call('PUT', `${ingestion}/lotes/1`, {
    itens: [
      { id_externo: 'CAFE-500', origem: 'erp', ncm: '09012100' },
      { id_externo: 'ARROZ-5K', origem: 'erp', ncm: '1006' },
    ],
  });
  expect(batch.body.erros).toMatchObject([
    { lote: 1, indice: 1, caminho: 'body.itens[1].ncm', codigo: 'valor_invalido' },
  ]); // kept, reported
  expect((await call('POST', `${ingestion}/fechamento`, { total_lotes: 1 })).status).toBe(202);
  await emu.clock.advance('1m'); // validation runs on the virtual clock
  expect((await call('GET', ingestion)).body).toMatchObject({
    estado: 'rejeitada',
    codigo_falha: 'registros_invalidos',
  });

  // A rejected ingestion frees the catalog: send the corrected batch in a new one.
  const retry = await call('POST', '/v1/catalogos/ingestoes', { operacao: 'substituicao_catalogo' });
  const fixed = `/v1/catalogos/ingestoes/${retry.body.ingestao_id}`;
  await call('PUT', `${fixed}/lotes/1`, {
    itens: [
      { id_externo: 'CAFE-500', origem: 'erp', ncm: '09012100' },
      { id_externo: 'ARROZ-5K', origem: 'erp', ncm: '10063021' },
    ],
  });
  await call('POST', `${fixed}/fechamento`, { total_lotes: 1 });
  await emu.clock.advance('1m');
  const preview = await call('GET', fixed);
  expect(preview.body).toMatchObject({
    estado: 'validada',
    previa: { novos: 2, alterados: 0, desvinculados: 0, total_erros: 0 },
  });

  expect((await call('POST', `${fixed}/aplicacao`, {}, { 'if-match': preview.etag! })).status).toBe(202); // acceptance only
  await emu.clock.advance('1m');
  expect((await call('GET', fixed)).body).toMatchObject({ estado: 'aplicada', aplicacao: { versao_catalogo: 2 } });
  const events = await call('GET', '/v1/webhook/eventos');
  expect(events.body.itens[0]).toMatchObject({ tipo: 'catalogo.aplicado' }); // dados {tipo, catalogoId, versao: 2}
});
// #endregion
