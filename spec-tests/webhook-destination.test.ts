/**
 * The webhook destination (spec "Webhook destination", its state table, "PUT /v1/webhook", "DELETE /v1/webhook",
 * "GET /v1/webhook", "Limits"; docs/webhooks.md): create with If-None-Match: *, change,
 * rotate and reactivate with If-Match, revoke, the secret shown only by the receipt and its replay, the
 * subscription and permission rules, the 4 KiB body limit and the URL rules.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  newKey,
  otherCompany,
  rawRequest,
  world,
  type Answer,
  type RequestOptions,
  type World,
} from './support/client.js';
import { needsControls, needsOwnCompany } from './support/deployment.js';
import { ETAG, expectError, REQUEST_ID } from './support/expect.js';
import {
  advance,
  changeDestination,
  Cleanup,
  createDestination,
  destinationBefore,
  expectUnchanged,
  eventDetail,
  eventPath,
  hookUrl,
  inboxFor,
  iso,
  LOWER_UUID,
  now,
  raiseEvent,
  revokeDestination,
  SECRET,
  skipWhenRateLimited,
  testEvent,
  uniqueHost,
  WEBHOOK,
} from './support/webhook-setup.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const CREATE = { 'if-none-match': '*' };

/**
 * The precondition that lets a PUT reach its body checks: If-None-Match: * on a company without a destination
 * (`before` 404), If-Match with the current ETag where the company has one (a deployment's shared company).
 */
function reachingBody(before: Answer): RequestOptions {
  return before.status === 404 ? { headers: CREATE } : { ifMatch: before.headers.get('etag')! };
}

/** What an accepted PUT after `before` answers: 201 and versao 1 for a create, 200 and the next versao for a change. */
function acceptedAfter(before: Answer): { status: number; versao: number } {
  return before.status === 404 ? { status: 201, versao: 1 } : { status: 200, versao: before.body.versao + 1 };
}

/** The destination as GET shows it; fails unless 200. */
async function getDestination(w: World): Promise<Answer> {
  const answer = await w.api.get(WEBHOOK);
  expect(answer.status, answer.text).toBe(200);
  return answer;
}

function expectReceipt(answer: Answer, status: number, fields: { id?: string; versao: number; estado: string }): void {
  expect(answer.status, answer.text).toBe(status);
  expect(Object.keys(answer.body).sort()).toEqual(['estado', 'id', 'segredo', 'versao']);
  expect(answer.body).toMatchObject({
    versao: fields.versao,
    estado: fields.estado,
    ...(fields.id === undefined ? {} : { id: fields.id }),
  });
  expect(answer.body.id).toMatch(LOWER_UUID);
  expect(answer.body.segredo).toMatch(SECRET);
  expect(answer.headers.get('etag')).toMatch(ETAG);
  expect(answer.headers.get('location')).toBe('/v1/webhook');
  expect(answer.headers.get('x-request-id')).toMatch(REQUEST_ID);
}

describe('GET /v1/webhook', () => {
  it('answers 404 destino_nao_encontrado before any configuration', async () => {
    needsOwnCompany('a company that never had a webhook destination');
    const w = await world();
    expectError(await w.api.get(WEBHOOK), 404, 'destino_nao_encontrado');
  });
});

