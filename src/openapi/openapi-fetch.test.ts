/**
 * openapi-fetch (the client docs/openapi.md types with `paths`) builds a Request and calls `fetch(request, init)`, not
 * `fetch(url, init)`: emu.fetch must answer a Request as it answers a URL, body and headers included.
 */
import createClient from 'openapi-fetch';
import { describe, expect, it } from 'vitest';
import { createEmulator } from '../emulator.js';
import type { paths } from './types.js';

describe('openapi-fetch with emu.fetch', () => {
  it('hands emu.fetch a Request (URL, method, headers and body), which it answers', async () => {
    const emu = createEmulator();
    const acme = emu.companies.create({ cnpjRoot: '11222333' });
    const calls: Parameters<typeof emu.fetch>[] = [];
    const client = createClient<paths>({
      baseUrl: 'http://catalog-emulator.local',
      fetch: (...args: Parameters<typeof emu.fetch>) => {
        calls.push(args);
        return emu.fetch(...args);
      },
    });
    const created = await client.POST('/v1/catalogos', {
      headers: { authorization: `Bearer ${acme.token}` },
      params: { header: { 'idempotency-key': 'create-catalog-0001' } },
      body: { estabelecimento_id: acme.headOffice.id, nome: 'Loja', id_externo: 'L-1' },
    });

    expect(calls).toHaveLength(1);
    const [request, init] = calls[0]!;
    expect(request).toBeInstanceOf(Request);
    expect(init).toBeUndefined();
    const sent = request as Request;
    expect([sent.method, sent.url, sent.headers.get('content-type'), sent.headers.get('idempotency-key')]).toEqual([
      'POST',
      'http://catalog-emulator.local/v1/catalogos',
      'application/json',
      'create-catalog-0001',
    ]);
    expect(created.response.status).toBe(201);
    expect(created.data).toMatchObject({
      estabelecimento_id: acme.headOffice.id,
      nome: 'Loja',
      id_externo: 'L-1',
      versao: 1,
    });
    // The journal saw the request as sent, with the company of its token.
    expect(emu.journal.entries().map((e) => [e.method, e.path, e.status, e.companyId, e.idempotencyKey])).toEqual([
      ['POST', '/v1/catalogos', 201, acme.companyId, 'create-catalog-0001'],
    ]);
  });
});
