import { describe, expect, it } from 'vitest';
import { createEmulator } from '../emulator.js';
import type { Fixtures } from '../engine/fixtures.js';
import { FixturesError, readFixtures } from './fixtures.js';

const ACME: Fixtures = {
  version: 1,
  companies: [
    {
      name: 'Acme Alimentos',
      cnpjRoot: '11222333',
      establishments: [{ cnpj: '11222333000262', nome: 'Filial Norte', id_externo: 'erp-filial-2' }],
      catalogs: [
        {
          nome: 'Loja',
          products: [
            { origem: 'erp', ncm: '21069090', sku: 'CAFE-500', atributos: [{ codigo: 'marca', valores: ['Acme'] }] },
            { origem: 'erp', ncm: '09012100', id_externo: 'p-2' },
          ],
        },
        { nome: 'Filial', establishment: '11222333000262' },
      ],
      webhook: { url: 'https://hooks.example.com/catalog' },
    },
    { cnpjRoot: '44555666', permissions: ['catalogo:ler'] },
  ],
};

/** The message readFixtures throws for `input`. */
function refusal(input: unknown): string {
  try {
    readFixtures(input);
  } catch (error) {
    expect(error).toBeInstanceOf(FixturesError);
    expect(error).toBeInstanceOf(TypeError);
    return (error as Error).message;
  }
  throw new Error('accepted');
}

describe('readFixtures: the format, strict, each problem named by its JSON path', () => {
  it('accepts the documented shape', () => {
    expect(readFixtures(ACME)).toEqual(ACME);
    expect(readFixtures({ version: 1, companies: [] })).toEqual({ version: 1, companies: [] });
  });

  it.each([
    [
      { version: 1, companies: [{ catalogs: [{ nome: 'a' }, { id_externo: 'x' }] }] },
      'fixtures.companies[0].catalogs[1].nome: required',
    ],
    [{ companies: [] }, 'fixtures.version: required'],
    [{ version: 2, companies: [] }, 'fixtures.version: must be 1, the version of this format'],
    [{ version: 1 }, 'fixtures.companies: required'],
    [[], 'fixtures: must be a JSON object'],
    [{ version: 1, companies: {} }, 'fixtures.companies: must be an array'],
    [
      { version: 1, companies: [], extra: true },
      'fixtures.extra: is not a key of the fixtures format here (keys are case-sensitive; check the spelling)',
    ],
    [
      { version: 1, companies: [{ catalogs: [{ Nome: 'a' }] }] },
      'fixtures.companies[0].catalogs[0].Nome: is not a key of the fixtures format here (keys are case-sensitive; check the spelling)',
    ],
    [
      { version: 1, companies: [{ cnpjRoot: '1122' }] },
      'fixtures.companies[0].cnpjRoot: must be 8 digits, e.g. "11222333"',
    ],
    [
      { version: 1, companies: [{ surveillanceCapacity: -1 }] },
      'fixtures.companies[0].surveillanceCapacity: must be a whole number, 0 or more',
    ],
    [
      { version: 1, companies: [{ catalogs: [{ nome: 'a', products: [{ origem: 'erp', ncm: '2106' }] }] }] },
      'fixtures.companies[0].catalogs[0].products[0].ncm: must be an NCM of 8 digits, e.g. "84713012"',
    ],
    [
      { version: 1, companies: [{ catalogs: [{ nome: '' }] }] },
      'fixtures.companies[0].catalogs[0].nome: must have at least 1 character',
    ],
    [
      { version: 1, companies: [{ webhook: { url: 'http://hooks.example.com' } }] },
      'fixtures.companies[0].webhook.url: must use https',
    ],
    [
      { version: 1, companies: [{ establishments: [{ cnpj: '11222333000262' }] }] },
      'fixtures.companies[0].establishments[0].nome: required',
    ],
    [
      { version: 1, companies: [{ permissions: ['tudo'] }] },
      expect.stringMatching(/^fixtures\.companies\[0\]\.permissions\[0\]: /),
    ],
    [
      { version: 1, companies: [{ credentials: [{}, { permissions: ['tudo'] }] }] },
      expect.stringMatching(/^fixtures\.companies\[0\]\.credentials\[1\]\.permissions\[0\]: /),
    ],
    [
      { version: 1, companies: [{ credentials: [{ token: 'mine' }] }] },
      'fixtures.companies[0].credentials[0].token: is not a key of the fixtures format here (keys are case-sensitive; check the spelling)',
    ],
    [{ version: 1, companies: [{ credentials: {} }] }, 'fixtures.companies[0].credentials: must be an array'],
  ])('%j → %s', (input, message) => {
    expect(refusal(input)).toEqual(message);
  });

  it("refuses a catalog's establishment that is none of the company's, saying which ones it may name", () => {
    expect(
      refusal({
        version: 1,
        companies: [{ cnpjRoot: '11222333', catalogs: [{ nome: 'a', establishment: '99888777000100' }] }],
      }),
    ).toBe(
      'fixtures.companies[0].catalogs[0].establishment: names no establishment of this company ("99888777000100"): give the CNPJ of one of its establishments or of its head office (11222333000181), or leave it out for the head office',
    );
    // The head office's CNPJ is a valid reference when the root is given.
    expect(() =>
      readFixtures({
        version: 1,
        companies: [{ cnpjRoot: '11222333', catalogs: [{ nome: 'a', establishment: '11222333000181' }] }],
      }),
    ).not.toThrow();
  });
});

