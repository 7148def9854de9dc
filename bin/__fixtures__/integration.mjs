// A small integration, as a client in another language would be written: a catalog for the head office, a product
// in it, an edit of the product. It retries what can be retried (a 503 or 429 after its Retry-After, a connection
// reset, a cut or malformed answer) with the same idempotency-key, and re-reads the product after a 412. With
// ANALYSIS it then asks for an analysis and waits for it, polling each minute of its clock (ANALYSIS=poll) or
// reading it once after two minutes (ANALYSIS=read-once, a mistake). MISTAKE plants one mistake: new-key-on-retry,
// precondition-taken-as-done or no-retry-on-503. The tests of
// `catalog-emulator explore` (bin/explore.test.ts) run it.
const { CATALOG_EMULATOR_URL: url, CATALOG_EMULATOR_TOKEN: token, CATALOG_EMULATOR_COMPANY_ID: company } = process.env;
const mistake = process.env.MISTAKE ?? 'none';
let keys = 0;
const newKey = () => `integration-key-${String(++keys).padStart(8, '0')}`;

/** Waits `seconds` on the company's own clock: the emulator's clock moves, no time is spent. */
async function sleep(seconds) {
  await fetch(`${url}/_emulator/companies/${company}/clock/advance`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ by: seconds * 1000 }),
  });
}

async function send(method, path, body, headers = {}) {
  let key = method === 'GET' ? undefined : newKey();
  for (let attempt = 1; attempt <= 5; attempt++) {
    try {
      const answer = await fetch(`${url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(key === undefined ? {} : { 'idempotency-key': key }),
          ...headers,
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await answer.text();
      const parsed = {
        status: answer.status,
        etag: answer.headers.get('etag'),
        body: text === '' ? {} : JSON.parse(text),
      };
      if (parsed.status !== 503 && parsed.status !== 429) return parsed;
      if (parsed.status === 503 && mistake === 'no-retry-on-503') throw new Error(`${method} ${path} answered 503`);
      await sleep(Number(answer.headers.get('retry-after') ?? 1));
    } catch (error) {
      if (error.message.endsWith('answered 503')) throw error;
      // a reset, a cut or malformed answer: send it again
    }
    if (mistake === 'new-key-on-retry' && key !== undefined) key = newKey();
  }
  throw new Error(`${method} ${path}: no answer after 5 attempts`);
}

const [headOffice] = (await send('GET', '/v1/estabelecimentos')).body.itens;
const catalog = await send('POST', '/v1/catalogos', { estabelecimento_id: headOffice.id, nome: 'Loja' });
if (catalog.status !== 201) throw new Error(`catalog: ${catalog.status}`);
const product = await send('POST', `/v1/catalogos/${catalog.body.id}/produtos`, {
  origem: 'erp',
  ncm: '84713012',
  sku: 'SKU-1',
});
if (product.status !== 201) throw new Error(`product: ${product.status}`);
let etag = product.etag;
for (let attempt = 1; ; attempt++) {
  const edited = await send(
    'PATCH',
    `/v1/produtos/${product.body.id}`,
    { descricao: 'Notebook' },
    { 'if-match': etag },
  );
  if (edited.status === 200) break;
  if (edited.status !== 412 || attempt >= 5) throw new Error(`edit: ${edited.status}`);
  if (mistake === 'precondition-taken-as-done') break;
  etag = (await send('GET', `/v1/produtos/${product.body.id}`)).etag;
}
console.log(`synced: catalog ${catalog.body.id}, product ${product.body.id}`);
if (process.env.ANALYSIS !== undefined) {
  const analysis = await send('POST', '/v1/analises');
  if (analysis.status !== 202 && analysis.status !== 200) throw new Error(`analysis: ${analysis.status}`);
  const polls = process.env.ANALYSIS === 'read-once' ? 1 : 30;
  let estado = analysis.body.estado;
  for (let poll = 1; poll <= polls && estado !== 'concluida'; poll++) {
    await sleep(process.env.ANALYSIS === 'read-once' ? 120 : 60);
    estado = (await send('GET', `/v1/analises/${analysis.body.id}`)).body.estado;
  }
  if (estado !== 'concluida') throw new Error(`the analysis is ${estado}, not concluida`);
  console.log(`analysis ${analysis.body.id}: concluida`);
}
