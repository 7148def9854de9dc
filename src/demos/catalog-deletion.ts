/**
 * demo catalog-deletion: the impact preview of deleting a catalog (exclusive and shared products, the selection,
 * the surveillance counters before and after), a concurrent product edit that makes the preview stale (412, nothing
 * deleted), a fresh preview, the deletion, and its effects checked one by one (spec "Catalog deletion impact
 * preview", the catalog state table; docs/api.md "Catalog deletion").
 */
import { cnpjCheckDigits } from '../public.js';
import { narratedClient, scene, table, type Demo } from './narrator.js';

const COUNTERS = ['cadastrados', 'elegiveis', 'selecionados', 'vagas', 'cobertura', 'exige_selecao'] as const;

export const catalogDeletion: Demo = {
  name: 'catalog-deletion',
  summary: 'the deletion impact preview, a stale preview refused (412), the deletion and its effects',
  async run(print, pacer) {
    const { emu, company, api, quiet, step, key } = scene(print, pacer, 'demo-exclusao', { surveillanceCapacity: 5 });

    await step(
      '1. The scene (set up quietly): catalog A of the head office, a branch with catalog B, 3 products in A,',
    );
    print('   OLEO-900 also linked to B, and CAFE-500 and OLEO-900 selected for surveillance (capacity 5).');
    const branchBase = `${company.cnpjRoot}0002`;
    const branch = await quiet('POST', '/v1/estabelecimentos', {
      headers: { 'idempotency-key': key() },
      body: { cnpj: branchBase + cnpjCheckDigits(branchBase), nome: 'Filial Centro' },
    });
    const a = await quiet('POST', '/v1/catalogos', {
      headers: { 'idempotency-key': key() },
      body: { estabelecimento_id: company.headOffice.id, nome: 'A: Loja principal' },
    });
    const b = await quiet('POST', '/v1/catalogos', {
      headers: { 'idempotency-key': key() },
      body: { estabelecimento_id: branch.body.id, nome: 'B: Filial Centro' },
    });
    const names = new Map<string, string>([
      [a.body.id, 'A'],
      [b.body.id, 'B'],
    ]);
    const products: Record<string, { id: string; etag: string }> = {};
    for (const [sku, ncm] of [
      ['CAFE-500', '09012100'],
      ['ARROZ-5K', '10063021'],
      ['OLEO-900', '15079011'],
    ] as const) {
      const created = await quiet('POST', `/v1/catalogos/${a.body.id}/produtos`, {
        headers: { 'idempotency-key': key() },
        body: { origem: 'erp', sku, ncm },
      });
      products[sku] = { id: created.body.id, etag: created.headers.get('etag')! };
    }
    const shared = products['OLEO-900']!;
    await quiet('PUT', `/v1/catalogos/${b.body.id}/produtos/${shared.id}`, {
      headers: { 'idempotency-key': key(), 'if-match': shared.etag },
    });
    const selection = await quiet('GET', '/v1/empresa/vigilancia');
    await quiet('PATCH', '/v1/empresa/vigilancia', {
      headers: { 'idempotency-key': key(), 'if-match': selection.headers.get('etag')! },
      body: { modo: 'selecao', adicionar: [products['CAFE-500']!.id, shared.id] },
    });
    print(`   branch CNPJ ${branch.body.cnpj} (root + 0002 + cnpjCheckDigits); A = ${a.body.id}`);

    await step('2. Before deleting A, ask what it would do:');
    const path = `/v1/catalogos/${a.body.id}`;
    const preview = await api('GET', `${path}/impacto-exclusao`);
    const p = preview.body;
    const staleEtag = preview.headers.get('etag')!;
    print(
      `  produtos ${p.produtos} linked: exclusivos ${p.exclusivos} (only in A) and compartilhados ${p.compartilhados} (OLEO-900, also in B).`,
    );
    print(
      `  produtos_desativados ${p.produtos_desativados}: the exclusive ones become inactive; selecoes_removidas ${p.selecoes_removidas}: CAFE-500`,
    );
    print(
      `  leaves the selection; selecoes_adicionadas ${p.selecoes_adicionadas}. The surveillance counters, antes → depois:`,
    );
    table(
      print,
      ['', 'antes', 'depois'],
      COUNTERS.map((name) => [name, String(p.vigilancia.antes[name]), String(p.vigilancia.depois[name])]),
      '    ',
    );
    print('  depois: only OLEO-900 stays active and eligible, and it is selected: cobertura integral.');

    await step(
      "3. Ten minutes later (emu.clock.advance('10m')) another client, the ERP with its own credential, reads",
    );
    print('   ARROZ-5K (a product of A) and changes its description:');
    await emu.clock.advance('10m');
    const erpToken = emu.companies.addCredential(company.companyId).token;
    const erp = narratedClient(emu, erpToken, (line) => print(line.replace(/^ {2}/, '  erp ')));
    const rice = await narratedClient(
      emu,
      erpToken,
      () => undefined,
    )('GET', `/v1/produtos/${products['ARROZ-5K']!.id}`);
    await erp('PATCH', `/v1/produtos/${rice.body.id}`, {
      headers: { 'idempotency-key': key(), 'if-match': rice.headers.get('etag')! },
      body: { descricao: 'Arroz branco tipo 1, 5 kg' },
    });

    await step('4. DELETE with the preview read in step 2 (If-Match: its ETag):');
    const stale = await api('DELETE', path, { headers: { 'idempotency-key': key(), 'if-match': staleEtag } });
    let catalog = (await quiet('GET', path)).body;
    print(
      `  ${stale.status} ${stale.body.erro.codigo}: what was previewed is not what would be deleted (a linked product moved).`,
    );
    print(
      `  GET /v1/catalogos/{A}: estado ${catalog.estado}, produtos ${catalog.produtos}, versao ${catalog.versao}: nothing was deleted.`,
    );

    await step(
      '5. Read the preview again (GET …/impacto-exclusao): the same figures (a description does not change them),',
    );
    print('   a new ETag. DELETE with it:');
    const fresh = await quiet('GET', `${path}/impacto-exclusao`);
    print(
      `  ETag ${staleEtag} → ${fresh.headers.get('etag')}; same figures: ${JSON.stringify(fresh.body) === JSON.stringify(p)}.`,
    );
    const deleted = await api('DELETE', path, {
      headers: { 'idempotency-key': key(), 'if-match': fresh.headers.get('etag')! },
    });
    print(
      `  ${deleted.status} ${deleted.body.estado}: excluido_em ${deleted.body.excluido_em}, versao ${deleted.body.versao}, produtos ${deleted.body.produtos}.`,
    );

    await step('6. The effects, read back:');
    const vigilancia = (await quiet('GET', '/v1/empresa/vigilancia')).body;
    const depois = fresh.body.vigilancia.depois;
    const now = JSON.stringify(COUNTERS.map((name) => vigilancia[name]));
    print(`  GET /v1/empresa/vigilancia: ${COUNTERS.map((name) => `${name} ${vigilancia[name]}`).join(', ')}`);
    print(`  equals the preview's depois: ${now === JSON.stringify(COUNTERS.map((name) => depois[name]))}.`);
    const list = (await quiet('GET', '/v1/produtos')).body.itens as Array<{
      id: string;
      sku: string;
      ativo: boolean;
      catalogos: string[];
      versao: number;
    }>;
    const watched = new Set(
      ((await quiet('GET', '/v1/empresa/vigilancia/produtos')).body.itens as Array<{ id: string }>).map(
        (item) => item.id,
      ),
    );
    table(
      print,
      ['produto', 'ativo', 'catalogos', 'versao', 'watched'],
      list.map((item) => [
        item.sku,
        String(item.ativo),
        item.catalogos.map((id) => names.get(id) ?? id).join(',') || null,
        item.versao,
        watched.has(item.id) ? 'yes' : 'no',
      ]),
    );
    const office = (await quiet('GET', `/v1/estabelecimentos/${company.headOffice.id}`)).body;
    print(`  The head office: catalogo_id ${office.catalogo_id}, versao ${office.versao}: free to take a new catalog.`);
    catalog = (await quiet('GET', path)).body;
    print(
      `  Catalog A stays readable: estado ${catalog.estado}; its product list answers 409 ${(await quiet('GET', `${path}/produtos`)).body.erro.codigo}.`,
    );
  },
};
