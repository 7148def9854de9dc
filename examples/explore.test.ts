// The explore examples of the README and docs/explore.md, shown as written (examples/readme.test.ts checks them): a
// small integration that creates a catalog and a product, searched with explore(); written with a mistake (a lost
// answer retried under a new key), the search finds it and prints examples/explore-output.txt; written right, it
// passes every run.
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { explore, formatExploration, type ExploreRun } from 'catalog-emulator';

const sample = (name: string) => readFileSync(new URL(name, import.meta.url), 'utf8');

/** The integration under test: a catalog for the head office, then a product in it, each retried until it lands. */
async function syncCatalog({ fetch, token, sleep }: ExploreRun, keyPerAttempt = false): Promise<void> {
  let sent = 0;
  const send = async (method: string, path: string, body?: unknown) => {
    let key = `sync-catalog-key-${String(++sent).padStart(4, '0')}`;
    for (let attempt = 1; attempt <= 5; attempt++) {
      if (keyPerAttempt) key = `sync-catalog-key-${String(++sent).padStart(4, '0')}`; // the mistake
      try {
        const answer = await fetch(path, {
          method,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const text = await answer.text();
        if (answer.status !== 429 && answer.status !== 503) return { status: answer.status, body: JSON.parse(text) };
        await sleep(Number(answer.headers.get('retry-after') ?? 1) * 1000);
      } catch {
        // a connection reset, a cut or malformed answer: send it again, with the same key
      }
    }
    throw new Error(`${method} ${path}: no answer after 5 attempts`);
  };
  const [headOffice] = (await send('GET', '/v1/estabelecimentos')).body.itens;
  const catalog = await send('POST', '/v1/catalogos', { estabelecimento_id: headOffice.id, nome: 'Loja' });
  if (catalog.status !== 201) throw new Error(`the catalog was refused: ${catalog.status}`);
  const product = await send('POST', `/v1/catalogos/${catalog.body.id}/produtos`, {
    origem: 'erp',
    ncm: '84713012',
    sku: 'A-1',
  });
  if (product.status !== 201) throw new Error(`the product was refused: ${product.status}`);
}

test('explore finds the lost answer retried under a new key, shrunk to the one fault, and prints it', async () => {
  const scenario = (run: ExploreRun) => syncCatalog(run, true);
  // #region explore
  const result = await explore(scenario, { runs: 100, seed: 1 });
  // #endregion
  // The plan docs/explore.md shows.
  expect(result.failure?.plan).toEqual(JSON.parse(sample('explore-plan.json')));
  expect(formatExploration(result)).toBe(
    readFileSync(new URL('explore-output.txt', import.meta.url), 'utf8').trimEnd(),
  );
  expect(() => {
    // #region fail-the-test
    if (result.failure || result.incomplete) throw new Error(formatExploration(result));
    // #endregion
  }).toThrow(/^a run fails under the plan: loseResponse on the 1st POST \/v1\/catalogos/);
});

test('the same integration written right passes every run', async () => {
  const result = await explore((run) => syncCatalog(run), { runs: 100, seed: 1 });
  expect(result).toEqual({ seed: 1, runs: 100, passed: 100, failure: null, incomplete: null });
});
