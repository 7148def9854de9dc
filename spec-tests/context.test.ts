/**
 * The integration context, the company's identity and its capacity (paths of docs/api.md; shapes and
 * permissions of docs/where-the-spec-is-silent.md): GET /v1/contexto, GET /v1/empresa,
 * GET /v1/empresa/capacidade.
 */
import { describe, expect, it } from 'vitest';
import { headOfficeCatalog, world } from './support/client.js';
import { cnpjOf } from './support/cnpj.js';
import { expectError, REQUEST_ID } from './support/expect.js';
import { ALL_PERMISSIONS, branch, orderFor } from './support/fixtures.js';
import { deployment } from './support/deployment.js';

/**
 * The limits every company's context reports with the default emulator (spec "Limits" and
 * docs/where-the-spec-is-silent.md "Limits the emulator adds").
 */
const DEFAULT_LIMITS = {
  chave_idempotencia: { min: 16, max: 128 },
  corpo_bytes: 1024 * 1024,
  catalogos_pagina: { padrao: 50, maximo: 200, orcamento_bytes: 256 * 1024 },
  estabelecimentos_pagina: { padrao: 50, maximo: 200, orcamento_bytes: 256 * 1024 },
  produtos_pagina: { padrao: 50, maximo: 200, orcamento_bytes: 256 * 1024 },
  nome: { min: 1, max: 120 },
  id_externo: { min: 1, max: 256 },
  descricao_produto: { min: 1, max: 2000 },
  atributos_produto: { maximo: 128, codigo_max: 128, valores_min: 1, valores_max: 50 },
};

