/**
 * The `concurrentEdit` fault on every operation that takes If-Match (the emulator's IF_MATCH_OPERATIONS, the
 * one table the fault, the precondition check and this test read): another client saves the guarded resource
 * just before the request is evaluated, so the request's ETag is stale (spec "Errors": 412 when If-Match no
 * longer matches) and nothing of the request is applied. A fault that could never fire is refused when added.
 */
import { describe, expect, it } from 'vitest';
import { IF_MATCH_OPERATIONS } from '../src/index.js';
import { headOfficeCatalog, product, world, type Answer, type World } from './support/client.js';
import { expectControlError, expectError } from './support/expect.js';
import { RACEABLE, SCENES, sceneKey, send } from './support/guarded-operations.js';

interface FaultItem {
  id: string;
  times: number | null;
  hits: number;
}

async function faultsOf(w: World): Promise<FaultItem[]> {
  return (await w.controls.faults()).items;
}

async function journalFaultId(w: World, answer: Answer): Promise<string | null | undefined> {
  const { items } = (await w.controls.requests()) as { items: { requestId: string; faultId: string | null }[] };
  return items.find((e) => e.requestId === answer.headers.get('x-request-id'))?.faultId;
}

/** A resource as GET shows it, but for what any save changes: its version stamp. */
const unstamped = ({ atualizado_em: _, versao: __, ...rest }: Record<string, unknown>) => rest;

describe('concurrentEdit: every operation that takes If-Match', () => {
  it('has a scene for every row of the If-Match table where the fault can fire', () => {
    expect(Object.keys(SCENES).sort()).toEqual(RACEABLE.map(sceneKey).sort());
    expect(IF_MATCH_OPERATIONS.filter((o) => !RACEABLE.includes(o)).map(sceneKey)).toEqual([
      'POST /v1/catalogos/ingestoes/{id}/aplicacao',
    ]);
  });

  // The CNPJ correction's scene reads the whole service state (corrections have no list), which on the shared
  // server late in a run is tens of MB: 5 s is too little on a loaded machine.
  describe.each(RACEABLE.map((o) => [sceneKey(o), o] as const))('%s', { timeout: 30_000 }, (key, operation) => {
    it('answers 412 with one hit of the fault, applies nothing, and the guarded resource moved exactly one version with its fields unchanged', async () => {
      const w = await world();
      const request = await SCENES[key]!(w);
      const before = await request.read();
      // The method in lower case: methods match in any case.
      const { id } = await w.controls.addFault({
        target: 'api',
        match: { method: operation.method.toLowerCase(), path: request.path, companyId: w.company.companyId },
        effect: { concurrentEdit: true },
        times: 2,
      });

      const answer = await send(w, request);
      expectError(answer, 412, 'precondicao_falhou', 'header.if-match');
      expect(await faultsOf(w)).toContainEqual(expect.objectContaining({ id, times: 1, hits: 1 }));
      expect(await journalFaultId(w, answer)).toBe(id);

      const after = await request.read();
      expect(after.body.versao).toBe(before.body.versao + 1);
      expect(unstamped(after.body)).toEqual(unstamped(before.body));
      expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
      expect(await request.applied()).toBe(false);

      // Without the fault, the same request read afresh goes through: the race was the only obstacle.
      expect((await w.controls.raw('DELETE', `/faults/${id}`)).status).toBe(204);
      const retry = await send(w, request, await request.reread());
      expect(retry.status, retry.text).toBeGreaterThanOrEqual(200);
      expect(retry.status, retry.text).toBeLessThan(300);
      expect(await request.applied()).toBe(true);
    });
  });
});