describe('PUT /v1/webhook: create with If-None-Match: *', () => {
  // spec: CONV-05, WH-DEST-01, WH-DEST-02, WH-DEST-04, WH-DEST-05, WH-DEST-08, WH-DEST-15, WH-DEST-16, WH-DEST-22, SIG-05
  it('creates the destination: 201, receipt exactly {id, versao 1, estado ativo, segredo}, ETag, Location /v1/webhook', async () => {
    needsOwnCompany("creates the company's first webhook destination (If-None-Match: *, 201, versao 1)");
    const w = await world();
    const host = uniqueHost();
    const url = `https://${host}/catalogo/eventos`;
    const answer = await w.api.put(WEBHOOK, { url }, { headers: CREATE });
    expectReceipt(answer, 201, { versao: 1, estado: 'ativo' });
    const read = await getDestination(w);
    expect(read.body).toEqual({ id: answer.body.id, versao: 1, estado: 'ativo', url });
    expect(read.headers.get('etag')).toBe(answer.headers.get('etag'));
    // The configuration is not tested for connectivity: nothing is sent.
    await advance(w, 0);
    expect(await inboxFor(w, host)).toEqual([]);
  });

  it('gives each company its own destination and secret', async () => {
    const a = await world();
    const b = await otherCompany(a);
    const first = await createDestination(a);
    const second = await createDestination(b);
    expect(second.id).not.toBe(first.id);
    expect(second.segredo).not.toBe(first.segredo);
    expect((await getDestination(a)).body.url).toBe(first.url);
  });

  // spec: WH-DEST-03
  it('refuses a second create with 412 destino_existente (header.if-none-match), also when the destination is revoked', async () => {
    const w = await world();
    const created = await createDestination(w);
    expectError(
      await w.api.put(WEBHOOK, { url: hookUrl() }, { headers: CREATE }),
      412,
      'destino_existente',
      'header.if-none-match',
    );
    expect((await getDestination(w)).body).toEqual({
      id: created.id,
      versao: created.versao,
      estado: 'ativo',
      url: created.url,
    });
    const revokedEtag = await revokeDestination(w, created.etag);
    expectError(
      await w.api.put(WEBHOOK, { url: hookUrl() }, { headers: CREATE }),
      412,
      'destino_existente',
      'header.if-none-match',
    );
    const read = await getDestination(w);
    expect(read.body).toEqual({ id: created.id, versao: created.versao + 1, estado: 'revogado', url: created.url });
    expect(read.headers.get('etag')).toBe(revokedEtag);
  });

  it('answers 428 precondicao_ausente without If-None-Match or If-Match: caminho header.if-none-match with none, header.if-match once one exists', async () => {
    needsOwnCompany('a PUT without a destination (caminho header.if-none-match)');
    const w = await world();
    expectError(await w.api.put(WEBHOOK, { url: hookUrl() }), 428, 'precondicao_ausente', 'header.if-none-match');
    expectError(await w.api.get(WEBHOOK), 404, 'destino_nao_encontrado');
    const created = await createDestination(w);
    expectError(await w.api.put(WEBHOOK, { url: hookUrl() }), 428, 'precondicao_ausente', 'header.if-match');
    expect((await getDestination(w)).body).toMatchObject({ versao: 1, url: created.url });
  });

  it('answers 428 precondicao_ausente header.if-match to a PUT without a precondition once a destination exists, changing nothing', async () => {
    const w = await world();
    const created = await createDestination(w);
    expectError(await w.api.put(WEBHOOK, { url: hookUrl() }), 428, 'precondicao_ausente', 'header.if-match');
    expect((await getDestination(w)).body).toMatchObject({ versao: created.versao, url: created.url });
  });

  // spec: WH-DEST-09
  it('refuses If-Match together with If-None-Match with 400 precondicoes_conflitantes, with or without a destination', async () => {
    needsOwnCompany('the two preconditions together on a company without a destination');
    const w = await world();
    expectError(
      await w.api.put(WEBHOOK, { url: hookUrl() }, { headers: CREATE, ifMatch: '"abc"' }),
      400,
      'precondicoes_conflitantes',
    );
    expectError(await w.api.get(WEBHOOK), 404, 'destino_nao_encontrado');
    const created = await createDestination(w);
    expectError(
      await w.api.put(WEBHOOK, { url: hookUrl() }, { headers: CREATE, ifMatch: created.etag }),
      400,
      'precondicoes_conflitantes',
    );
    expect((await getDestination(w)).body).toMatchObject({ versao: 1, url: created.url });
  });

  // spec: WH-DEST-09
  it('refuses If-Match (the current ETag) together with If-None-Match with 400 precondicoes_conflitantes, changing nothing', async () => {
    const w = await world();
    const created = await createDestination(w);
    expectError(
      await w.api.put(WEBHOOK, { url: hookUrl() }, { headers: CREATE, ifMatch: created.etag }),
      400,
      'precondicoes_conflitantes',
    );
    const read = await getDestination(w);
    expect(read.body).toEqual({ id: created.id, versao: created.versao, estado: 'ativo', url: created.url });
    expect(read.headers.get('etag')).toBe(created.etag);
  });

  it.each(['"abc"', 'W/"abc"', '**', 'x'])(
    'refuses If-None-Match %s (anything but *) with 400 cabecalho_invalido header.if-none-match',
    async (value) => {
      const w = await world();
      const before = await destinationBefore(w);
      expectError(
        await w.api.put(WEBHOOK, { url: hookUrl() }, { headers: { 'if-none-match': value } }),
        400,
        'cabecalho_invalido',
        'header.if-none-match',
      );
      await expectUnchanged(w, before);
    },
  );

  it('refuses If-Match: * with 400 cabecalho_invalido header.if-match', async () => {
    const w = await world();
    const created = await createDestination(w);
    expectError(
      await w.api.put(WEBHOOK, { url: hookUrl() }, { ifMatch: '*' }),
      400,
      'cabecalho_invalido',
      'header.if-match',
    );
    expect((await getDestination(w)).body).toMatchObject({ versao: created.versao, url: created.url });
  });

  it('refuses If-Match when the company has no destination with 412 precondicao_falhou header.if-match, creating nothing', async () => {
    needsOwnCompany('a company without a webhook destination');
    const w = await world();
    expectError(
      await w.api.put(WEBHOOK, { url: hookUrl() }, { ifMatch: '"0123456789abcdef"' }),
      412,
      'precondicao_falhou',
      'header.if-match',
    );
    expectError(await w.api.get(WEBHOOK), 404, 'destino_nao_encontrado');
  });

  it('refuses a missing url with 422 campo_obrigatorio body.url and an unknown field with 422 campo_desconhecido', async () => {
    const w = await world();
    const before = await destinationBefore(w);
    expectError(await w.api.put(WEBHOOK, {}, reachingBody(before)), 422, 'campo_obrigatorio', 'body.url');
    expectError(
      await w.api.put(WEBHOOK, { url: hookUrl(), segredo: 'x' }, reachingBody(before)),
      422,
      'campo_desconhecido',
      'body.segredo',
    );
    expectError(await w.api.put(WEBHOOK, { url: 443 }, reachingBody(before)), 422, 'valor_invalido', 'body.url');
    await expectUnchanged(w, before);
  });
});

