import { describe, expect, it } from 'vitest';
import { world } from './support/client.js';

describe('GET /v1/empresa', () => {
  it("answers the identity of the credential's company with x-request-id", async () => {
    const w = await world({}, { cnpjRoot: undefined, name: 'Acme' });
    const answer = await w.api.get('/v1/empresa');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ id: w.company.companyId, cnpj_raiz: w.company.cnpjRoot, nome: 'Acme' });
    expect(answer.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  // spec: AUTH-01
  it('refuses a missing credential with 401 and the error body', async () => {
    const w = await world();
    const answer = await w.api.as(undefined).get('/v1/empresa');
    expect(answer.status).toBe(401);
    expect(answer.body.erro).toMatchObject({ codigo: 'credencial_ausente', caminho: 'header.authorization' });
    expect(answer.body.erro.request_id).toBe(answer.headers.get('x-request-id'));
    expect(answer.headers.get('www-authenticate')).toBe('Bearer');
  });
});