describe('concurrentEdit: when it fires and when it is refused', () => {
  it('waits, unhit, through a request without If-Match (428 either way) and fires on the next one that sends it', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const created = await product(w, catalog.id);
    const path = `/v1/produtos/${created.id}`;
    const { id } = await w.controls.addFault({
      target: 'api',
      match: { path: '/v1/produtos/*', companyId: w.company.companyId },
      effect: { concurrentEdit: true },
    });
    expectError(await w.api.patch(path, { sku: 'x' }), 428, 'precondicao_ausente', 'header.if-match');
    expect(await faultsOf(w)).toContainEqual(expect.objectContaining({ id, times: 1, hits: 0 }));
    expect((await w.api.get(path)).body.versao).toBe(1);
    expectError(await w.api.patch(path, { sku: 'x' }, { ifMatch: created.etag }), 412, 'precondicao_falhou');
    expect((await faultsOf(w)).map((f) => f.id)).not.toContain(id);
  });

  it('waits, unhit, through a request refused before evaluation (422) and through one for a resource that does not exist (404)', async () => {
    const w = await world();
    const catalog = await headOfficeCatalog(w);
    const created = await product(w, catalog.id);
    const { id } = await w.controls.addFault({
      target: 'api',
      match: { method: 'PATCH', companyId: w.company.companyId },
      effect: { concurrentEdit: true },
    });
    expectError(
      await w.api.patch(`/v1/produtos/${created.id}`, { ncm: '123' }, { ifMatch: created.etag }),
      422,
      'valor_invalido',
      'body.ncm',
    );
    expectError(
      await w.api.patch('/v1/produtos/0190a000-0000-7000-8000-000000000000', { sku: 'x' }, { ifMatch: created.etag }),
      404,
      'produto_nao_encontrado',
    );
    expect(await faultsOf(w)).toContainEqual(expect.objectContaining({ id, times: 1, hits: 0 }));
    expect((await w.controls.raw('DELETE', `/faults/${id}`)).status).toBe(204);
  });

  it('is refused (422, nothing added) on an operation that takes no If-Match, naming the operations that do', async () => {
    const w = await world();
    const before = await faultsOf(w);
    const answer = await w.controls.raw('POST', '/faults', {
      target: 'api',
      match: { method: 'POST', path: '/v1/catalogos' },
      effect: { concurrentEdit: true },
    });
    expectControlError(answer, 422, 'valor_invalido', 'body.match');
    expect(answer.body.erro.mensagem).toMatch(
      /^effect concurrentEdit can never fire on POST \/v1\/catalogos: it needs an operation that takes If-Match, and the match reaches none \(they are PATCH \/v1\/catalogos\/\{id\}, .*POST \/v1\/webhook\/eventos\/\{id\}\/reenvios\)\.$/,
    );
    expectControlError(
      await w.controls.raw('POST', '/faults', {
        target: 'api',
        match: { method: 'GET' },
        effect: { concurrentEdit: true },
      }),
      422,
      'valor_invalido',
      'body.match',
    );
    expect(await faultsOf(w)).toEqual(before);
  });

  it('is refused (422) on the ingestion application, saying why and what to do instead', async () => {
    const w = await world();
    const answer = await w.controls.raw('POST', '/faults', {
      target: 'api',
      match: { method: 'POST', path: '/v1/catalogos/ingestoes/*/aplicacao' },
      effect: { concurrentEdit: true },
    });
    expectControlError(answer, 422, 'valor_invalido', 'body.effect');
    expect(answer.body.erro.mensagem).toBe(
      'effect concurrentEdit can never fire on POST /v1/catalogos/ingestoes/{id}/aplicacao: nothing but its own application changes a validated ingestion, so no concurrent save can make its ETag stale; to see its application refused, edit the catalog or one of the products it read after validation (it ends revisao_necessaria).',
    );
  });
});

describe('fault input errors: one sentence naming the field and what it accepts', () => {
  it.each([
    [
      { target: 'api', effect: { status: 700 } },
      'body.effect',
      'effect of an api fault must be one of {"status": 400–599, "retryAfter"?: 0–86400}, {"loseResponse": true}, {"concurrentEdit": true}, {"delayMs": 0–86400000}, {"malformedJson": true}, {"reset": true}, {"truncate": true} or {"trickleMs": 1–60000}; got {"status":700}.',
    ],
    [
      { target: 'api', match: { method: 'FETCH' }, effect: { status: 503 } },
      'body.match.method',
      'match.method must be one of GET, POST, PATCH, PUT, DELETE (any case); got "FETCH".',
    ],
    [
      { target: 'job', match: { kind: 'limpeza' }, effect: { fail: true } },
      'body.match.kind',
      'match.kind must be one of retencao_eventos, vigilancia, analise, revisao_cnpj, ingestao; got "limpeza".',
    ],
    [
      { target: 'delivery', effect: { explode: true } },
      'body.effect',
      'effect of a delivery fault must be one of {"status": 100–599}, {"redirect": true or "<absolute URL>"}, {"timeout": true}, {"refuse": true}, {"reset": true}, {"latencyMs": 0–86400000}, {"duplicate": true} or {"tamper": "signature", "body" or "timestamp"}; got {"explode":true}.',
    ],
    [{ target: 'network' }, 'body.target', 'target must be "api", "delivery" or "job"; got "network".'],
    [
      { target: 'api', effect: { status: 503 }, times: 0 },
      'body.times',
      'times must be a positive integer, or null to keep the fault until it is removed; got 0.',
    ],
  ])('%j', async (fault, caminho, mensagem) => {
    const w = await world();
    const answer = await w.controls.raw('POST', '/faults', fault);
    expectControlError(answer, 422, 'valor_invalido', caminho);
    expect(answer.body.erro.mensagem).toBe(mensagem);
  });
});