describe('PUT /v1/webhook: change and rotate with If-Match', () => {
  // spec: WH-DEST-10, WH-DEST-11, WH-DEST-14, REQ-06
  it('changes the url with the current ETag: 200, versao+1, a new secret and a new ETag', async () => {
    const w = await world();
    const created = await createDestination(w);
    const url = hookUrl('/novo');
    const answer = await w.api.put(WEBHOOK, { url }, { ifMatch: created.etag });
    expectReceipt(answer, 200, { id: created.id, versao: created.versao + 1, estado: 'ativo' });
    expect(answer.body.segredo).not.toBe(created.segredo);
    expect(answer.headers.get('etag')).not.toBe(created.etag);
    const read = await getDestination(w);
    expect(read.body).toEqual({ id: created.id, versao: created.versao + 1, estado: 'ativo', url });
    expect(read.headers.get('etag')).toBe(answer.headers.get('etag'));
  });

  // spec: WH-DEST-11, WH-DEST-14
  it('rotates the secret with the same url: versao+1, a secret unlike every earlier one', async () => {
    const w = await world();
    const created = await createDestination(w);
    const second = await changeDestination(w, created.etag, created.url);
    const third = await changeDestination(w, second.etag, created.url);
    expect([second.versao, third.versao]).toEqual([created.versao + 1, created.versao + 2]);
    expect(new Set([created.segredo, second.segredo, third.segredo]).size).toBe(3);
    expect(new Set([created.etag, second.etag, third.etag]).size).toBe(3);
    expect((await getDestination(w)).body).toEqual({
      id: created.id,
      versao: created.versao + 2,
      estado: 'ativo',
      url: created.url,
    });
  });

  // spec: WH-DEST-13
  it('refuses a stale ETag with 412 precondicao_falhou header.if-match, leaving the destination as it was', async () => {
    const w = await world();
    const created = await createDestination(w);
    const changed = await changeDestination(w, created.etag);
    expectError(
      await w.api.put(WEBHOOK, { url: hookUrl() }, { ifMatch: created.etag }),
      412,
      'precondicao_falhou',
      'header.if-match',
    );
    const read = await getDestination(w);
    expect(read.body).toEqual({ id: created.id, versao: created.versao + 1, estado: 'ativo', url: changed.url });
    expect(read.headers.get('etag')).toBe(changed.etag);
  });

  // spec: WH-DEST-33
  it('cancels the open events of the previous version with destino_alterado; they are never delivered', async () => {
    needsControls('the raise-an-event control, the clock and the inbox');
    const w = await world();
    const host = uniqueHost();
    const created = await createDestination(w, `https://${host}/a`);
    const eventId = await testEvent(w, created.etag);
    const raised = await raiseEvent(w);
    expect((await eventDetail(w, eventId)).estado).toBe('pendente');
    const at = await now(w);
    await changeDestination(w, created.etag, `https://${host}/b`);
    for (const id of [eventId, raised]) {
      const detail = await eventDetail(w, id);
      expect(detail).toMatchObject({
        estado: 'cancelado',
        codigo_falha: 'destino_alterado',
        terminado_em: iso(at),
        proxima_tentativa_em: null,
        destino_versao: 1,
      });
    }
    await advance(w, 0);
    expect(await inboxFor(w, host)).toEqual([]);
  });
});

