/**
 * Establishments over HTTP: spec "Establishment" and "Endpoints › Establishments"; the list and the archive
 * (DELETE) paths of docs/api.md; the choices of docs/where-the-spec-is-silent.md (codes, caminhos,
 * lifecycle).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { headOfficeCatalog, newKey, world, type World } from './support/client.js';
import { cnpjOf, oracleCnpj } from './support/cnpj.js';
import { ETAG, expectError, REQUEST_ID, UUID } from './support/expect.js';
import { branch, listAll, orderFor, ownListStart, UNKNOWN_ID } from './support/fixtures.js';
import { deployment } from './support/deployment.js';

interface CnpjVectors {
  readonly rule: string;
  readonly valid: readonly string[];
  readonly invalid: readonly { readonly cnpj: string; readonly why: string }[];
}
const VECTORS = JSON.parse(readFileSync(new URL('./vectors/cnpj.json', import.meta.url), 'utf8')) as CnpjVectors;

/**
 * The ids of the test's own establishments, in list order: the whole list in a company of the test's own; on a
 * deployment, the list from the world's first establishment on (earlier tests' establishments come before it).
 */
async function ownEstablishments(w: World): Promise<string[]> {
  const { ids } = await listAll(
    w.api,
    '/v1/estabelecimentos',
    'limite=200',
    await ownListStart(w.api, '/v1/estabelecimentos', w.company.headOffice.id),
  );
  return ids;
}

/** Another digit in place of `digit`, so the result is wrong but still a digit. */
const otherDigit = (digit: string) => String((Number(digit) + 1) % 10);

describe("CNPJ check digits (the tests' own implementation)", () => {
  it('agrees with every vector: valid ones rebuild, invalid ones do not', () => {
    for (const cnpj of VECTORS.valid) expect(oracleCnpj(cnpj.slice(0, 12))).toBe(cnpj);
    const shape = /^[A-Z0-9]{12}[0-9]{2}$/;
    for (const { cnpj } of VECTORS.invalid)
      expect(shape.test(cnpj) && oracleCnpj(cnpj.slice(0, 12)) === cnpj).toBe(false);
  });
});

