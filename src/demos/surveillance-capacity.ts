/**
 * demo surveillance-capacity: a company with room for 3 watched products and 5 in its catalog. The counters of
 * GET /v1/empresa/vigilancia, a selection within capacity, the 409 capacidade_insuficiente that changes nothing,
 * a capacity cut (capacidade_excedida, vigilancia.degradada), its restoration (vigilancia.restabelecida) and
 * mode todos once everything fits (spec "Surveillance selection and capacity"; docs/api.md "Surveillance selection",
 * "The controls").
 */
import { scene, table, type Demo } from './narrator.js';

const HOOKS = 'https://hooks.acme.example';
const PRODUCTS = [
  ['CAFE-500', 'Café torrado 500 g', '09012100'],
  ['ACUCAR-1K', 'Açúcar refinado 1 kg', '17019900'],
  ['ARROZ-5K', 'Arroz branco 5 kg', '10063021'],
  ['FEIJAO-1K', 'Feijão carioca 1 kg', '07133399'],
  ['OLEO-900', 'Óleo de soja 900 ml', '15079011'],
] as const;

export const surveillanceCapacity: Demo = {
  name: 'surveillance-capacity',
  summary: 'the surveillance counters, a 409 over capacity, a capacity cut and its restoration (events)',
  async run(print, pacer) {
    const { emu, company, api, quiet, step, key } = scene(print, pacer, 'demo-vigilancia', { surveillanceCapacity: 3 });
    const history: Array<[string, string, number, number, string, string]> = [];
    const events: Array<{ tipo: string; [field: string]: unknown }> = [];
    let reported = 0;
    /** Delivers what is due (the clock is manual) and returns the events the receiver got since the last call. */
    const deliver = async () => {
      await emu.clock.advance(0);
      const fresh = events.slice(reported);
      reported = events.length;
      return fresh;
    };
    const record = async (what: string, event = '') => {
      const v = (await quiet('GET', '/v1/empresa/vigilancia')).body;
      history.push([what, v.modo, v.selecionados, v.capacidade, v.cobertura, event]);
    };

    await step(
      '1. Acme: capacity 3 (emu.companies.create({ surveillanceCapacity: 3 })), a webhook destination routed to an',
    );
    print(
      '   in-process receiver that records each event, and a head office catalog with 5 products (set up quietly).',
    );
    await quiet('PUT', '/v1/webhook', {
      headers: { 'idempotency-key': key(), 'if-none-match': '*' },
      body: { url: `${HOOKS}/catalogo` },
    });
    emu.network.route(HOOKS, async (request) => {
      events.push(JSON.parse(await request.text()).dados);
      return new Response(null, { status: 200 });
    });
    const catalog = await quiet('POST', '/v1/catalogos', {
      headers: { 'idempotency-key': key() },
      body: { estabelecimento_id: company.headOffice.id, nome: 'Loja principal' },
    });
    const ids: string[] = [];
    for (const [sku, descricao, ncm] of PRODUCTS) {
      const created = await quiet('POST', `/v1/catalogos/${catalog.body.id}/produtos`, {
        headers: { 'idempotency-key': key() },
        body: { origem: 'erp', sku, descricao, ncm },
      });
      ids.push(created.body.id);
    }
    print(`   products: ${PRODUCTS.map(([sku]) => sku).join(', ')}`);

    await step('2. The counters.');
    let view = await api('GET', '/v1/empresa/vigilancia');
    const v = view.body;
    print(
      `  cadastrados ${v.cadastrados}: active products.  elegiveis ${v.elegiveis}: active and linked to an active catalog.`,
    );
    print(`  selecionados ${v.selecionados}: watched now (the selection; in mode todos, every eligible product).`);
    print(
      `  vagas ${v.vagas} = capacidade ${v.capacidade} − selecionados.  cobertura ${v.cobertura}: nothing is watched yet.`,
    );
    print(
      `  exige_selecao ${v.exige_selecao}: elegiveis ${v.elegiveis} > capacidade ${v.capacidade}, so mode todos cannot be chosen; Acme must select.`,
    );
    await record('start');

    await step('3. Select CAFE-500, ACUCAR-1K and ARROZ-5K (PATCH, If-Match: the selection ETag).');
    view = await api('PATCH', '/v1/empresa/vigilancia', {
      headers: { 'idempotency-key': key(), 'if-match': view.headers.get('etag')! },
      body: { modo: 'selecao', adicionar: ids.slice(0, 3) },
    });
    print(`  cobertura ${view.body.cobertura}: 3 of the 5 eligible products are watched; vagas ${view.body.vagas}.`);
    await record('select 3');
    const etag = view.headers.get('etag')!;

    await step('4. Adding FEIJAO-1K would make 4 > 3:');
    const refused = await api('PATCH', '/v1/empresa/vigilancia', {
      headers: { 'idempotency-key': key(), 'if-match': etag },
      body: { modo: 'selecao', adicionar: [ids[3]!] },
    });
    let after = await quiet('GET', '/v1/empresa/vigilancia');
    print(
      `  ${refused.status} ${refused.body.erro.codigo}. GET again: ETag ${after.headers.get('etag')} (the same), selecionados ${after.body.selecionados}: nothing changed.`,
    );
    print('  Mode todos would watch all 5 eligible products: refused too.');
    const todos = await api('PATCH', '/v1/empresa/vigilancia', {
      headers: { 'idempotency-key': key(), 'if-match': etag },
      body: { modo: 'todos' },
    });
    after = await quiet('GET', '/v1/empresa/vigilancia');
    print(
      `  ${todos.status} ${todos.body.erro.codigo}; still modo ${after.body.modo}, versao ${after.body.versao}, the same ETag: ${after.headers.get('etag') === etag}.`,
    );
    await record('add 1; todos (409)');

    await step('5. The contract changes: capacity cut to 2 (emu.companies.update(id, { surveillanceCapacity: 2 })).');
    emu.companies.update(company.companyId, { surveillanceCapacity: 2 });
    after = await quiet('GET', '/v1/empresa/vigilancia');
    print(
      `  GET: selecionados ${after.body.selecionados} > capacidade ${after.body.capacidade}, vagas ${after.body.vagas}, cobertura ${after.body.cobertura}.`,
    );
    print(
      `  The selection was not touched (versao ${after.body.versao}, same ETag: ${after.headers.get('etag') === etag}): Acme decides what to drop.`,
    );
    print(
      `  Raised, not yet sent (the clock is manual): the receiver has ${events.length - reported} events. emu.clock.advance(0):`,
    );
    let received = await deliver();
    for (const dados of received) print(`  received ${dados.tipo}: ${JSON.stringify(dados)}`);
    await record('capacity 2', received.map((dados) => dados.tipo).join(', '));

    await step(
      '6. Acme could remove one product (2 of 2). Instead the capacity comes back, at 5, through the HTTP controls:',
    );
    await api('PATCH', `/_emulator/companies/${company.companyId}`, { body: { surveillanceCapacity: 5 } });
    after = await quiet('GET', '/v1/empresa/vigilancia');
    print(
      `  GET: cobertura ${after.body.cobertura}, vagas ${after.body.vagas}, exige_selecao ${after.body.exige_selecao}. emu.clock.advance(0):`,
    );
    received = await deliver();
    for (const dados of received) print(`  received ${dados.tipo}: ${JSON.stringify(dados)}`);
    await record('capacity 5', received.map((dados) => dados.tipo).join(', '));

    await step('7. Now elegiveis 5 ≤ capacidade 5: mode todos is accepted and watches every eligible product.');
    view = await api('PATCH', '/v1/empresa/vigilancia', {
      headers: { 'idempotency-key': key(), 'if-match': after.headers.get('etag')! },
      body: { modo: 'todos' },
    });
    print(
      `  cobertura ${view.body.cobertura}, selecionados ${view.body.selecionados}, vagas ${view.body.vagas}, versao ${view.body.versao}.`,
    );
    received = await deliver();
    print(
      `  parcial → integral raises no event (received: ${received.length}). The 3 selected are kept for a return to selecao.`,
    );
    await record('modo todos', received.map((dados) => dados.tipo).join(', '));

    await step('The cobertura over the story:');
    table(
      print,
      ['step', 'modo', 'selecionados', 'capacidade', 'cobertura', 'event'],
      history.map((row) => [...row.slice(0, 5), row[5] || null]),
    );
    print('  Events are raised only when cobertura enters or leaves capacidade_excedida / indisponivel.');
  },
};