describe('the secret is shown only by the receipt', () => {
  // spec: WH-DEST-06, WH-DEST-25, WH-EVT-08
  it('never appears in GET, the event list and detail, error bodies or the request journal', async () => {
    needsControls('the clock and the request journal GET /_emulator/requests');
    const w = await world();
    const created = await createDestination(w);
    const rotated = await changeDestination(w, created.etag);
    const secrets = [created.segredo, rotated.segredo];
    const eventId = await testEvent(w, rotated.etag);
    await advance(w, 0);
    const answers: Answer[] = [
      await w.api.get(WEBHOOK),
      await w.api.get('/v1/webhook/eventos'),
      await w.api.get(eventPath(eventId)),
      await w.api.get(`${eventPath(eventId)}/tentativas`),
      await w.api.put(WEBHOOK, { url: hookUrl() }, { ifMatch: created.etag }),
      await w.api.put(WEBHOOK, { url: hookUrl() }, { headers: CREATE }),
      await w.api.put(WEBHOOK, { url: hookUrl() }),
      await w.api.put(WEBHOOK, { url: 'http://hooks.example.com/x' }, { ifMatch: rotated.etag }),
      await w.api.delete(WEBHOOK, undefined, { ifMatch: created.etag }),
      await w.api.post('/v1/webhook/testes', {}, { ifMatch: created.etag }),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 412, 412, 428, 422, 412, 412]);
    const journal = await w.controls.raw('GET', '/requests');
    for (const text of [...answers.map((a) => `${a.text} ${JSON.stringify([...a.headers])}`), journal.text]) {
      for (const secret of secrets) expect(text).not.toContain(secret);
    }
  });
});