describe('GET /v1/contexto', () => {
  it("answers the company, the credential's permissions, the subscription, the counts and the limits, exactly", async () => {
    const w = await world({}, { name: 'Contexto SA' });
    const answer = await w.api.get('/v1/contexto');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-request-id')).toMatch(REQUEST_ID);
    expect(answer.body).toEqual({
      empresa: { id: w.company.companyId, cnpj_raiz: w.company.cnpjRoot, nome: 'Contexto SA' },
      credencial: { permissoes: expect.any(Array) },
      assinatura: { ativa: true },
      estabelecimentos: { ativos: 1, arquivados: 0 },
      catalogos: { ativos: 0, excluidos: 0 },
      limites: DEFAULT_LIMITS,
    });
    expect([...answer.body.credencial.permissoes].sort()).toEqual([...ALL_PERMISSIONS].sort());
  });

  it('reports the page budgets the emulator was configured with', async () => {
    const w = await world({ pageBudgets: { catalogs: 600, establishments: 700 } });
    const answer = await w.api.get('/v1/contexto');
    expect(answer.status).toBe(200);
    if (w.target.kind === 'in-process') {
      expect(answer.body.limites.catalogos_pagina).toEqual({ padrao: 50, maximo: 200, orcamento_bytes: 600 });
      expect(answer.body.limites.estabelecimentos_pagina).toEqual({ padrao: 50, maximo: 200, orcamento_bytes: 700 });
      expect(answer.body.limites.produtos_pagina).toEqual({ padrao: 50, maximo: 200, orcamento_bytes: 256 * 1024 });
    } else {
      // the shared server was started with the defaults; the option applies only in process
      expect(answer.body.limites).toEqual(DEFAULT_LIMITS);
    }
  });

  it("shows the permissions of the credential used, not the company's first one", async () => {
    const w = await world();
    const { token } = await w.controls.addCredential(w.company.companyId, ['catalogo:ler', 'webhook:gerenciar']);
    const answer = await w.api.as(token).get('/v1/contexto');
    expect(answer.status).toBe(200);
    expect([...answer.body.credencial.permissoes].sort()).toEqual(['catalogo:ler', 'webhook:gerenciar']);
    expect(answer.body.empresa.id).toBe(w.company.companyId);
    const full = await w.api.get('/v1/contexto');
    expect(full.body.credencial.permissoes).toHaveLength(6);
  });

  it('shows the permissions of a company created with fewer', async () => {
    const w = await world({}, { permissions: ['catalogo:ler'] });
    const answer = await w.api.get('/v1/contexto');
    expect(answer.body.credencial).toEqual({ permissoes: ['catalogo:ler'] });
  });

  it('works with a credential that has no permission at all, as /v1/empresa does', async () => {
    const w = await world({}, { name: 'Sem Permissao' });
    const { token } = await w.controls.addCredential(w.company.companyId, []);
    const none = w.api.as(token);
    const context = await none.get('/v1/contexto');
    expect(context.status, context.text).toBe(200);
    expect(context.body.credencial).toEqual({ permissoes: [] });
    expect(context.body.empresa).toEqual({
      id: w.company.companyId,
      cnpj_raiz: w.company.cnpjRoot,
      nome: 'Sem Permissao',
    });
    const company = await none.get('/v1/empresa');
    expect(company.status, company.text).toBe(200);
    expect(company.body).toEqual({ id: w.company.companyId, cnpj_raiz: w.company.cnpjRoot, nome: 'Sem Permissao' });
    // while a read that needs catalogo:ler is refused
    expectError(await none.get('/v1/estabelecimentos'), 403, 'permissao_insuficiente', null);
  });

  it('counts establishments and catalogs as they are created and archived', async () => {
    const w = await world();
    const counts = async () => {
      const answer = await w.api.get('/v1/contexto');
      expect(answer.status).toBe(200);
      return { estabelecimentos: answer.body.estabelecimentos, catalogos: answer.body.catalogos };
    };
    const start = await counts();
    // A new company counts its head office alone; a deployment's shared company, what earlier tests left: there
    // the test checks how its own changes move the counts.
    if (deployment === undefined)
      expect(start).toEqual({ estabelecimentos: { ativos: 1, arquivados: 0 }, catalogos: { ativos: 0, excluidos: 0 } });
    const moved = (ativos: number, arquivados: number, catalogos: number) => ({
      estabelecimentos: {
        ativos: start.estabelecimentos.ativos + ativos,
        arquivados: start.estabelecimentos.arquivados + arquivados,
      },
      catalogos: { ativos: start.catalogos.ativos + catalogos, excluidos: start.catalogos.excluidos },
    });
    const a = await branch(w);
    const b = await branch(w);
    expect(await counts()).toEqual(moved(2, 0, 0));
    expect((await w.api.delete(`/v1/estabelecimentos/${a.id}`, {}, { ifMatch: a.etag })).status).toBe(200);
    expect(await counts()).toEqual(moved(1, 1, 0));
    await headOfficeCatalog(w);
    expect((await w.api.post('/v1/catalogos', { estabelecimento_id: b.id, nome: 'B' })).status).toBe(201);
    expect(await counts()).toEqual(moved(1, 1, 2));
    // A refused change moves no count.
    expect((await w.api.delete(`/v1/estabelecimentos/${b.id}`, {}, { ifMatch: '"stale"' })).status).toBe(412);
    expect((await w.api.post('/v1/catalogos', { estabelecimento_id: a.id, nome: 'A' })).status).toBe(409);
    expect(await counts()).toEqual(moved(1, 1, 2));
  });

  it("counts only the company's own resources", async () => {
    const w = await world();
    const before = (await w.api.get('/v1/contexto')).body;
    // A new company counts its head office alone; a deployment's, what earlier tests left: there the counts are compared.
    if (deployment === undefined)
      expect(before).toMatchObject({
        estabelecimentos: { ativos: 1, arquivados: 0 },
        catalogos: { ativos: 0, excluidos: 0 },
      });
    const other = await w.controls.createCompany();
    const theirs = w.api.as(other.token);
    const theirsBefore = (await theirs.get('/v1/contexto')).body;
    expect(
      (await theirs.post('/v1/estabelecimentos', { cnpj: cnpjOf(other.cnpjRoot, orderFor('0002')), nome: 'F' })).status,
    ).toBe(201);
    expect((await theirs.post('/v1/catalogos', { estabelecimento_id: other.headOffice.id, nome: 'L' })).status).toBe(
      201,
    );
    const mine = await w.api.get('/v1/contexto');
    expect(mine.body.estabelecimentos).toEqual(before.estabelecimentos);
    expect(mine.body.catalogos).toEqual(before.catalogos);
    const their = await theirs.get('/v1/contexto');
    expect(their.body.estabelecimentos).toEqual({
      ...theirsBefore.estabelecimentos,
      ativos: theirsBefore.estabelecimentos.ativos + 1,
    });
    expect(their.body.catalogos).toEqual({ ...theirsBefore.catalogos, ativos: theirsBefore.catalogos.ativos + 1 });
    expect(their.body.empresa.id).toBe(other.companyId);
  });

  it('follows the subscription state', async () => {
    const w = await world();
    await w.controls.updateCompany(w.company.companyId, { subscriptionActive: false });
    expect((await w.api.get('/v1/contexto')).body.assinatura).toEqual({ ativa: false });
    await w.controls.updateCompany(w.company.companyId, { subscriptionActive: true });
    expect((await w.api.get('/v1/contexto')).body.assinatura).toEqual({ ativa: true });
  });

  it('reports a company created with a suspended subscription', async () => {
    const w = await world({}, { subscriptionActive: false });
    expect((await w.api.get('/v1/contexto')).body.assinatura).toEqual({ ativa: false });
  });

  it('answers 401 without a credential or with an unknown one', async () => {
    const w = await world();
    const missing = await w.api.as(undefined).get('/v1/contexto');
    expectError(missing, 401, 'credencial_ausente', 'header.authorization');
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    expectError(
      await w.api.as('svc_at_unknown').get('/v1/contexto'),
      401,
      'credencial_invalida',
      'header.authorization',
    );
    expectError(
      await w.api.as('svc_at_unknown').get('/v1/empresa'),
      401,
      'credencial_invalida',
      'header.authorization',
    );
  });

  it('refuses a query parameter with 422 campo_desconhecido', async () => {
    const w = await world();
    expectError(await w.api.get('/v1/contexto?x=1'), 422, 'campo_desconhecido', 'query.x');
  });
  // spec: EST-11, EST-13, LIM-01, LIM-02, LIM-03, LIM-26
  it('reports the limits the API enforces: each bound is accepted, one past it refused', async () => {
    const w = await world();
    const { limites } = (await w.api.get('/v1/contexto')).body;
    // Establishments: a company may have many (an establishment has at most one active catalog).
    let created = 0;
    const establishment = (fields: Record<string, unknown>, key?: string) =>
      w.api.post(
        '/v1/estabelecimentos',
        { cnpj: cnpjOf(w.company.cnpjRoot, orderFor(String(1000 + ++created))), nome: 'Filial', ...fields },
        key === undefined ? {} : { key },
      );
    // Keys of exactly these lengths, random: a deployment keeps keys for days, across runs.
    const keyOf = (length: number) =>
      Array.from({ length }, () => 'abcdefghijklmnopqrstuvwxyz0123456789'.charAt(Math.floor(Math.random() * 36))).join(
        '',
      );

    expect((await establishment({ nome: 'n'.repeat(limites.nome.max) })).status).toBe(201);
    expectError(await establishment({ nome: 'n'.repeat(limites.nome.max + 1) }), 422, 'valor_invalido', 'body.nome');
    expectError(await establishment({ nome: 'n'.repeat(limites.nome.min - 1) }), 422, 'valor_invalido', 'body.nome');
    expect((await establishment({ id_externo: 'x'.repeat(limites.id_externo.max) })).status).toBe(201);
    expectError(
      await establishment({ id_externo: 'y'.repeat(limites.id_externo.max + 1) }),
      422,
      'valor_invalido',
      'body.id_externo',
    );

    expect((await establishment({}, keyOf(limites.chave_idempotencia.min))).status).toBe(201);
    expect((await establishment({}, keyOf(limites.chave_idempotencia.max))).status).toBe(201);
    expectError(
      await establishment({}, 'k'.repeat(limites.chave_idempotencia.min - 1)),
      400,
      'chave_idempotencia_invalida',
      'header.idempotency-key',
    );
    expectError(
      await establishment({}, 'k'.repeat(limites.chave_idempotencia.max + 1)),
      400,
      'chave_idempotencia_invalida',
      'header.idempotency-key',
    );

    for (const list of ['/v1/catalogos', '/v1/estabelecimentos', '/v1/produtos']) {
      expect((await w.api.get(`${list}?limite=${limites.catalogos_pagina.maximo}`)).status).toBe(200);
      expectError(
        await w.api.get(`${list}?limite=${limites.catalogos_pagina.maximo + 1}`),
        422,
        'valor_invalido',
        'query.limite',
      );
    }
    expect([limites.estabelecimentos_pagina.maximo, limites.produtos_pagina.maximo]).toEqual([
      limites.catalogos_pagina.maximo,
      limites.catalogos_pagina.maximo,
    ]);

    const { id } = await headOfficeCatalog(w);
    const product = (fields: Record<string, unknown>) =>
      w.api.post(`/v1/catalogos/${id}/produtos`, { origem: 'erp', ncm: '84713012', ...fields });
    const attribute = {
      codigo: 'c'.repeat(limites.atributos_produto.codigo_max),
      valores: Array.from({ length: limites.atributos_produto.valores_max }, (_, i) => `v${i}`),
    };
    expect(
      (
        await product({
          descricao: 'd'.repeat(limites.descricao_produto.max),
          atributos: Array.from({ length: limites.atributos_produto.maximo }, () => attribute),
        })
      ).status,
    ).toBe(201);
    expectError(
      await product({ descricao: 'd'.repeat(limites.descricao_produto.max + 1) }),
      422,
      'valor_invalido',
      'body.descricao',
    );
    expectError(
      await product({ atributos: Array.from({ length: limites.atributos_produto.maximo + 1 }, () => attribute) }),
      422,
      'valor_invalido',
      'body.atributos',
    );
    expectError(
      await product({ atributos: [{ ...attribute, codigo: 'c'.repeat(limites.atributos_produto.codigo_max + 1) }] }),
      422,
      'valor_invalido',
      'body.atributos[0].codigo',
    );
    expectError(
      await product({ atributos: [{ ...attribute, valores: [...attribute.valores, 'one more'] }] }),
      422,
      'valor_invalido',
      'body.atributos[0].valores',
    );
    expectError(
      await product({ atributos: [{ ...attribute, valores: [] }] }),
      422,
      'valor_invalido',
      'body.atributos[0].valores',
    );
    expect(limites.atributos_produto.valores_min).toBe(1);
  });
});