describe('POST /v1/estabelecimentos', () => {
  // spec: CONV-01, EST-01, EST-02, EST-03, EST-06, EST-14, EST-16, EST-17
  it("registers a branch: 201 with ETag, Location, x-request-id and exactly the spec's fields", async () => {
    const w = await world();
    const cnpj = cnpjOf(w.company.cnpjRoot, orderFor('0002'));
    const answer = await w.api.post('/v1/estabelecimentos', {
      cnpj,
      nome: 'Filial Centro',
      id_externo: 'erp-filial-2',
    });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body).toEqual({
      id: expect.stringMatching(UUID),
      cnpj,
      nome: 'Filial Centro',
      estado: 'ativo',
      versao: 1,
      catalogo_id: null,
      id_externo: 'erp-filial-2',
    });
    expect(answer.headers.get('etag')).toMatch(ETAG);
    expect(answer.headers.get('location')).toBe(`/v1/estabelecimentos/${answer.body.id}`);
    expect(answer.headers.get('x-request-id')).toMatch(REQUEST_ID);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it("lists the head office, created with the company, with a CNPJ of the company's root and order 0001", async () => {
    const w = await world({}, { name: 'Acme Matriz' });
    expect(w.company.headOffice.cnpj).toBe(cnpjOf(w.company.cnpjRoot, '0001'));
    const answer = await w.api.get('/v1/estabelecimentos');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      itens: [
        {
          id: w.company.headOffice.id,
          cnpj: w.company.headOffice.cnpj,
          nome: 'Acme Matriz',
          estado: 'ativo',
          versao: 1,
          catalogo_id: null,
          id_externo: null,
        },
      ],
      proximo_id: null,
    });
  });

  // spec: EST-04
  it('accepts alphanumeric order parts whose check digits follow the rule', async () => {
    const w = await world();
    for (const order of ['AB12', 'Z9Y8', '0A0B']) {
      const cnpj = cnpjOf(w.company.cnpjRoot, orderFor(order));
      const answer = await w.api.post('/v1/estabelecimentos', { cnpj, nome: `Filial ${order}` });
      expect(answer.status, `${cnpj}: ${answer.text}`).toBe(201);
      expect(answer.body.cnpj).toBe(cnpj);
    }
  });

  // spec: EST-08
  it('refuses each invalid vector with 422 cnpj_invalido at body.cnpj', async () => {
    const w = await world();
    for (const { cnpj, why } of VECTORS.invalid) {
      const answer = await w.api.post('/v1/estabelecimentos', { cnpj, nome: 'Filial' });
      expect(answer.status, `${cnpj} (${why})`).toBe(422);
      expectError(answer, 422, 'cnpj_invalido', 'body.cnpj');
    }
  });

  // spec: EST-08
  it("refuses every invalid shape built on the company's own root with 422 cnpj_invalido", async () => {
    const w = await world();
    const valid = cnpjOf(w.company.cnpjRoot, orderFor('CD34'));
    const d1 = valid.charAt(12);
    const d2 = valid.charAt(13);
    const base = valid.slice(0, 12);
    const shapes: Record<string, string> = {
      'wrong second check digit': `${base}${d1}${otherDigit(d2)}`,
      'wrong first check digit': `${base}${otherDigit(d1)}${d2}`,
      'lowercase letters': valid.toLowerCase(),
      '13 characters': valid.slice(0, 13),
      '15 characters': `${valid}0`,
      punctuation: `${valid.slice(0, 2)}.${valid.slice(2, 5)}.${valid.slice(5, 8)}/${valid.slice(8, 12)}-${valid.slice(12)}`,
      'letter in a check-digit position': `${base}${d1}A`,
      'surrounding whitespace': ` ${valid} `,
      empty: '',
    };
    for (const [why, cnpj] of Object.entries(shapes)) {
      const answer = await w.api.post('/v1/estabelecimentos', { cnpj, nome: 'Filial' });
      expect(answer.status, `${why}: ${JSON.stringify(cnpj)} → ${answer.text}`).toBe(422);
      expectError(answer, 422, 'cnpj_invalido', 'body.cnpj');
    }
    // The valid one it was built from is accepted: the refusals were about the shape alone.
    expect((await w.api.post('/v1/estabelecimentos', { cnpj: valid, nome: 'Filial' })).status).toBe(201);
  });

  // spec: EST-09
  it('refuses a valid CNPJ of another root with 422 cnpj_raiz_divergente', async () => {
    const w = await world();
    const foreign = VECTORS.valid.filter((cnpj) => cnpj.slice(0, 8) !== w.company.cnpjRoot);
    expect(foreign.length).toBeGreaterThan(0);
    for (const cnpj of foreign) {
      const answer = await w.api.post('/v1/estabelecimentos', { cnpj, nome: 'Filial' });
      expectError(answer, 422, 'cnpj_raiz_divergente', 'body.cnpj');
    }
    // Another company's own head office CNPJ belongs to another root too.
    const other = await w.controls.createCompany();
    expectError(
      await w.api.post('/v1/estabelecimentos', { cnpj: other.headOffice.cnpj, nome: 'Filial' }),
      422,
      'cnpj_raiz_divergente',
      'body.cnpj',
    );
  });

  it('refuses a CNPJ the company already has with 409 cnpj_duplicado, the head office and archived ones included', async () => {
    const w = await world();
    const first = await branch(w);
    expectError(
      await w.api.post('/v1/estabelecimentos', { cnpj: first.body.cnpj, nome: 'Outra' }),
      409,
      'cnpj_duplicado',
      'body.cnpj',
    );
    expectError(
      await w.api.post('/v1/estabelecimentos', { cnpj: w.company.headOffice.cnpj, nome: 'Outra' }),
      409,
      'cnpj_duplicado',
      'body.cnpj',
    );
    const archived = await w.api.delete(`/v1/estabelecimentos/${first.id}`, {}, { ifMatch: first.etag });
    expect(archived.status, archived.text).toBe(200);
    expectError(
      await w.api.post('/v1/estabelecimentos', { cnpj: first.body.cnpj, nome: 'Outra' }),
      409,
      'cnpj_duplicado',
      'body.cnpj',
    );
    expect(await ownEstablishments(w)).toEqual([w.company.headOffice.id, first.id]);
  });

  // spec: EST-10, EST-11
  it('takes nome of 1 to 120 characters: 0 and 121 are refused with 422 at body.nome, a missing one is campo_obrigatorio', async () => {
    const w = await world();
    const root = w.company.cnpjRoot;
    expectError(
      await w.api.post('/v1/estabelecimentos', { cnpj: cnpjOf(root, orderFor('0201')), nome: '' }),
      422,
      'valor_invalido',
      'body.nome',
    );
    expectError(
      await w.api.post('/v1/estabelecimentos', { cnpj: cnpjOf(root, orderFor('0201')), nome: 'n'.repeat(121) }),
      422,
      'valor_invalido',
      'body.nome',
    );
    expectError(
      await w.api.post('/v1/estabelecimentos', { cnpj: cnpjOf(root, orderFor('0201')) }),
      422,
      'campo_obrigatorio',
      'body.nome',
    );
    expectError(
      await w.api.post('/v1/estabelecimentos', { cnpj: cnpjOf(root, orderFor('0201')), nome: 7 }),
      422,
      'valor_invalido',
      'body.nome',
    );
    const one = await w.api.post('/v1/estabelecimentos', { cnpj: cnpjOf(root, orderFor('0201')), nome: 'n' });
    expect(one.status, one.text).toBe(201);
    expect(one.body.nome).toBe('n');
    const longest = await w.api.post('/v1/estabelecimentos', {
      cnpj: cnpjOf(root, orderFor('0202')),
      nome: 'n'.repeat(120),
    });
    expect(longest.status, longest.text).toBe(201);
    expect(longest.body.nome).toBe('n'.repeat(120));
  });

  // spec: EST-07
  it('requires cnpj: a missing one is 422 campo_obrigatorio at body.cnpj', async () => {
    const w = await world();
    expectError(await w.api.post('/v1/estabelecimentos', { nome: 'Filial' }), 422, 'campo_obrigatorio', 'body.cnpj');
  });

  // spec: EST-13
  it('takes id_externo null or 1 to 256 characters; empty and 257 are refused at body.id_externo', async () => {
    const w = await world();
    const root = w.company.cnpjRoot;
    const nullOne = await w.api.post('/v1/estabelecimentos', {
      cnpj: cnpjOf(root, orderFor('0301')),
      nome: 'F',
      id_externo: null,
    });
    expect(nullOne.status, nullOne.text).toBe(201);
    expect(nullOne.body.id_externo).toBeNull();
    const shortest = await w.api.post('/v1/estabelecimentos', {
      cnpj: cnpjOf(root, orderFor('0302')),
      nome: 'F',
      id_externo: 'x',
    });
    expect(shortest.status, shortest.text).toBe(201);
    expect(shortest.body.id_externo).toBe('x');
    const longest = await w.api.post('/v1/estabelecimentos', {
      cnpj: cnpjOf(root, orderFor('0303')),
      nome: 'F',
      id_externo: 'x'.repeat(256),
    });
    expect(longest.status, longest.text).toBe(201);
    expect(longest.body.id_externo).toBe('x'.repeat(256));
    expectError(
      await w.api.post('/v1/estabelecimentos', { cnpj: cnpjOf(root, orderFor('0304')), nome: 'F', id_externo: '' }),
      422,
      'valor_invalido',
      'body.id_externo',
    );
    expectError(
      await w.api.post('/v1/estabelecimentos', {
        cnpj: cnpjOf(root, orderFor('0304')),
        nome: 'F',
        id_externo: 'x'.repeat(257),
      }),
      422,
      'valor_invalido',
      'body.id_externo',
    );
    expectError(
      await w.api.post('/v1/estabelecimentos', { cnpj: cnpjOf(root, orderFor('0304')), nome: 'F', id_externo: 12 }),
      422,
      'valor_invalido',
      'body.id_externo',
    );
  });

  // spec: EST-12
  it('refuses an unknown field with 422 campo_desconhecido at its path, and creates nothing', async () => {
    const w = await world();
    const cnpj = cnpjOf(w.company.cnpjRoot, orderFor('0401'));
    expectError(
      await w.api.post('/v1/estabelecimentos', { cnpj, nome: 'F', apelido: 'x' }),
      422,
      'campo_desconhecido',
      'body.apelido',
    );
    expectError(await w.api.post('/v1/estabelecimentos', { cnpj, Nome: 'F' }), 422, 'campo_desconhecido', 'body.Nome');
    expect(await ownEstablishments(w)).toEqual([w.company.headOffice.id]);
    expect((await w.api.post('/v1/estabelecimentos', { cnpj, nome: 'F' })).status).toBe(201);
  });

  // spec: REQ-02, REQ-03
  it('repeats the original 201 for the same idempotency-key and body, creating nothing new', async () => {
    const w = await world();
    const body = { cnpj: cnpjOf(w.company.cnpjRoot, orderFor('0501')), nome: 'F' };
    const key = newKey();
    const first = await w.api.post('/v1/estabelecimentos', body, { key });
    expect(first.status).toBe(201);
    const again = await w.api.post('/v1/estabelecimentos', body, { key });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(await ownEstablishments(w)).toEqual([w.company.headOffice.id, first.body.id]);
  });
});