describe('PUT /v1/webhook: idempotent replay', () => {
  // spec: WH-DEST-23
  it('answers the replayed create with the identical 201 receipt, the same secret, and changes nothing', async () => {
    needsOwnCompany("creates the company's first webhook destination (If-None-Match: *, 201) and replays it");
    const w = await world();
    const key = newKey();
    const url = hookUrl();
    const first = await w.api.put(WEBHOOK, { url }, { headers: CREATE, key });
    expect(first.status, first.text).toBe(201);
    const rotated = await changeDestination(w, first.headers.get('etag')!, url);
    const replay = await w.api.put(WEBHOOK, { url }, { headers: CREATE, key });
    expect(replay.status).toBe(201);
    expect(replay.text).toBe(first.text);
    expect(replay.body.segredo).toBe(first.body.segredo);
    expect(replay.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(replay.headers.get('location')).toBe('/v1/webhook');
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const read = await getDestination(w);
    expect(read.body).toEqual({ id: first.body.id, versao: 2, estado: 'ativo', url });
    expect(read.headers.get('etag')).toBe(rotated.etag);
  });

  // spec: WH-DEST-24
  it('answers a replayed change after a DELETE with the original receipt and does not reactivate the destination', async () => {
    const w = await world();
    const created = await createDestination(w);
    const key = newKey();
    const url = hookUrl('/rotacao');
    const change = await w.api.put(WEBHOOK, { url }, { ifMatch: created.etag, key });
    expectReceipt(change, 200, { id: created.id, versao: created.versao + 1, estado: 'ativo' });
    const revokedEtag = await revokeDestination(w, change.headers.get('etag')!);
    const replay = await w.api.put(WEBHOOK, { url }, { ifMatch: change.headers.get('etag')!, key });
    expect(replay.status).toBe(200);
    expect(replay.text).toBe(change.text);
    expect(replay.headers.get('etag')).toBe(change.headers.get('etag'));
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const read = await getDestination(w);
    expect(read.body).toEqual({ id: created.id, versao: created.versao + 2, estado: 'revogado', url });
    expect(read.headers.get('etag')).toBe(revokedEtag);
  });

  it('refuses the same key with another url with 422 idempotencia_reutilizada', async () => {
    const w = await world();
    const key = newKey();
    await createDestination(w, hookUrl(), key);
    expectError(
      await w.api.put(WEBHOOK, { url: hookUrl() }, { headers: CREATE, key }),
      422,
      'idempotencia_reutilizada',
      'header.idempotency-key',
    );
  });
});

describe('DELETE /v1/webhook: revoke', () => {
  // spec: WH-DEST-02, WH-DEST-29, WH-DEST-31
  it('revokes with the current ETag: 200 exactly {id, versao+1, estado revogado} with the ETag GET then shows', async () => {
    const w = await world();
    const created = await createDestination(w);
    const answer = await w.api.delete(WEBHOOK, undefined, { ifMatch: created.etag });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({ id: created.id, versao: created.versao + 1, estado: 'revogado' });
    expect(answer.headers.get('etag')).toMatch(ETAG);
    expect(answer.headers.get('etag')).not.toBe(created.etag);
    const read = await getDestination(w);
    expect(read.body).toEqual({ id: created.id, versao: created.versao + 1, estado: 'revogado', url: created.url });
    expect(read.headers.get('etag')).toBe(answer.headers.get('etag'));
  });

  // spec: WH-DEST-30
  it('accepts an empty object as the body', async () => {
    const w = await world();
    const created = await createDestination(w);
    const answer = await w.api.delete(WEBHOOK, {}, { ifMatch: created.etag });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({ id: created.id, versao: created.versao + 1, estado: 'revogado' });
  });

  it('refuses a body with fields with 422 campo_desconhecido', async () => {
    const w = await world();
    const created = await createDestination(w);
    expectError(
      await w.api.delete(WEBHOOK, { motivo: 'x' }, { ifMatch: created.etag }),
      422,
      'campo_desconhecido',
      'body.motivo',
    );
    expect((await getDestination(w)).body.estado).toBe('ativo');
  });

  it('answers a replayed DELETE with the stored 200 and does not revoke the reactivated destination', async () => {
    const w = await world();
    const created = await createDestination(w);
    const key = newKey();
    const first = await w.api.delete(WEBHOOK, undefined, { ifMatch: created.etag, key });
    expect(first.status, first.text).toBe(200);
    const reactivated = await changeDestination(w, first.headers.get('etag')!);
    const replay = await w.api.delete(WEBHOOK, undefined, { ifMatch: created.etag, key });
    expect(replay.status).toBe(200);
    expect(replay.text).toBe(first.text);
    expect(replay.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const read = await getDestination(w);
    expect(read.body).toEqual({ id: created.id, versao: created.versao + 2, estado: 'ativo', url: reactivated.url });
    expect(read.headers.get('etag')).toBe(reactivated.etag);
  });

  it('refuses a second DELETE with 409 destino_revogado', async () => {
    const w = await world();
    const created = await createDestination(w);
    const revokedEtag = await revokeDestination(w, created.etag);
    expectError(await w.api.delete(WEBHOOK, undefined, { ifMatch: revokedEtag }), 409, 'destino_revogado');
    expect((await getDestination(w)).body).toMatchObject({ versao: created.versao + 1, estado: 'revogado' });
  });

  // spec: WH-DEST-27, WH-DEST-28
  it('needs If-Match: 428 precondicao_ausente without, 412 precondicao_falhou when stale', async () => {
    const w = await world();
    const created = await createDestination(w);
    const changed = await changeDestination(w, created.etag);
    expectError(await w.api.delete(WEBHOOK), 428, 'precondicao_ausente', 'header.if-match');
    expectError(
      await w.api.delete(WEBHOOK, undefined, { ifMatch: created.etag }),
      412,
      'precondicao_falhou',
      'header.if-match',
    );
    const read = await getDestination(w);
    expect(read.body).toMatchObject({ versao: created.versao + 1, estado: 'ativo' });
    expect(read.headers.get('etag')).toBe(changed.etag);
  });

  it('answers 404 destino_nao_encontrado when the company has no destination', async () => {
    needsOwnCompany('a company without a webhook destination');
    const w = await world();
    expectError(
      await w.api.delete(WEBHOOK, undefined, { ifMatch: '"0123456789abcdef"' }),
      404,
      'destino_nao_encontrado',
    );
  });

  // spec: WH-DEST-32
  it('cancels open events with destino_revogado; they are never delivered', async () => {
    needsControls('the clock and the inbox');
    const w = await world();
    const host = uniqueHost();
    const created = await createDestination(w, `https://${host}/x`);
    const eventId = await testEvent(w, created.etag);
    const at = await now(w);
    await revokeDestination(w, created.etag);
    expect(await eventDetail(w, eventId)).toMatchObject({
      estado: 'cancelado',
      codigo_falha: 'destino_revogado',
      terminado_em: iso(at),
      proxima_tentativa_em: null,
    });
    await advance(w, 0);
    expect(await inboxFor(w, host)).toEqual([]);
  });

  it('records events raised while revoked as cancelado destino_inativo on the revoked version, never delivered', async () => {
    needsControls('the raise-an-event control, the clock and the inbox');
    const w = await world();
    const host = uniqueHost();
    const created = await createDestination(w, `https://${host}/x`);
    await revokeDestination(w, created.etag);
    const at = await now(w);
    const id = await raiseEvent(w);
    expect(await eventDetail(w, id)).toMatchObject({
      estado: 'cancelado',
      codigo_falha: 'destino_inativo',
      destino_id: created.id,
      destino_versao: 2,
      terminado_em: iso(at),
      tentativas_totais: 0,
    });
    await advance(w, 0);
    expect(await inboxFor(w, host)).toEqual([]);
  });

  // spec: WH-DEST-12, WH-DEST-14
  it('reactivates a revoked destination by PUT with If-Match: 200 ativo, versao+1, a new secret', async () => {
    const w = await world();
    const created = await createDestination(w);
    const revokedEtag = await revokeDestination(w, created.etag);
    const url = hookUrl('/de-volta');
    const answer = await w.api.put(WEBHOOK, { url }, { ifMatch: revokedEtag });
    expectReceipt(answer, 200, { id: created.id, versao: created.versao + 2, estado: 'ativo' });
    expect(answer.body.segredo).not.toBe(created.segredo);
    const read = await getDestination(w);
    expect(read.body).toEqual({ id: created.id, versao: created.versao + 2, estado: 'ativo', url });
    expect(read.headers.get('etag')).toBe(answer.headers.get('etag'));
    // Active again: a test event is accepted.
    const test = await w.api.post('/v1/webhook/testes', {}, { ifMatch: answer.headers.get('etag')! });
    skipWhenRateLimited(test);
    expect(test.status, test.text).toBe(202);
  });
});

describe('subscription and permission', () => {
  // spec: AUTH-27, AUTH-30, AUTH-31
  it('refuses PUT with 403 assinatura_inativa while suspended (before the header checks); GET and DELETE still work', async () => {
    const w = await world();
    const created = await createDestination(w);
    await w.controls.updateCompany(w.company.companyId, { subscriptionActive: false });
    expectError(await w.api.put(WEBHOOK, { url: hookUrl() }, { ifMatch: created.etag }), 403, 'assinatura_inativa');
    expectError(await w.api.put(WEBHOOK, { url: hookUrl() }, { key: null }), 403, 'assinatura_inativa');
    const read = await getDestination(w);
    expect(read.body).toEqual({ id: created.id, versao: 1, estado: 'ativo', url: created.url });
    const revoked = await w.api.delete(WEBHOOK, undefined, { ifMatch: created.etag });
    expect(revoked.status, revoked.text).toBe(200);
    expect(revoked.body).toEqual({ id: created.id, versao: 2, estado: 'revogado' });
    // Reactivation is a PUT: it needs the subscription too.
    expectError(
      await w.api.put(WEBHOOK, { url: hookUrl() }, { ifMatch: revoked.headers.get('etag')! }),
      403,
      'assinatura_inativa',
    );
    await w.controls.updateCompany(w.company.companyId, { subscriptionActive: true });
    expect((await w.api.put(WEBHOOK, { url: hookUrl() }, { ifMatch: revoked.headers.get('etag')! })).status).toBe(200);
  });

  // spec: AUTH-27
  it('refuses a create with 403 assinatura_inativa while suspended', async () => {
    const w = await world({}, { subscriptionActive: false });
    expectError(await w.api.put(WEBHOOK, { url: hookUrl() }, { headers: CREATE }), 403, 'assinatura_inativa');
    expectError(await w.api.get(WEBHOOK), 404, 'destino_nao_encontrado');
  });

  // spec: AUTH-19, AUTH-20, AUTH-21
  it('refuses GET, PUT and DELETE without webhook:gerenciar with 403 permissao_insuficiente', async () => {
    const w = await world();
    const created = await createDestination(w);
    const { token } = await w.controls.addCredential(w.company.companyId, [
      'catalogo:ler',
      'catalogo:gerenciar',
      'estabelecimento:gerenciar',
      'vigilancia:gerenciar',
      'analise:executar',
    ]);
    const other = w.api.as(token);
    expectError(await other.get(WEBHOOK), 403, 'permissao_insuficiente');
    expectError(await other.put(WEBHOOK, { url: hookUrl() }, { ifMatch: created.etag }), 403, 'permissao_insuficiente');
    expectError(await other.put(WEBHOOK, { url: hookUrl() }, { headers: CREATE }), 403, 'permissao_insuficiente');
    expectError(await other.delete(WEBHOOK, undefined, { ifMatch: created.etag }), 403, 'permissao_insuficiente');
    const read = await getDestination(w);
    expect(read.body).toEqual({ id: created.id, versao: created.versao, estado: 'ativo', url: created.url });
    expect(read.headers.get('etag')).toBe(created.etag);
  });

  // The order of the two checks: split from the test above, as it needs the company flags (the controls).
  it('checks the permission before the subscription: 403 permissao_insuficiente while suspended too', async () => {
    const w = await world();
    const created = await createDestination(w);
    const { token } = await w.controls.addCredential(w.company.companyId, [
      'catalogo:ler',
      'catalogo:gerenciar',
      'estabelecimento:gerenciar',
      'vigilancia:gerenciar',
      'analise:executar',
    ]);
    await w.controls.updateCompany(w.company.companyId, { subscriptionActive: false });
    expectError(
      await w.api.as(token).put(WEBHOOK, { url: hookUrl() }, { ifMatch: created.etag }),
      403,
      'permissao_insuficiente',
    );
  });

  it('lets a credential with only webhook:gerenciar manage the destination', async () => {
    const w = await world();
    const { token } = await w.controls.addCredential(w.company.companyId, ['webhook:gerenciar']);
    const only = w.api.as(token);
    const before = await destinationBefore(w);
    const answer = await only.put(WEBHOOK, { url: hookUrl() }, reachingBody(before));
    expect(answer.status, answer.text).toBe(acceptedAfter(before).status);
    expect((await only.get(WEBHOOK)).status).toBe(200);
    expect((await only.delete(WEBHOOK, undefined, { ifMatch: answer.headers.get('etag')! })).status).toBe(200);
  });
});

describe('body limit of 4 KiB', () => {
  /** `json` padded with spaces before its closing brace to exactly `size` bytes. */
  const padded = (json: string, size: number) => `${json.slice(0, -1)}${' '.repeat(size - Buffer.byteLength(json))}}`;

  // spec: LIM-07
  it('refuses a PUT body of 4097 bytes with 413 corpo_muito_grande and accepts 4096 bytes', async () => {
    const w = await world();
    const url = hookUrl();
    const json = JSON.stringify({ url });
    const before = await destinationBefore(w);
    const precondition = reachingBody(before);
    const headers = { ...precondition.headers, 'content-type': 'application/json' };
    const ifMatch = precondition.ifMatch === undefined ? {} : { ifMatch: precondition.ifMatch };
    expectError(
      await w.api.put(WEBHOOK, undefined, { raw: padded(json, 4097), headers, ...ifMatch }),
      413,
      'corpo_muito_grande',
    );
    await expectUnchanged(w, before);
    const accepted = await w.api.put(WEBHOOK, undefined, { raw: padded(json, 4096), headers, ...ifMatch });
    expect(accepted.status, accepted.text).toBe(acceptedAfter(before).status);
    expect((await getDestination(w)).body.url).toBe(url);
    // A change too.
    expectError(
      await w.api.put(WEBHOOK, undefined, {
        raw: padded(json, 5000),
        headers: { 'content-type': 'application/json' },
        ifMatch: accepted.headers.get('etag')!,
      }),
      413,
      'corpo_muito_grande',
    );
  });

  // spec: LIM-08
  it('refuses a DELETE body of 4097 bytes with 413 corpo_muito_grande and accepts 4096 bytes', async () => {
    const w = await world();
    const created = await createDestination(w);
    const headers = { 'content-type': 'application/json' };
    expectError(
      await w.api.delete(WEBHOOK, undefined, { raw: padded('{}', 4097), headers, ifMatch: created.etag }),
      413,
      'corpo_muito_grande',
    );
    expect((await getDestination(w)).body.estado).toBe('ativo');
    const accepted = await w.api.delete(WEBHOOK, undefined, {
      raw: padded('{}', 4096),
      headers,
      ifMatch: created.etag,
    });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body.estado).toBe('revogado');
  });

  // spec: the PUT body is bounded (4 KiB, LIM-07); the url itself has no length limit of its own.
  it('accepts a url of about 4,000 characters in a body under 4 KiB, reads it back whole; one more byte of body is 413', async () => {
    const w = await world();
    const base = hookUrl('/eventos?c=');
    const url = base + 'a'.repeat(4000 - base.length);
    expect(url).toHaveLength(4000);
    const json = JSON.stringify({ url });
    expect(Buffer.byteLength(json)).toBeLessThan(4096);
    const before = await destinationBefore(w);
    const created = await w.api.put(WEBHOOK, { url }, reachingBody(before));
    expect(created.status, created.text).toBe(acceptedAfter(before).status);
    expect((await getDestination(w)).body.url).toBe(url);
    // The same url in a body padded over 4 KiB: refused for the body's size, not the url's.
    const headers = { 'content-type': 'application/json' };
    expectError(
      await w.api.put(WEBHOOK, undefined, { raw: padded(json, 4097), headers, ifMatch: created.headers.get('etag')! }),
      413,
      'corpo_muito_grande',
    );
    const changed = await w.api.put(WEBHOOK, undefined, {
      raw: padded(json, 4096),
      headers,
      ifMatch: created.headers.get('etag')!,
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.versao).toBe(acceptedAfter(before).versao + 1);
  });

  it('refuses an oversized PUT sent with a declared content-length too', async () => {
    const w = await world();
    const body = padded(JSON.stringify({ url: hookUrl() }), 8192);
    expectError(
      await rawRequest(
        w,
        'PUT',
        WEBHOOK,
        {
          'content-type': 'application/json',
          'if-none-match': '*',
          'idempotency-key': newKey(),
          'content-length': String(body.length),
        },
        body,
      ),
      413,
      'corpo_muito_grande',
    );
  });
});

describe('URL rules', () => {
  // spec: WH-DEST-17, WH-DEST-18, WH-DEST-19, WH-DEST-20, WH-DEST-21
  it.each([
    ['http scheme', 'http://hooks.example.com/x'],
    ['another scheme', 'ftp://hooks.example.com/x'],
    ['port 8443', 'https://hooks.example.com:8443/x'],
    ['port 80', 'https://hooks.example.com:80/x'],
    ['credentials', 'https://user:pass@hooks.example.com/x'],
    ['a user only', 'https://user@hooks.example.com/x'],
    ['a fragment', 'https://hooks.example.com/x#frag'],
    ['an empty fragment', 'https://hooks.example.com/x#'],
    ['localhost', 'https://localhost/x'],
    ['a subdomain of localhost', 'https://sub.localhost/x'],
    ['LOCALHOST in capitals', 'https://LOCALHOST/x'],
    ['loopback 127.0.0.1', 'https://127.0.0.1/x'],
    ['loopback 127.1.2.3', 'https://127.1.2.3/x'],
    ['private 10.x', 'https://10.1.2.3/x'],
    ['private 172.16.x', 'https://172.16.0.1/x'],
    ['private 172.31.x', 'https://172.31.255.254/x'],
    ['private 192.168.x', 'https://192.168.1.10/x'],
    ['link-local 169.254.x', 'https://169.254.169.254/latest'],
    ['unspecified 0.0.0.0', 'https://0.0.0.0/x'],
    ['carrier-grade NAT 100.64.x', 'https://100.64.0.1/x'],
    ['IPv6 loopback [::1]', 'https://[::1]/x'],
    ['IPv6 unspecified [::]', 'https://[::]/x'],
    ['IPv6 link-local [fe80::1]', 'https://[fe80::1]/x'],
    ['IPv6 unique local [fc00::1]', 'https://[fc00::1]/x'],
    ['IPv6 unique local [fd12::1]', 'https://[fd12:3456::1]/x'],
    ['IPv4-mapped loopback [::ffff:127.0.0.1]', 'https://[::ffff:127.0.0.1]/x'],
    ['IPv4-compatible loopback [::127.0.0.1]', 'https://[::127.0.0.1]/x'],
    ['NAT64 of loopback [64:ff9b::127.0.0.1]', 'https://[64:ff9b::127.0.0.1]/x'],
    ['IPv4-mapped private [::ffff:10.0.0.1]', 'https://[::ffff:10.0.0.1]/x'],
    ['loopback in octal (0177.0.0.1)', 'https://0177.0.0.1/x'],
    ['loopback as one number (2130706433)', 'https://2130706433/x'],
    ['loopback in hex (0x7f.1)', 'https://0x7f.1/x'],
    ['loopback with a trailing dot', 'https://127.0.0.1./x'],
    ['localhost with a trailing dot', 'https://localhost./x'],
    ['IPv6 loopback written in full', 'https://[0:0:0:0:0:0:0:1]/x'],
    ['IPv4-mapped private in hex [::ffff:c0a8:1]', 'https://[::ffff:c0a8:1]/x'],
    ['not a URL', 'not a url'],
    ['no scheme', 'hooks.example.com/x'],
    ['an empty string', ''],
  ])('refuses %s with 422 valor_invalido body.url', async (_name, url) => {
    const w = await world();
    const before = await destinationBefore(w);
    expectError(await w.api.put(WEBHOOK, { url }, reachingBody(before)), 422, 'valor_invalido', 'body.url');
    await expectUnchanged(w, before);
  });

  it('refuses a non-public URL on a change too, leaving the destination as it was', async () => {
    const w = await world();
    const created = await createDestination(w);
    expectError(
      await w.api.put(WEBHOOK, { url: 'https://127.0.0.1/x' }, { ifMatch: created.etag }),
      422,
      'valor_invalido',
      'body.url',
    );
    const read = await getDestination(w);
    expect(read.body).toEqual({ id: created.id, versao: created.versao, estado: 'ativo', url: created.url });
  });

  it.each([
    ['a public host', 'https://hooks.example.com/catalogo'],
    ['an explicit :443', 'https://hooks.example.com:443/catalogo'],
    ['a query string', 'https://hooks.example.com/catalogo?conta=1'],
    ['a public IPv4 literal', 'https://8.8.8.8/x'],
    ['172.15.x (just below 172.16/12)', 'https://172.15.255.255/x'],
    ['172.32.x (just above 172.16/12)', 'https://172.32.0.1/x'],
    ['100.128.x (just above 100.64/10)', 'https://100.128.0.1/x'],
    ['a host named like localhost but not it', 'https://localhost.example.com/x'],
  ])('accepts %s', async (_name, url) => {
    const w = await world();
    const before = await destinationBefore(w);
    const answer = await w.api.put(WEBHOOK, { url }, reachingBody(before));
    expectReceipt(answer, acceptedAfter(before).status, { versao: acceptedAfter(before).versao, estado: 'ativo' });
    expect((await getDestination(w)).body).toEqual({
      id: answer.body.id,
      versao: acceptedAfter(before).versao,
      estado: 'ativo',
      url,
    });
  });
});