describe('GET /v1/empresa', () => {
  it('follows a rename through the controls', async () => {
    const w = await world({}, { name: 'Antes' });
    await w.controls.updateCompany(w.company.companyId, { name: 'Depois' });
    expect((await w.api.get('/v1/empresa')).body).toEqual({
      id: w.company.companyId,
      cnpj_raiz: w.company.cnpjRoot,
      nome: 'Depois',
    });
    expect((await w.api.get('/v1/contexto')).body.empresa.nome).toBe('Depois');
  });
});

describe('GET /v1/empresa/capacidade', () => {
  it('answers the surveillance entitlement and capacity and the analysis allowance the company has', async () => {
    const w = await world({}, { surveillanceEntitled: true, surveillanceCapacity: 7, analysisAllowance: 3 });
    const answer = await w.api.get('/v1/empresa/capacidade');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-request-id')).toMatch(REQUEST_ID);
    expect(answer.body).toEqual({
      vigilancia: { direito_ativo: true, capacidade: 7, selecionados: 0, vagas: 7 },
      analises: { franquia: 3, disponiveis: 3 },
    });
  });

  it('follows controls.updateCompany: capacity, allowance and entitlement', async () => {
    const w = await world({}, { surveillanceEntitled: true, surveillanceCapacity: 5, analysisAllowance: 2 });
    await w.controls.updateCompany(w.company.companyId, { surveillanceCapacity: 12 });
    expect((await w.api.get('/v1/empresa/capacidade')).body).toEqual({
      vigilancia: { direito_ativo: true, capacidade: 12, selecionados: 0, vagas: 12 },
      analises: { franquia: 2, disponiveis: 2 },
    });
    await w.controls.updateCompany(w.company.companyId, { analysisAllowance: 0 });
    expect((await w.api.get('/v1/empresa/capacidade')).body.analises).toEqual({ franquia: 0, disponiveis: 0 });
    await w.controls.updateCompany(w.company.companyId, { surveillanceEntitled: false, surveillanceCapacity: 0 });
    expect((await w.api.get('/v1/empresa/capacidade')).body).toEqual({
      vigilancia: { direito_ativo: false, capacidade: 0, selecionados: 0, vagas: 0 },
      analises: { franquia: 0, disponiveis: 0 },
    });
    await w.controls.updateCompany(w.company.companyId, { surveillanceEntitled: true, analysisAllowance: 9 });
    expect((await w.api.get('/v1/empresa/capacidade')).body).toEqual({
      vigilancia: { direito_ativo: true, capacidade: 0, selecionados: 0, vagas: 0 },
      analises: { franquia: 9, disponiveis: 9 },
    });
  });

  it("is the company's own: another company's change does not show", async () => {
    const w = await world({}, { surveillanceCapacity: 4, analysisAllowance: 1 });
    const other = await w.controls.createCompany({ surveillanceCapacity: 4, analysisAllowance: 1 });
    await w.controls.updateCompany(other.companyId, { surveillanceCapacity: 40, analysisAllowance: 10 });
    expect((await w.api.get('/v1/empresa/capacidade')).body.vigilancia.capacidade).toBe(4);
    expect((await w.api.as(other.token).get('/v1/empresa/capacidade')).body.vigilancia.capacidade).toBe(40);
  });

  it('needs catalogo:ler: 403 permissao_insuficiente without it, 200 with only it', async () => {
    const w = await world({}, { surveillanceCapacity: 3, analysisAllowance: 1 });
    const { token: none } = await w.controls.addCredential(w.company.companyId, []);
    expectError(await w.api.as(none).get('/v1/empresa/capacidade'), 403, 'permissao_insuficiente', null);
    const { token: managers } = await w.controls.addCredential(w.company.companyId, [
      'catalogo:gerenciar',
      'vigilancia:gerenciar',
      'analise:executar',
    ]);
    expectError(await w.api.as(managers).get('/v1/empresa/capacidade'), 403, 'permissao_insuficiente', null);
    const { token: reader } = await w.controls.addCredential(w.company.companyId, ['catalogo:ler']);
    const answer = await w.api.as(reader).get('/v1/empresa/capacidade');
    expect(answer.status).toBe(200);
    expect(answer.body.vigilancia.capacidade).toBe(3);
  });
});