describe('createEmulator({ fixtures })', () => {
  const auth = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

  it("makes a company's further credentials, each with the permissions given (all six when none), in order", async () => {
    const emu = createEmulator({
      fixtures: {
        version: 1,
        companies: [
          {
            cnpjRoot: '11222333',
            credentials: [
              { permissions: ['catalogo:ler'] },
              { permissions: ['webhook:gerenciar', 'catalogo:ler'] },
              {},
            ],
          },
        ],
      },
    });
    const [company] = emu.companies.fixtures();
    const [reader, hooks, all] = company!.credentials;
    // Listed in the service's order of permissions, whatever the file's.
    expect(company!.credentials.map((c) => c.permissions)).toEqual([
      ['catalogo:ler'],
      ['catalogo:ler', 'webhook:gerenciar'],
      [
        'catalogo:ler',
        'catalogo:gerenciar',
        'estabelecimento:gerenciar',
        'vigilancia:gerenciar',
        'analise:executar',
        'webhook:gerenciar',
      ],
    ]);
    expect(new Set([company!.token, reader!.token, hooks!.token, all!.token]).size).toBe(4);
    const context = async (token: string) =>
      (await (await emu.fetch('/v1/contexto', auth(token))).json()) as {
        empresa: { id: string };
        credencial: { permissoes: string[] };
      };
    expect(await context(reader!.token)).toMatchObject({
      empresa: { id: company!.companyId },
      credencial: { permissoes: ['catalogo:ler'] },
    });
    expect((await emu.fetch('/v1/webhook', auth(reader!.token))).status).toBe(403);
    expect((await emu.fetch('/v1/webhook', auth(hooks!.token))).status).toBe(404);
    expect((await context(all!.token)).credencial.permissoes).toHaveLength(6);
    // The same tokens after a reset: fixtures are made again from the same seed.
    await emu.reset();
    expect(emu.companies.fixtures()[0]!.credentials.map((c) => c.token)).toEqual([
      reader!.token,
      hooks!.token,
      all!.token,
    ]);
  });

  it('creates the companies and records through the API: they read back over the API as written', async () => {
    const emu = createEmulator({ fixtures: ACME });
    // Fixtures are no client's requests: none is journaled.
    expect(emu.journal.entries()).toEqual([]);
    const [acme, reader] = emu.companies.fixtures();
    expect(emu.companies.initial().map((c) => c.companyId)).toEqual([acme!.companyId, reader!.companyId]);
    expect(acme).toMatchObject({
      cnpjRoot: '11222333',
      name: 'Acme Alimentos',
      headOffice: { cnpj: '11222333000181' },
    });

    const establishments = (await (await emu.fetch('/v1/estabelecimentos', auth(acme!.token))).json()) as {
      itens: { id: string; cnpj: string; nome: string; id_externo: string | null }[];
    };
    expect(establishments.itens.map((e) => [e.cnpj, e.nome, e.id_externo])).toEqual([
      ['11222333000181', 'Acme Alimentos', null],
      ['11222333000262', 'Filial Norte', 'erp-filial-2'],
    ]);
    const [loja, filial] = acme!.catalogs;
    expect(filial).toMatchObject({ nome: 'Filial', establishmentId: acme!.establishments[0]!.id, products: [] });
    const products = (await (await emu.fetch(`/v1/catalogos/${loja!.id}/produtos`, auth(acme!.token))).json()) as {
      itens: Record<string, unknown>[];
    };
    expect(products.itens).toEqual([
      {
        id: loja!.products[0]!.id,
        id_externo: null,
        origem: 'erp',
        sku: 'CAFE-500',
        descricao: null,
        ncm: '21069090',
        atributos: [{ codigo: 'marca', valores: ['Acme'] }],
        versao: 1,
        ativo: true,
        catalogos: [loja!.id],
      },
      {
        id: loja!.products[1]!.id,
        id_externo: 'p-2',
        origem: 'erp',
        sku: null,
        descricao: null,
        ncm: '09012100',
        atributos: [],
        versao: 1,
        ativo: true,
        catalogos: [loja!.id],
      },
    ]);
    const webhook = await emu.fetch('/v1/webhook', auth(acme!.token));
    expect(await webhook.json()).toMatchObject({
      id: acme!.webhook!.id,
      url: 'https://hooks.example.com/catalog',
      estado: 'ativo',
    });
    expect(acme!.webhook!.secret).toMatch(/^svc_whsec_/);

    // The second company's credential has the permission given, and nothing else.
    expect(reader).toMatchObject({ cnpjRoot: '44555666', establishments: [], catalogs: [], webhook: null });
    expect((await emu.fetch('/v1/contexto', auth(reader!.token))).status).toBe(200);
    expect((await emu.fetch('/v1/webhook', auth(reader!.token))).status).toBe(403);
  });

  it('is deterministic: the same seed and fixtures give the same ids, tokens and secret, also after a reset', async () => {
    const a = createEmulator({ fixtures: ACME, seed: 7 });
    const b = createEmulator({ fixtures: ACME, seed: 7 });
    expect(b.companies.fixtures()).toEqual(a.companies.fixtures());
    expect(createEmulator({ fixtures: ACME, seed: 8 }).companies.fixtures()[0]!.token).not.toBe(
      a.companies.fixtures()[0]!.token,
    );
    const before = a.companies.fixtures();
    const [acme] = before;
    // A change through the API, gone after the reset, when the fixtures come back as they were.
    const created = await a.fetch(`/v1/catalogos/${acme!.catalogs[0]!.id}/produtos`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${acme!.token}`,
        'content-type': 'application/json',
        'idempotency-key': 'fixture-test-0001',
      },
      body: JSON.stringify({ origem: 'erp', ncm: '21069090' }),
    });
    expect(created.status).toBe(201);
    a.reset();
    expect(a.companies.fixtures()).toEqual(before);
    const list = (await (
      await a.fetch(`/v1/catalogos/${acme!.catalogs[0]!.id}/produtos`, auth(acme!.token))
    ).json()) as { itens: unknown[] };
    expect(list.itens).toHaveLength(2);
  });

  it('in real mode too, created at the start instant: a reset gives the same ids', () => {
    const emu = createEmulator({ clock: 'real', start: '2030-05-01T12:00:00Z', fixtures: ACME });
    const before = emu.companies.fixtures();
    emu.reset();
    expect(emu.companies.fixtures()).toEqual(before);
    void emu.close();
  });

  it.each([
    [
      { version: 1, companies: [{ permissions: ['catalogo:ler'], catalogs: [{ nome: 'a' }] }] },
      'fixtures.companies[0].catalogs[0]: refused by the service (403 permissao_insuficiente): This operation needs permission catalogo:gerenciar; the credential has catalogo:ler.',
    ],
    [
      { version: 1, companies: [{ subscriptionActive: false, webhook: { url: 'https://hooks.example.com/x' } }] },
      "fixtures.companies[0].webhook: refused by the service (403 assinatura_inativa): This operation needs an active subscription; the company's is suspended.",
    ],
    [
      { version: 1, companies: [{ cnpjRoot: '11222333' }, { cnpjRoot: '11222333' }] },
      'fixtures.companies[1].cnpjRoot: refused by the service (409 raiz_cnpj_duplicada): A company with CNPJ root 11222333 already exists; pick another root or omit it.',
    ],
    [
      { version: 1, companies: [{ cnpjRoot: '11222333', establishments: [{ cnpj: '99888777000100', nome: 'x' }] }] },
      "fixtures.companies[0].establishments[0].cnpj: refused by the service (422 cnpj_raiz_divergente): cnpj must start with the company's root 11222333.",
    ],
  ])('a record the service refuses throws at creation, naming it and the refusal: %j', (fixtures, message) => {
    expect(() => createEmulator({ fixtures: fixtures as Fixtures })).toThrow(message);
  });

  it('a state restored keeps the fixtures of the companies it has; stateVersion moves with every change and only then', async () => {
    const emu = createEmulator({ fixtures: ACME });
    const saved = emu.snapshot();
    const version = emu.stateVersion();
    expect(emu.stateVersion()).toBe(version);
    await emu.clock.advance('1m');
    expect(emu.stateVersion()).toBeGreaterThan(version);
    const [acme] = emu.companies.fixtures();
    const moved = emu.stateVersion();
    await emu.fetch('/v1/empresa', auth(acme!.token));
    expect(emu.stateVersion()).toBeGreaterThan(moved);
    const beforeReset = emu.stateVersion();
    emu.reset();
    expect(emu.stateVersion()).toBeGreaterThan(beforeReset);
    emu.companies.remove(acme!.companyId);
    expect(emu.companies.fixtures().map((c) => c.cnpjRoot)).toEqual(['44555666']);
    emu.restore(saved);
    expect(emu.companies.fixtures().map((c) => c.cnpjRoot)).toEqual(['11222333', '44555666']);
  });
});
