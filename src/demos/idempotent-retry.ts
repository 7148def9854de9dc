/**
 * demo idempotent-retry: a PATCH whose answer is lost, its retry with the same idempotency-key answered
 * from the store, and a 412 race that a fresh read resolves (docs/api.md "Rules every request follows", "Faults").
 */
import { scene, type Demo } from './narrator.js';

export const idempotentRetry: Demo = {
  name: 'idempotent-retry',
  summary: 'a lost answer, the retry with the same key, and a 412 race',
  async run(print, pacer) {
    const { emu, company, api, step } = scene(print, pacer, 'demo-idempotencia');

    await step('1. Set the scene: a catalog for the head office, and a product in it.');
    const catalog = await api('POST', '/v1/catalogos', {
      headers: { 'idempotency-key': 'demo-catalog-0000001' },
      body: { estabelecimento_id: company.headOffice.id, nome: 'Loja principal' },
    });
    const created = await api('POST', `/v1/catalogos/${catalog.body.id}/produtos`, {
      headers: { 'idempotency-key': 'demo-product-0000001' },
      body: { origem: 'erp', ncm: '21069090', sku: 'CAFE-500', descricao: 'Café torrado 500 g' },
    });
    const productPath = `/v1/produtos/${created.body.id}`;
    const etag = created.headers.get('etag')!;

    await step('2. A fault: the next PATCH is applied, but its answer is lost on the way back.');
    const fault = emu.faults.add({
      target: 'api',
      match: { method: 'PATCH', path: '/v1/produtos/*' },
      effect: { loseResponse: true },
    });
    print(`  (emu.faults.add → ${fault.id}: loseResponse on PATCH /v1/produtos/*)`);
    const patch = { descricao: 'Café torrado e moído 500 g' };
    const lost = await api('PATCH', productPath, {
      headers: { 'idempotency-key': 'demo-patch-00000001', 'if-match': etag },
      body: patch,
    });
    print(`  The client saw ${lost.status}. Did the change happen? It cannot know.`);

    await step(
      '3. The client retries the same request with the same idempotency-key (and the same, now stale, If-Match).',
    );
    const retry = await api('PATCH', productPath, {
      headers: { 'idempotency-key': 'demo-patch-00000001', 'if-match': etag },
      body: patch,
    });
    print(
      `  ${retry.status} with idempotent-replayed: ${retry.headers.get('idempotent-replayed')}: the stored answer, before any ETag check.`,
    );
    print(`  versao is ${retry.body.versao}: the change was applied exactly once.`);

    await step('4. Reusing that key for a different change is refused: one key, one request.');
    await api('PATCH', productPath, {
      headers: { 'idempotency-key': 'demo-patch-00000001', 'if-match': etag },
      body: { sku: 'CAFE-1KG' },
    });

    await step('5. A 412 race: someone else saves the product just before our next PATCH is evaluated.');
    const race = emu.faults.add({ target: 'api', match: { method: 'PATCH' }, effect: { concurrentEdit: true } });
    print(`  (emu.faults.add → ${race.id}: concurrentEdit on PATCH)`);
    const current = retry.headers.get('etag')!;
    const refused = await api('PATCH', productPath, {
      headers: { 'idempotency-key': 'demo-patch-00000002', 'if-match': current },
      body: { sku: 'CAFE-500G' },
    });
    print(`  ${refused.status} ${refused.body.erro.codigo}: nothing was changed by this request.`);

    await step('6. Resolve it as a client should: read again, reapply the change on the fresh version, new key.');
    const fresh = await api('GET', productPath);
    const done = await api('PATCH', productPath, {
      headers: { 'idempotency-key': 'demo-patch-00000003', 'if-match': fresh.headers.get('etag')! },
      body: { sku: 'CAFE-500G' },
    });
    print(`  ${done.status}: versao ${done.body.versao}, sku ${done.body.sku}.`);

    await step('The journal (emu.journal.entries()) shows what the service saw:');
    for (const entry of emu.journal.entries()) {
      const notes = [entry.replayed ? 'replayed' : '', entry.faultId ? `fault ${entry.faultId}` : '']
        .filter(Boolean)
        .join(', ');
      print(`  ${entry.method.padEnd(6)} ${entry.path} → ${entry.status}${notes ? ` (${notes})` : ''}`);
    }
  },
};
