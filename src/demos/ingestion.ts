/**
 * demo ingestion: a batch ingestion from start to the catalogo.aplicado delivery (spec "POST
 * /v1/catalogos/ingestoes", "Ingestion receipt"; docs/batch-ingestion.md): a repeated start (200, repetida), a
 * batch sent twice (the second a no-op), a record with an invalid NCM that rejects the preview with its exact
 * place, a corrected ingestion validated into a preview, applied, and its event verified by the receiver.
 */
import { verifyWebhook } from '../public.js';
import { scene, table, type Demo } from './narrator.js';

const HOOKS = 'https://hooks.acme.example';
const PREVIEW_COUNTS = [
  'registros',
  'novos',
  'alterados',
  'inalterados',
  'reativados',
  'vinculados',
  'desvinculados',
  'desativados',
] as const;

export const ingestion: Demo = {
  name: 'ingestion',
  summary: 'batches (one repeated, one record invalid), the preview, the application and catalogo.aplicado',
  async run(print, pacer) {
    const { emu, company, api, quiet, step, key } = scene(print, pacer, 'demo-ingestao');

    await step(
      '1. The scene (set up quietly): the head office catalog holds CAFE-500, ARROZ-5K and FEIJAO-1K, and the',
    );
    print(`   webhook destination ${HOOKS}/catalogo goes to an in-process receiver that checks each signature.`);
    const catalog = await quiet('POST', '/v1/catalogos', {
      headers: { 'idempotency-key': key() },
      body: { estabelecimento_id: company.headOffice.id, nome: 'Loja principal' },
    });
    const catalogId: string = catalog.body.id;
    for (const [sku, ncm, descricao] of [
      ['CAFE-500', '09012100', 'Café torrado 500 g'],
      ['ARROZ-5K', '10063021', 'Arroz branco 5 kg'],
      ['FEIJAO-1K', '07133399', 'Feijão carioca 1 kg'],
    ] as const) {
      await quiet('POST', `/v1/catalogos/${catalogId}/produtos`, {
        headers: { 'idempotency-key': key() },
        body: { id_externo: sku, origem: 'erp', sku, ncm, descricao },
      });
    }
    const destination = await quiet('PUT', '/v1/webhook', {
      headers: { 'idempotency-key': key(), 'if-none-match': '*' },
      body: { url: `${HOOKS}/catalogo` },
    });
    const secret: string = destination.body.segredo;
    emu.network.route(HOOKS, async (request) => {
      const body = await request.text();
      const check = verifyWebhook({ secret, headers: request.headers, body, now: emu.clock.now() });
      print(
        `  receiver: ${check.ok ? `signature ok, ${check.event.dados.tipo} ${JSON.stringify(check.event.dados)}` : `refused: ${check.reason}`}`,
      );
      return new Response(null, { status: check.ok ? 204 : 400 });
    });
    const original = (await quiet('GET', `/v1/catalogos/${catalogId}`)).body;
    print(`  catalog ${catalogId}: versao ${original.versao}, produtos ${original.produtos}.`);

    await step("2. The ERP starts a catalog replacement: without catalogo_id it goes to the head office's catalog.");
    const startKey = 'erp-export-2026-11-22T08:00:00Z/acme';
    const start = { operacao: 'substituicao_catalogo', referencia_externa: 'erp-export-4471' };
    const started = await api('POST', '/v1/catalogos/ingestoes', {
      headers: { 'idempotency-key': startKey },
      body: start,
    });
    const rejectedId: string = started.body.ingestao_id;
    print('  Its answer was lost on the way (say), so the ERP repeats the request with the same key:');
    const repeated = await api('POST', '/v1/catalogos/ingestoes', {
      headers: { 'idempotency-key': startKey },
      body: start,
    });
    print(
      `  ${repeated.status}, repetida ${repeated.body.repetida}: the same ingestion ${repeated.body.ingestao_id === rejectedId ? '(same ingestao_id)' : '(another!)'}, not a second one.`,
    );

    const batch1 = {
      itens: [
        {
          id_externo: 'CAFE-500',
          origem: 'erp',
          sku: 'CAFE-500',
          ncm: '09012100',
          descricao: 'Café torrado e moído 500 g',
        },
        { id_externo: 'ARROZ-5K', origem: 'erp', sku: 'ARROZ-5K', ncm: '10063021', descricao: 'Arroz branco 5 kg' },
      ],
    };
    const badBatch2 = {
      itens: [
        { id_externo: 'OLEO-900', origem: 'erp', sku: 'OLEO-900', ncm: '15079011', descricao: 'Óleo de soja 900 ml' },
        {
          id_externo: 'ACUCAR-1K',
          origem: 'erp',
          sku: 'ACUCAR-1K',
          ncm: '1701.99.00',
          descricao: 'Açúcar refinado 1 kg',
        },
      ],
    };
    await step(
      '3. Two batches. Batch 2 has a record whose NCM is written with dots: it is reported, the batch is kept.',
    );
    const lotes = `/v1/catalogos/ingestoes/${rejectedId}/lotes`;
    await api('PUT', `${lotes}/1`, { headers: { 'idempotency-key': key() }, body: batch1 });
    const second = await api('PUT', `${lotes}/2`, { headers: { 'idempotency-key': key() }, body: badBatch2 });
    print(
      `  ${second.status}: itens ${second.body.itens}, erros ${second.body.erros.length}: ${second.body.erros.map((e: { caminho: string; codigo: string }) => `${e.caminho} ${e.codigo}`).join('; ')}.`,
    );
    print('  A time-out made the ERP send batch 1 again, with a new key: the same content is a no-op.');
    const again = await api('PUT', `${lotes}/1`, { headers: { 'idempotency-key': key() }, body: batch1 });
    print(`  ${again.status}, repetido ${again.body.repetido}: nothing changed.`);

    await step(
      '4. Close with total_lotes 2. Validation runs on the virtual clock (1 s + 1 ms per record): advance 2 s.',
    );
    await api('POST', `/v1/catalogos/ingestoes/${rejectedId}/fechamento`, {
      headers: { 'idempotency-key': key() },
      body: { total_lotes: 2 },
    });
    await emu.clock.advance('2s');
    const rejected = (await quiet('GET', `/v1/catalogos/ingestoes/${rejectedId}`)).body;
    print(`  estado ${rejected.estado}, codigo_falha ${rejected.codigo_falha}; the error, located exactly:`);
    for (const e of rejected.previa.erros)
      print(`    lote ${e.lote}, indice ${e.indice}, ${e.caminho}: ${e.codigo} (${e.mensagem})`);
    print('  A rejected ingestion applies nothing and frees the catalog: the ERP fixes the NCM and starts again.');

    await step('5. A new ingestion (new key) with batch 1 and the corrected batch 2, closed, validated:');
    const fresh = await quiet('POST', '/v1/catalogos/ingestoes', {
      headers: { 'idempotency-key': 'erp-export-2026-11-22T08:20:00Z/acme' },
      body: start,
    });
    const id: string = fresh.body.ingestao_id;
    const goodBatch2 = { itens: [badBatch2.itens[0]!, { ...badBatch2.itens[1]!, ncm: '17019900' }] };
    await quiet('PUT', `/v1/catalogos/ingestoes/${id}/lotes/2`, {
      headers: { 'idempotency-key': key() },
      body: goodBatch2,
    });
    await quiet('PUT', `/v1/catalogos/ingestoes/${id}/lotes/1`, {
      headers: { 'idempotency-key': key() },
      body: batch1,
    });
    await quiet('POST', `/v1/catalogos/ingestoes/${id}/fechamento`, {
      headers: { 'idempotency-key': key() },
      body: { total_lotes: 2 },
    });
    await emu.clock.advance('2s');
    const validated = await api('GET', `/v1/catalogos/ingestoes/${id}`);
    const previa = validated.body.previa;
    print(
      `  estado ${validated.body.estado} (batches sent 2 then 1: the order never matters). The preview, against catalog versao ${previa.versao_catalogo}:`,
    );
    table(print, ['', ...PREVIEW_COUNTS], [['previa', ...PREVIEW_COUNTS.map((name) => previa[name])]], '    ');
    print('  CAFE-500 changed its description, ARROZ-5K is unchanged, OLEO-900 and ACUCAR-1K are new, and FEIJAO-1K,');
    print(
      '  absent from a catalog replacement, will be unlinked (it stays active: substituicao_integral would deactivate it).',
    );

    await step(
      "6. Apply, with the ingestion's ETag (If-Match): 202 is acceptance only; the application runs on the clock.",
    );
    await api('POST', `/v1/catalogos/ingestoes/${id}/aplicacao`, {
      headers: { 'idempotency-key': key(), 'if-match': validated.headers.get('etag')! },
    });
    await emu.clock.advance('10s');
    const applied = (await quiet('GET', `/v1/catalogos/ingestoes/${id}`)).body;
    print(`  estado ${applied.estado}: aplicacao ${JSON.stringify(applied.aplicacao)}.`);

    await step('7. The catalog, read back:');
    const after = (await quiet('GET', `/v1/catalogos/${catalogId}`)).body;
    print(
      `  versao ${original.versao} → ${after.versao} (once, for the whole application); produtos ${original.produtos} → ${after.produtos}.`,
    );
    const products = (await quiet('GET', '/v1/produtos')).body.itens as Array<{
      sku: string;
      descricao: string;
      versao: number;
      ativo: boolean;
      catalogos: string[];
    }>;
    table(
      print,
      ['produto', 'versao', 'ativo', 'in catalog', 'descricao'],
      products.map((p) => [
        p.sku,
        p.versao,
        String(p.ativo),
        p.catalogos.includes(catalogId) ? 'yes' : 'no',
        p.descricao,
      ]),
    );
  },
};
