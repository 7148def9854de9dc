import { describe, expect, it } from 'vitest';
import { MASK, maskHeaders, maskJson, maskText } from './mask.js';

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

describe('maskText', () => {
  it('masks credential-named JSON fields (a value cut short too), credential headers, bearer tokens and svc_ credentials in free text', () => {
    expect(maskText('      {"url":"https://x.example","segredo":"svc_whsec_abcdefgh12345678","versao":1}')).toBe(
      '      {"url":"https://x.example","segredo":"••••","versao":1}',
    );
    expect(maskText('{"token": "svc_at_abcdefgh1234')).toBe('{"token": "••••"');
    expect(maskText('      authorization: Bearer svc_at_abcdefgh12345678')).toBe('      authorization: Bearer ••••');
    expect(maskText('  x-control-token: abc')).toBe('  x-control-token: ••••');
    expect(maskText('the receiver keeps svc_whsec_abcdefgh12345678 to check')).toBe(
      'the receiver keeps svc_•••• to check',
    );
    expect(maskText('  ← 201 {"id":"019b","versao":1}')).toBe('  ← 201 {"id":"019b","versao":1}');
  });
});
