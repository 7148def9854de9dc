import { describe, expect, it } from 'vitest';
import { MASK, maskHeaders, maskJson } from './mask.js';

describe('masking', () => {
  it('keeps the bearer scheme of an authorization header and hides its token; other secret headers become ••••', () => {
    expect(MASK).toBe('••••');
    expect(
      maskHeaders([
        ['Authorization', 'Bearer cat_live_123'],
        ['proxy-authorization', 'Basic abc'],
        ['x-control-token', 'abc'],
        ['X-Webhook-Secret', 's'],
        ['content-type', 'application/json'],
        ['idempotency-key', 'key-000000000001'],
      ]),
    ).toEqual({
      authorization: 'Bearer ••••',
      'proxy-authorization': '••••',
      'x-control-token': '••••',
      'x-webhook-secret': '••••',
      'content-type': 'application/json',
      'idempotency-key': 'key-000000000001',
    });
  });

  it('masks every JSON field whose name says token, secret, segredo, senha, password or credential, at any depth', () => {
    const value = {
      token: 'a',
      segredo: 'svc_whsec_x',
      items: [{ accessToken: 'b', nome: 'Loja', credenciais: 'c' }],
      nested: { Senha: 'd', PASSWORD: 'e', clientSecret: 'f', credential: { x: 1 }, ok: 1, none: null },
      tokenNull: null,
    };
    expect(maskJson(value)).toEqual({
      token: MASK,
      segredo: MASK,
      items: [{ accessToken: MASK, nome: 'Loja', credenciais: 'c' }],
      nested: { Senha: MASK, PASSWORD: MASK, clientSecret: MASK, credential: MASK, ok: 1, none: null },
      tokenNull: null,
    });
    // The input is left as it was.
    expect(value.token).toBe('a');
  });
});