describe('GET /v1/estabelecimentos/{id}', () => {
  // spec: EST-18
  it('answers 200 with the establishment and the ETag of its creation', async () => {
    const w = await world();
    const created = await branch(w, { id_externo: 'e-1' });
    const answer = await w.api.get(`/v1/estabelecimentos/${created.id}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(created.body);
    expect(answer.headers.get('etag')).toBe(created.etag);
    expect(answer.headers.get('x-request-id')).toMatch(REQUEST_ID);
  });

  // spec: CONV-04
  it('accepts the id in upper case and answers it in lower case', async () => {
    const w = await world();
    const created = await branch(w);
    const answer = await w.api.get(`/v1/estabelecimentos/${created.id.toUpperCase()}`);
    expect(answer.status).toBe(200);
    expect(answer.body.id).toBe(created.id);
    expect(answer.headers.get('etag')).toBe(created.etag);
  });

  it('answers 404 estabelecimento_nao_encontrado for an unknown id', async () => {
    const w = await world();
    expectError(
      await w.api.get(`/v1/estabelecimentos/${UNKNOWN_ID}`),
      404,
      'estabelecimento_nao_encontrado',
      'path.id',
    );
  });

  // spec: REQ-13
  it('refuses a malformed id with 422 at path.id', async () => {
    const w = await world();
    for (const id of [
      'abc',
      '00000000-0000-0000-0000-000000000000',
      `${UNKNOWN_ID}0`,
      '00000000-0000-4000-c000-000000000000',
    ]) {
      const answer = await w.api.get(`/v1/estabelecimentos/${id}`);
      expect(answer.status, id).toBe(422);
      expectError(answer, 422, 'valor_invalido', 'path.id');
    }
  });

  // spec: AUTH-04
  it("answers 404 for another company's establishment, never 403", async () => {
    const w = await world();
    const other = await w.controls.createCompany();
    expectError(
      await w.api.get(`/v1/estabelecimentos/${other.headOffice.id}`),
      404,
      'estabelecimento_nao_encontrado',
      'path.id',
    );
    // and the other company sees it
    expect((await w.api.as(other.token).get(`/v1/estabelecimentos/${other.headOffice.id}`)).status).toBe(200);
  });
});

describe('GET /v1/estabelecimentos', () => {
  // spec: LIM-14
  it('pages with limite and apos_id → proximo_id, visiting every establishment exactly once in creation order', async () => {
    const w = await world();
    const created = [w.company.headOffice.id];
    for (let i = 0; i < 6; i++) created.push((await branch(w)).id);
    const { ids, sizes } = await listAll(
      w.api,
      '/v1/estabelecimentos',
      'limite=3',
      await ownListStart(w.api, '/v1/estabelecimentos', w.company.headOffice.id),
    );
    expect(ids).toEqual(created);
    expect(sizes).toEqual([3, 3, 1]);
  });

  it('ends with proximo_id null when the last page is exactly full', async () => {
    const w = await world();
    for (let i = 0; i < 3; i++) await branch(w);
    const { ids, sizes } = await listAll(
      w.api,
      '/v1/estabelecimentos',
      'limite=2',
      await ownListStart(w.api, '/v1/estabelecimentos', w.company.headOffice.id),
    );
    expect(ids).toHaveLength(4);
    expect(sizes).toEqual([2, 2]);
  });

  it('defaults limite to 50 and accepts 200', async () => {
    const w = await world();
    for (let i = 0; i < 50; i++) await branch(w);
    // From the test's own first establishment (the list's start, in a company of the test's own).
    const start = await ownListStart(w.api, '/v1/estabelecimentos', w.company.headOffice.id);
    const from = start === undefined ? '' : `apos_id=${start}`;
    const first = await w.api.get(`/v1/estabelecimentos${from === '' ? '' : `?${from}`}`);
    expect(first.status).toBe(200);
    expect(first.body.itens).toHaveLength(50);
    expect(first.body.itens[0].id).toBe(w.company.headOffice.id);
    expect(first.body.proximo_id).toBe(first.body.itens[49].id);
    const rest = await w.api.get(`/v1/estabelecimentos?apos_id=${first.body.proximo_id}`);
    expect(rest.body.itens).toHaveLength(1);
    expect(rest.body.proximo_id).toBeNull();
    const all = await w.api.get(`/v1/estabelecimentos?limite=200${from === '' ? '' : `&${from}`}`);
    expect(all.status).toBe(200);
    expect(all.body.itens).toHaveLength(51);
    expect(all.body.proximo_id).toBeNull();
  });

  it('continues after apos_id through establishments created between pages', async () => {
    const w = await world();
    await branch(w);
    const start = await ownListStart(w.api, '/v1/estabelecimentos', w.company.headOffice.id);
    const first = await w.api.get(`/v1/estabelecimentos?limite=1${start === undefined ? '' : `&apos_id=${start}`}`);
    expect(first.body.itens[0].id).toBe(w.company.headOffice.id);
    const late = await branch(w);
    const rest = await w.api.get(`/v1/estabelecimentos?limite=10&apos_id=${first.body.proximo_id}`);
    expect(rest.body.itens.map((e: { id: string }) => e.id)).toHaveLength(2);
    expect(rest.body.itens[1].id).toBe(late.id);
  });

  it('filters by estado', async () => {
    const w = await world();
    const a = await branch(w);
    const b = await branch(w);
    const archived = await w.api.delete(`/v1/estabelecimentos/${a.id}`, {}, { ifMatch: a.etag });
    expect(archived.status).toBe(200);
    // From the test's own first establishment (the list's start, in a company of the test's own).
    const start = await ownListStart(w.api, '/v1/estabelecimentos', w.company.headOffice.id);
    const from = start === undefined ? '' : `&apos_id=${start}`;
    const onlyArchived = await w.api.get(`/v1/estabelecimentos?estado=arquivado${from}`);
    expect(onlyArchived.body).toEqual({ itens: [archived.body], proximo_id: null });
    const onlyActive = await w.api.get(`/v1/estabelecimentos?estado=ativo${from}`);
    expect(onlyActive.body.itens.map((e: { id: string }) => e.id)).toEqual([w.company.headOffice.id, b.id]);
    const both = await w.api.get(`/v1/estabelecimentos${start === undefined ? '' : `?apos_id=${start}`}`);
    expect(both.body.itens.map((e: { id: string }) => e.id)).toEqual([w.company.headOffice.id, a.id, b.id]);
    // paging within a filter
    const { ids } = await listAll(w.api, '/v1/estabelecimentos', 'estado=ativo&limite=1', start);
    expect(ids).toEqual([w.company.headOffice.id, b.id]);
    expectError(await w.api.get('/v1/estabelecimentos?estado=excluido'), 422, 'valor_invalido', 'query.estado');
  });

  it('refuses limite 0, 201, abc, -1 and empty with 422 at query.limite', async () => {
    const w = await world();
    for (const limite of ['0', '201', 'abc', '-1', '', '1.5']) {
      const answer = await w.api.get(`/v1/estabelecimentos?limite=${limite}`);
      expect(answer.status, `limite=${limite}`).toBe(422);
      expectError(answer, 422, 'valor_invalido', 'query.limite');
    }
  });

  it('refuses an apos_id that is not an establishment of the company with 422 cursor_invalido', async () => {
    const w = await world();
    expectError(await w.api.get(`/v1/estabelecimentos?apos_id=${UNKNOWN_ID}`), 422, 'cursor_invalido', 'query.apos_id');
    const other = await w.controls.createCompany();
    expectError(
      await w.api.get(`/v1/estabelecimentos?apos_id=${other.headOffice.id}`),
      422,
      'cursor_invalido',
      'query.apos_id',
    );
    expectError(await w.api.get('/v1/estabelecimentos?apos_id=abc'), 422, 'valor_invalido', 'query.apos_id');
  });

  it('refuses an unknown query parameter with 422 campo_desconhecido and a repeated one with parametro_repetido', async () => {
    const w = await world();
    expectError(await w.api.get('/v1/estabelecimentos?cursor=abc'), 422, 'campo_desconhecido', 'query.cursor');
    expectError(await w.api.get('/v1/estabelecimentos?limite=1&limite=2'), 422, 'parametro_repetido', 'query.limite');
  });

  // spec: AUTH-06
  it("lists only the company's own establishments", async () => {
    const w = await world();
    const other = await w.controls.createCompany();
    const theirs = await w.api
      .as(other.token)
      .post('/v1/estabelecimentos', { cnpj: cnpjOf(other.cnpjRoot, orderFor('0002')), nome: 'Alheia' });
    expect(theirs.status, theirs.text).toBe(201);
    const { ids } = await listAll(w.api, '/v1/estabelecimentos', 'limite=200');
    // In a company of the test's own the list is its head office alone; a deployment's lists earlier tests' too.
    if (deployment === undefined) expect(ids).toEqual([w.company.headOffice.id]);
    expect(ids).toContain(w.company.headOffice.id);
    expect(ids).not.toContain(theirs.body.id);
    expect(ids).not.toContain(other.headOffice.id);
  });
});

describe('PATCH /v1/estabelecimentos/{id}', () => {
  // spec: EST-26, EST-28, REQ-06
  it('changes nome, keeps omitted fields, moves versao by one and the ETag', async () => {
    const w = await world();
    const created = await branch(w, { nome: 'Antes', id_externo: 'ext-1' });
    const answer = await w.api.patch(
      `/v1/estabelecimentos/${created.id}`,
      { nome: 'Depois' },
      { ifMatch: created.etag },
    );
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({ ...created.body, nome: 'Depois', versao: 2 });
    expect(answer.headers.get('etag')).toMatch(ETAG);
    expect(answer.headers.get('etag')).not.toBe(created.etag);
    const read = await w.api.get(`/v1/estabelecimentos/${created.id}`);
    expect(read.body).toEqual(answer.body);
    expect(read.headers.get('etag')).toBe(answer.headers.get('etag'));
  });

  // spec: EST-25, EST-26
  it('sets id_externo, and null clears it while nome is kept', async () => {
    const w = await world();
    const created = await branch(w, { nome: 'Fixo' });
    const set = await w.api.patch(
      `/v1/estabelecimentos/${created.id}`,
      { id_externo: 'novo' },
      { ifMatch: created.etag },
    );
    expect(set.status, set.text).toBe(200);
    expect(set.body).toMatchObject({ nome: 'Fixo', id_externo: 'novo', versao: 2 });
    const cleared = await w.api.patch(
      `/v1/estabelecimentos/${created.id}`,
      { id_externo: null },
      { ifMatch: set.headers.get('etag')! },
    );
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.body).toEqual({ ...created.body, nome: 'Fixo', id_externo: null, versao: 3 });
    expect(cleared.headers.get('etag')).not.toBe(set.headers.get('etag'));
  });

  // spec: EST-22
  it('refuses {} with 422 and changes nothing', async () => {
    const w = await world();
    const created = await branch(w);
    expectError(
      await w.api.patch(`/v1/estabelecimentos/${created.id}`, {}, { ifMatch: created.etag }),
      422,
      'valor_invalido',
      'body',
    );
    const read = await w.api.get(`/v1/estabelecimentos/${created.id}`);
    expect(read.headers.get('etag')).toBe(created.etag);
  });

  // spec: EST-27
  it('refuses cnpj in the body with 422 campo_desconhecido (corrections are a separate request)', async () => {
    const w = await world();
    const created = await branch(w);
    const answer = await w.api.patch(
      `/v1/estabelecimentos/${created.id}`,
      { nome: 'X', cnpj: cnpjOf(w.company.cnpjRoot, orderFor('0999')) },
      { ifMatch: created.etag },
    );
    expectError(answer, 422, 'campo_desconhecido', 'body.cnpj');
  });

  // spec: EST-23, EST-24
  it('refuses nome of 0 or 121 characters and an empty id_externo', async () => {
    const w = await world();
    const created = await branch(w);
    const path = `/v1/estabelecimentos/${created.id}`;
    expectError(await w.api.patch(path, { nome: '' }, { ifMatch: created.etag }), 422, 'valor_invalido', 'body.nome');
    expectError(
      await w.api.patch(path, { nome: 'n'.repeat(121) }, { ifMatch: created.etag }),
      422,
      'valor_invalido',
      'body.nome',
    );
    expectError(
      await w.api.patch(path, { id_externo: '' }, { ifMatch: created.etag }),
      422,
      'valor_invalido',
      'body.id_externo',
    );
    expectError(
      await w.api.patch(path, { id_externo: 'x'.repeat(257) }, { ifMatch: created.etag }),
      422,
      'valor_invalido',
      'body.id_externo',
    );
  });

  // spec: EST-20
  it('answers 428 precondicao_ausente at header.if-match without If-Match', async () => {
    const w = await world();
    const created = await branch(w);
    expectError(
      await w.api.patch(`/v1/estabelecimentos/${created.id}`, { nome: 'X' }),
      428,
      'precondicao_ausente',
      'header.if-match',
    );
  });

  // spec: EST-21, REQ-05
  it('answers 412 precondicao_falhou for a stale ETag and applies nothing', async () => {
    const w = await world();
    const created = await branch(w, { nome: 'Original' });
    const first = await w.api.patch(
      `/v1/estabelecimentos/${created.id}`,
      { nome: 'Primeira' },
      { ifMatch: created.etag },
    );
    expect(first.status).toBe(200);
    expectError(
      await w.api.patch(`/v1/estabelecimentos/${created.id}`, { nome: 'Segunda' }, { ifMatch: created.etag }),
      412,
      'precondicao_falhou',
      'header.if-match',
    );
    const read = await w.api.get(`/v1/estabelecimentos/${created.id}`);
    expect(read.body).toMatchObject({ nome: 'Primeira', versao: 2 });
  });

  // spec: AUTH-05
  it("answers 404 for an unknown or another company's establishment", async () => {
    const w = await world();
    const created = await branch(w);
    expectError(
      await w.api.patch(`/v1/estabelecimentos/${UNKNOWN_ID}`, { nome: 'X' }, { ifMatch: created.etag }),
      404,
      'estabelecimento_nao_encontrado',
      'path.id',
    );
    const other = await w.controls.createCompany();
    const theirs = await w.api.as(other.token).get(`/v1/estabelecimentos/${other.headOffice.id}`);
    expectError(
      await w.api.patch(
        `/v1/estabelecimentos/${other.headOffice.id}`,
        { nome: 'X' },
        { ifMatch: theirs.headers.get('etag')! },
      ),
      404,
      'estabelecimento_nao_encontrado',
      'path.id',
    );
  });
});

describe('DELETE /v1/estabelecimentos/{id} (archive)', () => {
  // spec: EST-02
  it('archives: 200 with estado arquivado, versao + 1 and a new ETag', async () => {
    const w = await world();
    const created = await branch(w, { id_externo: 'arch' });
    const answer = await w.api.delete(`/v1/estabelecimentos/${created.id}`, {}, { ifMatch: created.etag });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({ ...created.body, estado: 'arquivado', versao: 2 });
    expect(answer.headers.get('etag')).toMatch(ETAG);
    expect(answer.headers.get('etag')).not.toBe(created.etag);
    const read = await w.api.get(`/v1/estabelecimentos/${created.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(answer.body);
    expect(read.headers.get('etag')).toBe(answer.headers.get('etag'));
  });

  it('accepts an absent body (no content-type, no content-length), as it does {}', async () => {
    const w = await world();
    const created = await branch(w);
    const answer = await w.api.delete(`/v1/estabelecimentos/${created.id}`, undefined, { ifMatch: created.etag });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({ ...created.body, estado: 'arquivado', versao: 2 });
  });

  it('needs If-Match (428) and the current ETag (412)', async () => {
    const w = await world();
    const created = await branch(w);
    expectError(
      await w.api.delete(`/v1/estabelecimentos/${created.id}`, {}),
      428,
      'precondicao_ausente',
      'header.if-match',
    );
    const edited = await w.api.patch(`/v1/estabelecimentos/${created.id}`, { nome: 'X' }, { ifMatch: created.etag });
    expect(edited.status).toBe(200);
    expectError(
      await w.api.delete(`/v1/estabelecimentos/${created.id}`, {}, { ifMatch: created.etag }),
      412,
      'precondicao_falhou',
      'header.if-match',
    );
    expect((await w.api.get(`/v1/estabelecimentos/${created.id}`)).body.estado).toBe('ativo');
  });

  it('refuses an establishment with an active catalog with 409 estabelecimento_com_catalogo_ativo', async () => {
    const w = await world();
    await headOfficeCatalog(w);
    const read = await w.api.get(`/v1/estabelecimentos/${w.company.headOffice.id}`);
    const answer = await w.api.delete(
      `/v1/estabelecimentos/${w.company.headOffice.id}`,
      {},
      { ifMatch: read.headers.get('etag')! },
    );
    expectError(answer, 409, 'estabelecimento_com_catalogo_ativo', null);
    const after = await w.api.get(`/v1/estabelecimentos/${w.company.headOffice.id}`);
    expect(after.body).toEqual(read.body);
  });

  it('makes the establishment read-only: PATCH, a new catalog and a second DELETE answer 409', async () => {
    const w = await world();
    const created = await branch(w);
    const archived = await w.api.delete(`/v1/estabelecimentos/${created.id}`, {}, { ifMatch: created.etag });
    expect(archived.status).toBe(200);
    const etag = archived.headers.get('etag')!;
    expectError(
      await w.api.patch(`/v1/estabelecimentos/${created.id}`, { nome: 'X' }, { ifMatch: etag }),
      409,
      'estabelecimento_arquivado',
      null,
    );
    const catalog = await w.api.post('/v1/catalogos', { estabelecimento_id: created.id, nome: 'Loja' });
    expect(catalog.status, catalog.text).toBe(409);
    expect(catalog.body.erro.codigo).toBe('estabelecimento_arquivado');
    expectError(
      await w.api.delete(`/v1/estabelecimentos/${created.id}`, {}, { ifMatch: etag }),
      409,
      'estabelecimento_arquivado',
      null,
    );
    const read = await w.api.get(`/v1/estabelecimentos/${created.id}`);
    expect(read.body).toEqual(archived.body);
    expect(read.headers.get('etag')).toBe(etag);
  });

  it('answers 404 for an unknown id', async () => {
    const w = await world();
    const created = await branch(w);
    expectError(
      await w.api.delete(`/v1/estabelecimentos/${UNKNOWN_ID}`, {}, { ifMatch: created.etag }),
      404,
      'estabelecimento_nao_encontrado',
      'path.id',
    );
  });
});

describe('permissions of establishments', () => {
  // spec: AUTH-14, AUTH-15
  it('refuses writes with 403 permissao_insuficiente to a credential without estabelecimento:gerenciar, which can still read', async () => {
    const w = await world();
    const created = await branch(w);
    const { token } = await w.controls.addCredential(w.company.companyId, ['catalogo:ler', 'catalogo:gerenciar']);
    const reader = w.api.as(token);
    expectError(
      await reader.post('/v1/estabelecimentos', { cnpj: cnpjOf(w.company.cnpjRoot, orderFor('0801')), nome: 'F' }),
      403,
      'permissao_insuficiente',
      null,
    );
    expectError(
      await reader.patch(`/v1/estabelecimentos/${created.id}`, { nome: 'X' }, { ifMatch: created.etag }),
      403,
      'permissao_insuficiente',
      null,
    );
    expectError(
      await reader.delete(`/v1/estabelecimentos/${created.id}`, {}, { ifMatch: created.etag }),
      403,
      'permissao_insuficiente',
      null,
    );
    const one = await reader.get(`/v1/estabelecimentos/${created.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(created.body);
    expect((await reader.get('/v1/estabelecimentos')).status).toBe(200);
    // nothing changed
    expect((await w.api.get(`/v1/estabelecimentos/${created.id}`)).headers.get('etag')).toBe(created.etag);
    expect(await ownEstablishments(w)).toEqual([w.company.headOffice.id, created.id]);
  });

  it('needs catalogo:ler for reads: a credential with only estabelecimento:gerenciar writes but cannot read', async () => {
    const w = await world();
    const { token } = await w.controls.addCredential(w.company.companyId, ['estabelecimento:gerenciar']);
    const writer = w.api.as(token);
    const created = await writer.post('/v1/estabelecimentos', {
      cnpj: cnpjOf(w.company.cnpjRoot, orderFor('0802')),
      nome: 'F',
    });
    expect(created.status, created.text).toBe(201);
    expectError(await writer.get('/v1/estabelecimentos'), 403, 'permissao_insuficiente', null);
    expectError(await writer.get(`/v1/estabelecimentos/${created.body.id}`), 403, 'permissao_insuficiente', null);
    const patched = await writer.patch(
      `/v1/estabelecimentos/${created.body.id}`,
      { nome: 'G' },
      { ifMatch: created.headers.get('etag')! },
    );
    expect(patched.status, patched.text).toBe(200);
  });

  // spec: AUTH-01, AUTH-02
  it('answers 401 before anything else without a credential', async () => {
    const w = await world();
    const answer = await w.api.as(undefined).post('/v1/estabelecimentos', { cnpj: 'bad', nome: '' });
    expectError(answer, 401, 'credencial_ausente', 'header.authorization');
    expectError(
      await w.api.as('svc_at_not-a-token').get('/v1/estabelecimentos'),
      401,
      'credencial_invalida',
      'header.authorization',
    );
  });
});
