/**
 * Random call sequences for the stateful properties. A sequence is a list of abstract steps whose targets
 * are picks (natural numbers) resolved against what exists when the step runs, so every generated sequence
 * is runnable and shrinks well. A Runner executes steps over HTTP against one emulator, keeps a small model
 * of the company's resources (taken from the answers), and logs every exchange.
 *
 * Valid steps always send a request the contract accepts (reading the current ETag first when one is
 * needed); bad steps send a request the contract refuses, each with the status it must get.
 */
import fc from 'fast-check';
import type { CreatedCompanyInfo, Emulator } from '../../../src/index.js';
import { Api, type Answer } from '../../support/client.js';
import { cnpjOf, cnpjOfNumber, order4 } from '../../support/cnpj.js';

export type Kind = 'establishment' | 'catalog' | 'product';

export interface NameChanges {
  readonly nome?: string;
  readonly id_externo?: string | null;
}

export interface ProductChanges {
  readonly id_externo?: string | null;
  readonly sku?: string | null;
  readonly descricao?: string | null;
  readonly ncm?: string;
  readonly atributos?: readonly { codigo: string; valores: string[] }[];
}

export interface NewProductFields {
  readonly origem: string;
  readonly ncm: string;
  readonly id_externo?: string | null;
  readonly sku?: string | null;
  readonly descricao?: string | null;
  readonly atributos?: readonly { codigo: string; valores: string[] }[];
}

export const BAD_KINDS = [
  'staleEtag',
  'missingIfMatch',
  'missingKey',
  'invalidKey',
  'unknownId',
  'badBody',
  'readOnly',
  'otherCompany',
  'duplicateCnpj',
  'secondCatalog',
  'archiveWithCatalog',
  'duplicateExternalId',
  'invalidCnpj',
  'foreignRoot',
  'reuseKey',
  'statusFault',
  'wrongMethod',
  'unknownRoute',
  'unsupportedMedia',
  'badJson',
  'tooLarge',
  'editArchived',
  'unlinkNotLinked',
  'linkUnknownProduct',
  'ifMatchStar',
  'bothPreconditions',
  'badQuery',
  'badCursor',
  'noCredential',
] as const;
export type BadKind = (typeof BAD_KINDS)[number];

export type Step =
  | { readonly t: 'newEstablishment'; readonly order: string; readonly nome: string; readonly idExterno: string | null }
  | { readonly t: 'newCatalog'; readonly pick: number; readonly nome: string; readonly idExterno: string | null }
  | { readonly t: 'newProduct'; readonly pick: number; readonly fields: NewProductFields }
  | { readonly t: 'editProduct'; readonly pick: number; readonly changes: ProductChanges }
  | { readonly t: 'editCatalog'; readonly pick: number; readonly changes: NameChanges }
  | { readonly t: 'editEstablishment'; readonly pick: number; readonly changes: NameChanges }
  | { readonly t: 'link'; readonly pick: number; readonly pick2: number }
  | { readonly t: 'unlink'; readonly pick: number; readonly pick2: number }
  | { readonly t: 'archive'; readonly pick: number }
  | { readonly t: 'read'; readonly kind: Kind; readonly pick: number }
  | { readonly t: 'list'; readonly kind: Kind; readonly limite: number }
  | { readonly t: 'advance'; readonly ms: number }
  /** A change under a concurrentEdit fault: someone else saves the resource first, so it answers 412. */
  | { readonly t: 'concurrentEdit'; readonly kind: Kind; readonly pick: number }
  | { readonly t: 'bad'; readonly bad: BadKind; readonly pick: number; readonly pick2: number; readonly variant: number };

// ---------------------------------------------------------------------------------------------------------
// Generators

const nome = fc.oneof(
  { weight: 3, arbitrary: fc.string({ minLength: 1, maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 10, unit: 'grapheme' }) },
);
const externalId = fc.option(fc.string({ minLength: 1, maxLength: 24 }), { nil: null, freq: 3 });
const ncm = fc.stringMatching(/^\d{8}$/);
const shortText = (max: number) => fc.string({ minLength: 1, maxLength: max });
const atributos = fc.uniqueArray(
  fc.record({ codigo: shortText(12), valores: fc.array(shortText(16), { minLength: 1, maxLength: 3 }) }),
  { maxLength: 4, selector: (a) => a.codigo },
);

const newProductFields: fc.Arbitrary<NewProductFields> = fc.record(
  {
    origem: shortText(16),
    ncm,
    id_externo: externalId,
    sku: fc.option(shortText(16), { nil: null }),
    descricao: fc.option(shortText(60), { nil: null }),
    atributos,
  },
  { requiredKeys: ['origem', 'ncm'] },
);

const nameChanges: fc.Arbitrary<NameChanges> = fc
  .record({ nome, id_externo: externalId }, { requiredKeys: [] })
  .filter((c) => c.nome !== undefined || c.id_externo !== undefined);

const productChanges: fc.Arbitrary<ProductChanges> = fc
  .record(
    {
      id_externo: externalId,
      sku: fc.option(shortText(16), { nil: null }),
      descricao: fc.option(shortText(60), { nil: null }),
      ncm,
      atributos,
    },
    { requiredKeys: [] },
  )
  .filter((c) => Object.keys(c).length > 0);

const pick = fc.nat({ max: 1000 });
const kind = fc.constantFrom<Kind>('establishment', 'catalog', 'product');

export const arbitraries = {
  newEstablishment: fc.record({ t: fc.constant('newEstablishment' as const), order: order4, nome, idExterno: externalId }),
  newCatalog: fc.record({ t: fc.constant('newCatalog' as const), pick, nome, idExterno: externalId }),
  newProduct: fc.record({ t: fc.constant('newProduct' as const), pick, fields: newProductFields }),
  editProduct: fc.record({ t: fc.constant('editProduct' as const), pick, changes: productChanges }),
  editCatalog: fc.record({ t: fc.constant('editCatalog' as const), pick, changes: nameChanges }),
  editEstablishment: fc.record({ t: fc.constant('editEstablishment' as const), pick, changes: nameChanges }),
  link: fc.record({ t: fc.constant('link' as const), pick, pick2: pick }),
  unlink: fc.record({ t: fc.constant('unlink' as const), pick, pick2: pick }),
  archive: fc.record({ t: fc.constant('archive' as const), pick }),
  read: fc.record({ t: fc.constant('read' as const), kind, pick }),
  list: fc.record({ t: fc.constant('list' as const), kind, limite: fc.integer({ min: 1, max: 200 }) }),
  advance: (maxMs: number) => fc.record({ t: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: maxMs }) }),
  concurrentEdit: fc.record({ t: fc.constant('concurrentEdit' as const), kind, pick }),
  bad: fc.record({ t: fc.constant('bad' as const), bad: fc.constantFrom(...BAD_KINDS), pick, pick2: pick, variant: fc.nat({ max: 1000 }) }),
};

/** Valid mutations only (the idempotent-replay property). */
export const mutationStep: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: arbitraries.newEstablishment },
  { weight: 3, arbitrary: arbitraries.newCatalog },
  { weight: 5, arbitrary: arbitraries.newProduct },
  { weight: 4, arbitrary: arbitraries.editProduct },
  { weight: 2, arbitrary: arbitraries.editCatalog },
  { weight: 2, arbitrary: arbitraries.editEstablishment },
  { weight: 3, arbitrary: arbitraries.link },
  { weight: 3, arbitrary: arbitraries.unlink },
  { weight: 1, arbitrary: arbitraries.archive },
);

/** Valid steps: mutations, reads and clock moves (at most `maxAdvanceMs` each). */
export function validStep(maxAdvanceMs: number): fc.Arbitrary<Step> {
  return fc.oneof(
    { weight: 12, arbitrary: mutationStep },
    { weight: 4, arbitrary: arbitraries.read },
    { weight: 1, arbitrary: arbitraries.list },
    { weight: 1, arbitrary: arbitraries.advance(maxAdvanceMs) },
  );
}

/** Valid and refused steps, mixed; with `concurrentEdits`, also changes that lose to a simulated concurrent edit. */
export function mixedStep(maxAdvanceMs: number, options: { concurrentEdits?: boolean } = {}): fc.Arbitrary<Step> {
  const steps: fc.WeightedArbitrary<Step>[] = [
    { weight: 3, arbitrary: validStep(maxAdvanceMs) },
    { weight: 2, arbitrary: arbitraries.bad },
  ];
  if (options.concurrentEdits) steps.push({ weight: 1, arbitrary: arbitraries.concurrentEdit });
  return fc.oneof(...steps);
}

// ---------------------------------------------------------------------------------------------------------
// The runner

export interface Sent {
  readonly method: string;
  readonly path: string;
  /** A JSON value sent with content-type application/json. */
  readonly body?: unknown;
  /** A raw body sent as is. */
  readonly raw?: string;
  readonly key: string | null;
  readonly ifMatch?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Which credential: the company's, a read-only one, another company's, or none. */
  readonly as: 'company' | 'readOnly' | 'other' | 'none';
  /** Sent under a concurrentEdit fault: the fault changes the resource by design before the 412. */
  readonly concurrentEdit?: true;
}

export interface Exchange {
  readonly index: number;
  /** The step that sent it, and its role there ('read-etag' for the GET before a conditional change). */
  readonly step: number;
  readonly label: string;
  readonly sent: Sent;
  readonly answer: Answer;
  /** For a bad step: the status the contract requires. */
  readonly expected?: number;
  /** The resource the answer represents (reads and mutations of one resource). */
  readonly resource?: { readonly kind: Kind; readonly id: string };
}

interface EstablishmentModel { id: string; cnpj: string; estado: string; catalogoId: string | null }
interface CatalogModel { id: string; establishmentId: string }
interface ProductModel { id: string; catalogos: string[]; idExterno: string | null }

export interface RunnerOptions {
  /** Called around every request (the refusal property snapshots the state here). */
  readonly around?: (sent: Sent, send: () => Promise<Answer>) => Promise<Answer>;
}

const STALE_FALLBACK = '"00000000deadbeef"';
const UNKNOWN_UUID = '0190a000-0000-7000-8000-00000000dead';

export class Runner {
  readonly log: Exchange[] = [];
  readonly establishments: EstablishmentModel[] = [];
  readonly catalogs: CatalogModel[] = [];
  readonly products: ProductModel[] = [];
  /** Every ETag seen per resource id, oldest first. */
  readonly etags = new Map<string, string[]>();
  private readonly apis: Record<Sent['as'], Api>;
  private keyCounter = 0;
  private step = -1;
  private readonly cnpjs = new Set<string>();
  private orderCounter = 2;

  constructor(
    readonly emu: Emulator,
    readonly api: Api,
    readonly company: CreatedCompanyInfo,
    readonly others: { readonly readOnlyToken: string; readonly otherToken: string; readonly otherRoot: string },
    readonly options: RunnerOptions = {},
  ) {
    this.apis = { company: api, readOnly: api.as(others.readOnlyToken), other: api.as(others.otherToken), none: api.as(undefined) };
    this.establishments.push({ id: company.headOffice.id, cnpj: company.headOffice.cnpj, estado: 'ativo', catalogoId: null });
    this.cnpjs.add(company.headOffice.cnpj);
  }

  /** A runner on `emu` with a company, a read-only credential and a second company (all from the seeded source). */
  static create(emu: Emulator, api: Api, company: CreatedCompanyInfo, options: RunnerOptions = {}): Runner {
    const readOnlyToken = emu.companies.addCredential(company.companyId, ['catalogo:ler']).token;
    const other = emu.companies.create();
    return new Runner(emu, api, company, { readOnlyToken, otherToken: other.token, otherRoot: other.cnpjRoot }, options);
  }

  /** Idempotency keys from a per-runner counter: the same sequence sends the same keys. */
  nextKey(): string {
    this.keyCounter += 1;
    return `prop-key-${String(this.keyCounter).padStart(10, '0')}`;
  }

  async runAll(steps: readonly Step[]): Promise<void> {
    for (const step of steps) await this.run(step);
  }

  async send(label: string, sent: Sent, extra: { expected?: number; resource?: { kind: Kind; id?: string } } = {}): Promise<Answer> {
    const api = this.apis[sent.as];
    const doSend = () =>
      api.request(sent.method, sent.path, {
        key: sent.key,
        ...(sent.body === undefined ? {} : { body: sent.body }),
        ...(sent.raw === undefined ? {} : { raw: sent.raw }),
        ...(sent.ifMatch === undefined ? {} : { ifMatch: sent.ifMatch }),
        ...(sent.headers === undefined ? {} : { headers: { ...sent.headers } }),
      });
    const answer = this.options.around ? await this.options.around(sent, doSend) : await doSend();
    const represents = extra.resource !== undefined && answer.status < 300 && typeof answer.body?.id === 'string';
    const exchange: Exchange = {
      index: this.log.length,
      step: this.step,
      label,
      sent,
      answer,
      ...(extra.expected === undefined ? {} : { expected: extra.expected }),
      ...(represents ? { resource: { kind: extra.resource!.kind, id: answer.body.id as string } } : {}),
    };
    this.log.push(exchange);
    if (represents) this.absorb(extra.resource!.kind, answer);
    return answer;
  }

  /** Updates the model from an answer that represents one resource. */
  private absorb(kind: Kind, answer: Answer): void {
    const body = answer.body as Record<string, unknown>;
    const id = String(body.id);
    const etag = answer.headers.get('etag');
    if (etag !== null) {
      const seen = this.etags.get(id) ?? [];
      if (seen[seen.length - 1] !== etag) seen.push(etag);
      this.etags.set(id, seen);
    }
    if (kind === 'establishment') {
      const found = this.establishments.find((e) => e.id === id);
      const model = { id, cnpj: String(body.cnpj), estado: String(body.estado), catalogoId: (body.catalogo_id as string | null) ?? null };
      if (found) Object.assign(found, model);
      else this.establishments.push(model);
      this.cnpjs.add(model.cnpj);
    } else if (kind === 'catalog') {
      if (!this.catalogs.some((c) => c.id === id)) this.catalogs.push({ id, establishmentId: String(body.estabelecimento_id) });
      const establishment = this.establishments.find((e) => e.id === body.estabelecimento_id);
      if (establishment && body.estado === 'ativo') establishment.catalogoId = id;
    } else {
      const found = this.products.find((p) => p.id === id);
      const model = { id, catalogos: [...(body.catalogos as string[])], idExterno: (body.id_externo as string | null) ?? null };
      if (found) Object.assign(found, model);
      else this.products.push(model);
    }
  }

  private pathOf(kind: Kind, id: string): string {
    return kind === 'establishment' ? `/v1/estabelecimentos/${id}` : kind === 'catalog' ? `/v1/catalogos/${id}` : `/v1/produtos/${id}`;
  }

  /** GET one resource; its ETag (undefined when the read failed). */
  async read(kind: Kind, id: string, label = 'read'): Promise<string | undefined> {
    const answer = await this.send(label, { method: 'GET', path: this.pathOf(kind, id), key: null, as: 'company' }, { resource: { kind, id } });
    return answer.status === 200 ? answer.headers.get('etag') ?? undefined : undefined;
  }

  private listOf(kind: Kind): { id: string }[] {
    return kind === 'establishment' ? this.establishments : kind === 'catalog' ? this.catalogs : this.products;
  }

  private freeCnpj(order: string): string {
    let cnpj = cnpjOf(this.company.cnpjRoot, order);
    while (this.cnpjs.has(cnpj)) {
      cnpj = cnpjOfNumber(this.company.cnpjRoot, this.orderCounter);
      this.orderCounter += 1;
    }
    return cnpj;
  }

  /** An id_externo no other product holds (the requested one, or it with a suffix). */
  private freeProductExternalId(wanted: string | null | undefined, self?: string): string | null | undefined {
    if (wanted === null || wanted === undefined) return wanted;
    let candidate = wanted;
    for (let n = 2; this.products.some((p) => p.idExterno === candidate && p.id !== self); n++) candidate = `${wanted}~${n}`;
    return candidate;
  }

  async newEstablishment(order: string, nome: string, idExterno: string | null): Promise<Answer> {
    const cnpj = this.freeCnpj(order);
    this.cnpjs.add(cnpj);
    const body = { cnpj, nome, ...(idExterno === null ? {} : { id_externo: idExterno }) };
    const answer = await this.send('newEstablishment', { method: 'POST', path: '/v1/estabelecimentos', body, key: this.nextKey(), as: 'company' }, { resource: { kind: 'establishment' } });
    return answer;
  }

  /** An active establishment with no catalog, registering one when there is none. */
  private async freeEstablishment(pick: number): Promise<EstablishmentModel | undefined> {
    let free = this.establishments.filter((e) => e.estado === 'ativo' && e.catalogoId === null);
    if (free.length === 0) {
      await this.newEstablishment('0000', 'Filial', null);
      free = this.establishments.filter((e) => e.estado === 'ativo' && e.catalogoId === null);
    }
    return free[pick % Math.max(free.length, 1)];
  }

  async newCatalog(pick: number, nome: string, idExterno: string | null): Promise<Answer | undefined> {
    const establishment = await this.freeEstablishment(pick);
    if (!establishment) return undefined;
    const body = { estabelecimento_id: establishment.id, nome, ...(idExterno === null ? {} : { id_externo: idExterno }) };
    return this.send('newCatalog', { method: 'POST', path: '/v1/catalogos', body, key: this.nextKey(), as: 'company' }, { resource: { kind: 'catalog' } });
  }

  private async someCatalog(pick: number): Promise<CatalogModel | undefined> {
    if (this.catalogs.length === 0) await this.newCatalog(pick, 'Catálogo', null);
    return this.catalogs[pick % Math.max(this.catalogs.length, 1)];
  }

  async newProduct(pick: number, fields: NewProductFields): Promise<Answer | undefined> {
    const catalog = await this.someCatalog(pick);
    if (!catalog) return undefined;
    const body = { ...fields, ...(fields.id_externo === undefined ? {} : { id_externo: this.freeProductExternalId(fields.id_externo) }) };
    return this.send('newProduct', { method: 'POST', path: `/v1/catalogos/${catalog.id}/produtos`, body, key: this.nextKey(), as: 'company' }, { resource: { kind: 'product' } });
  }

  private async someProduct(pick: number): Promise<ProductModel | undefined> {
    if (this.products.length === 0) await this.newProduct(pick, { origem: 'erp', ncm: '84713012' });
    return this.products[pick % Math.max(this.products.length, 1)];
  }

  /** A conditional change: GET the current ETag, then send it. */
  private async conditional(label: string, kind: Kind, id: string, method: string, path: string, body: unknown, resultKind: Kind = kind): Promise<Answer | undefined> {
    const etag = await this.read(kind, id, 'read-etag');
    if (etag === undefined) return undefined;
    return this.send(label, { method, path, ...(body === undefined ? {} : { body }), key: this.nextKey(), ifMatch: etag, as: 'company' }, { resource: { kind: resultKind, id } });
  }

  /** A product, a catalog (each created when there is none) or an active establishment. */
  private async resourceOf(kind: Kind, pick: number): Promise<{ id: string } | undefined> {
    if (kind === 'product') return this.someProduct(pick);
    if (kind === 'catalog') return this.someCatalog(pick);
    const active = this.establishments.filter((e) => e.estado === 'ativo');
    return active[pick % Math.max(active.length, 1)];
  }

  /** Archives an active establishment without catalog (registering one when there is none). */
  private async archive(pick: number): Promise<void> {
    let free = this.establishments.filter((e) => e.estado === 'ativo' && e.catalogoId === null);
    if (free.length === 0) {
      await this.newEstablishment('0000', 'A arquivar', null);
      free = this.establishments.filter((e) => e.estado === 'ativo' && e.catalogoId === null);
    }
    const establishment = free[pick % Math.max(free.length, 1)];
    if (establishment) await this.conditional('archive', 'establishment', establishment.id, 'DELETE', `/v1/estabelecimentos/${establishment.id}`, undefined);
  }

  async run(step: Step): Promise<void> {
    this.step += 1;
    switch (step.t) {
      case 'newEstablishment':
        await this.newEstablishment(step.order, step.nome, step.idExterno);
        return;
      case 'newCatalog':
        await this.newCatalog(step.pick, step.nome, step.idExterno);
        return;
      case 'newProduct':
        await this.newProduct(step.pick, step.fields);
        return;
      case 'editProduct': {
        const product = await this.someProduct(step.pick);
        if (!product) return;
        const changes = { ...step.changes, ...(step.changes.id_externo === undefined ? {} : { id_externo: this.freeProductExternalId(step.changes.id_externo, product.id) }) };
        await this.conditional('editProduct', 'product', product.id, 'PATCH', `/v1/produtos/${product.id}`, changes);
        return;
      }
      case 'editCatalog': {
        const catalog = await this.someCatalog(step.pick);
        if (catalog) await this.conditional('editCatalog', 'catalog', catalog.id, 'PATCH', `/v1/catalogos/${catalog.id}`, step.changes);
        return;
      }
      case 'editEstablishment': {
        const active = this.establishments.filter((e) => e.estado === 'ativo');
        const establishment = active[step.pick % Math.max(active.length, 1)];
        if (establishment) await this.conditional('editEstablishment', 'establishment', establishment.id, 'PATCH', `/v1/estabelecimentos/${establishment.id}`, step.changes);
        return;
      }
      case 'link': {
        const product = await this.someProduct(step.pick);
        const catalog = await this.someCatalog(step.pick2);
        if (product && catalog) await this.conditional('link', 'product', product.id, 'PUT', `/v1/catalogos/${catalog.id}/produtos/${product.id}`, step.pick2 % 2 === 0 ? {} : undefined);
        return;
      }
      case 'unlink': {
        const linked = this.products.filter((p) => p.catalogos.length > 0);
        const product = linked[step.pick % Math.max(linked.length, 1)];
        if (!product) return;
        const catalogId = product.catalogos[step.pick2 % product.catalogos.length]!;
        await this.conditional('unlink', 'product', product.id, 'DELETE', `/v1/catalogos/${catalogId}/produtos/${product.id}`, step.pick2 % 2 === 0 ? {} : undefined);
        return;
      }
      case 'archive':
        await this.archive(step.pick);
        return;
      case 'read': {
        const list = this.listOf(step.kind);
        const item = list[step.pick % Math.max(list.length, 1)];
        if (item) await this.read(step.kind, item.id);
        return;
      }
      case 'list': {
        const path = step.kind === 'establishment' ? '/v1/estabelecimentos' : step.kind === 'catalog' ? '/v1/catalogos' : '/v1/produtos';
        await this.send('list', { method: 'GET', path: `${path}?limite=${step.limite}`, key: null, as: 'company' });
        return;
      }
      case 'advance':
        await this.emu.clock.advance(step.ms);
        return;
      case 'concurrentEdit': {
        const item = await this.resourceOf(step.kind, step.pick);
        if (!item) return;
        const etag = await this.read(step.kind, item.id, 'read-etag');
        if (etag === undefined) return;
        this.emu.faults.add({ target: 'api', match: { method: 'PATCH', path: this.pathOf(step.kind, item.id), companyId: this.company.companyId }, effect: { concurrentEdit: true }, times: 1 });
        const body = step.kind === 'product' ? { sku: `sku-${step.pick}` } : { nome: `Nome ${step.pick}` };
        await this.send('concurrentEdit', { method: 'PATCH', path: this.pathOf(step.kind, item.id), body, key: this.nextKey(), ifMatch: etag, as: 'company', concurrentEdit: true }, { expected: 412 });
        await this.read(step.kind, item.id, 'read-after-concurrent-edit');
        return;
      }
      case 'bad':
        await this.bad(step.bad, step.pick, step.pick2, step.variant);
        return;
    }
  }

  /** A request the contract refuses, with the status it must get. */
  private async bad(bad: BadKind, pick: number, pick2: number, variant: number): Promise<void> {
    const kinds: Kind[] = ['establishment', 'catalog', 'product'];
    const refuse = (sent: Omit<Sent, 'key' | 'as'> & { key?: string | null; as?: Sent['as'] }, expected: number) =>
      this.send(`bad:${bad}`, { key: sent.method === 'GET' ? null : this.nextKey(), as: 'company', ...sent }, { expected });
    const validPatch = (kind: Kind): unknown => (kind === 'product' ? { sku: `sku-${variant}` } : { nome: `Nome ${variant}` });
    const resourceOf = (kind: Kind) => this.resourceOf(kind, pick);
    switch (bad) {
      case 'staleEtag': {
        const kind = kinds[variant % 3]!;
        const item = await resourceOf(kind);
        if (!item) return;
        const current = await this.read(kind, item.id, 'read-etag');
        const seen = (this.etags.get(item.id) ?? []).filter((e) => e !== current);
        const stale = seen[pick2 % Math.max(seen.length, 1)] ?? STALE_FALLBACK;
        await refuse({ method: 'PATCH', path: this.pathOf(kind, item.id), body: validPatch(kind), ifMatch: stale }, 412);
        return;
      }
      case 'missingIfMatch': {
        const kind = kinds[variant % 3]!;
        const item = await resourceOf(kind);
        if (item) await refuse({ method: 'PATCH', path: this.pathOf(kind, item.id), body: validPatch(kind) }, 428);
        return;
      }
      case 'missingKey':
        await refuse({ method: 'POST', path: '/v1/estabelecimentos', body: { cnpj: this.freeCnpj('0000'), nome: 'Sem chave' }, key: null }, 400);
        return;
      case 'invalidKey': {
        const keys = ['curta', 'x'.repeat(129), 'chave com espaços e acentos é', 'chave/com/barras/demais'];
        await refuse({ method: 'POST', path: '/v1/estabelecimentos', body: { cnpj: this.freeCnpj('0000'), nome: 'Chave' }, key: keys[variant % keys.length]! }, 400);
        return;
      }
      case 'unknownId': {
        switch (variant % 5) {
          case 0: await refuse({ method: 'GET', path: this.pathOf(kinds[pick2 % 3]!, UNKNOWN_UUID) }, 404); return;
          case 1: await refuse({ method: 'PATCH', path: this.pathOf(kinds[pick2 % 3]!, UNKNOWN_UUID), body: validPatch(kinds[pick2 % 3]!), ifMatch: STALE_FALLBACK }, 404); return;
          case 2: await refuse({ method: 'POST', path: '/v1/catalogos', body: { estabelecimento_id: UNKNOWN_UUID, nome: 'X' } }, 404); return;
          case 3: await refuse({ method: 'POST', path: `/v1/catalogos/${UNKNOWN_UUID}/produtos`, body: { origem: 'erp', ncm: '12345678' } }, 404); return;
          default: {
            const product = await this.someProduct(pick);
            if (product) await refuse({ method: 'PUT', path: `/v1/catalogos/${UNKNOWN_UUID}/produtos/${product.id}`, ifMatch: STALE_FALLBACK }, 404);
            return;
          }
        }
      }
      case 'badBody': {
        const catalog = await this.someCatalog(pick);
        if (!catalog) return;
        const bodies: unknown[] = [
          { origem: '', ncm: '84713012' },
          { origem: 'erp', ncm: '8471301' },
          { origem: 'erp' },
          { origem: 'erp', ncm: '84713012', campo: 1 },
          { origem: 'erp', ncm: '84713012', atributos: [{ codigo: 'a', valores: ['1'] }, { codigo: 'a', valores: ['2'] }] },
          { origem: 'erp', ncm: '84713012', atributos: [{ codigo: 'a', valores: [] }] },
          { origem: 'erp', ncm: 84713012 },
          [],
          null,
          'texto',
        ];
        await refuse({ method: 'POST', path: `/v1/catalogos/${catalog.id}/produtos`, body: bodies[variant % bodies.length] }, 422);
        return;
      }
      case 'readOnly': {
        const establishment = this.establishments[pick % this.establishments.length]!;
        if (variant % 2 === 0) await refuse({ method: 'POST', path: '/v1/catalogos', body: { estabelecimento_id: establishment.id, nome: 'X' }, as: 'readOnly' }, 403);
        else await refuse({ method: 'POST', path: '/v1/estabelecimentos', body: { cnpj: this.freeCnpj('0000'), nome: 'X' }, as: 'readOnly' }, 403);
        return;
      }
      case 'otherCompany': {
        const kind = kinds[variant % 3]!;
        const item = await resourceOf(kind);
        if (!item) return;
        const etag = await this.read(kind, item.id, 'read-etag');
        if (pick2 % 2 === 0) await refuse({ method: 'GET', path: this.pathOf(kind, item.id), as: 'other' }, 404);
        else await refuse({ method: 'PATCH', path: this.pathOf(kind, item.id), body: validPatch(kind), ifMatch: etag ?? STALE_FALLBACK, as: 'other' }, 404);
        return;
      }
      case 'duplicateCnpj': {
        const establishment = this.establishments[pick % this.establishments.length]!;
        await refuse({ method: 'POST', path: '/v1/estabelecimentos', body: { cnpj: establishment.cnpj, nome: 'Duplicado' } }, 409);
        return;
      }
      case 'secondCatalog': {
        const catalog = await this.someCatalog(pick);
        if (catalog) await refuse({ method: 'POST', path: '/v1/catalogos', body: { estabelecimento_id: catalog.establishmentId, nome: 'Segundo' } }, 409);
        return;
      }
      case 'archiveWithCatalog': {
        const catalog = await this.someCatalog(pick);
        if (!catalog) return;
        const etag = await this.read('establishment', catalog.establishmentId, 'read-etag');
        await refuse({ method: 'DELETE', path: `/v1/estabelecimentos/${catalog.establishmentId}`, ifMatch: etag ?? STALE_FALLBACK }, 409);
        return;
      }
      case 'duplicateExternalId': {
        let holder = this.products.find((p) => p.idExterno !== null);
        if (!holder) {
          await this.newProduct(pick, { origem: 'erp', ncm: '84713012', id_externo: `dup-${variant}` });
          holder = this.products.find((p) => p.idExterno !== null);
        }
        const catalog = await this.someCatalog(pick2);
        if (holder && catalog) await refuse({ method: 'POST', path: `/v1/catalogos/${catalog.id}/produtos`, body: { origem: 'erp', ncm: '84713012', id_externo: holder.idExterno } }, 409);
        return;
      }
      case 'invalidCnpj': {
        const valid = this.freeCnpj('0000');
        const last = Number(valid[13]);
        const invalid = valid.slice(0, 13) + String((last + 1 + (variant % 9)) % 10);
        await refuse({ method: 'POST', path: '/v1/estabelecimentos', body: { cnpj: invalid, nome: 'Inválido' } }, 422);
        return;
      }
      case 'foreignRoot':
        await refuse({ method: 'POST', path: '/v1/estabelecimentos', body: { cnpj: cnpjOf(this.others.otherRoot, '0002'), nome: 'Outra raiz' } }, 422);
        return;
      case 'reuseKey': {
        const done = this.log.filter((e) => e.sent.key !== null && e.answer.status < 300 && e.sent.method === 'POST');
        const earlier = done[pick % Math.max(done.length, 1)];
        if (!earlier || earlier.sent.key === null) return;
        await refuse({ method: 'POST', path: '/v1/estabelecimentos', body: { cnpj: this.freeCnpj('0000'), nome: `Outra ${variant}` }, key: earlier.sent.key }, 422);
        return;
      }
      case 'statusFault': {
        const statuses = [400, 401, 403, 404, 408, 409, 422, 429, 503];
        const status = statuses[variant % statuses.length]!;
        this.emu.faults.add({ target: 'api', match: { method: 'POST', path: '/v1/estabelecimentos', companyId: this.company.companyId }, effect: { status, retryAfter: 1 }, times: 1 });
        await refuse({ method: 'POST', path: '/v1/estabelecimentos', body: { cnpj: this.freeCnpj('0000'), nome: 'Com falha' } }, status);
        return;
      }
      case 'wrongMethod': {
        const cases: [string, string][] = [['PATCH', '/v1/catalogos'], ['DELETE', '/v1/produtos'], ['POST', '/v1/empresa'], ['PUT', '/v1/estabelecimentos']];
        const [method, path] = cases[variant % cases.length]!;
        await refuse({ method, path, body: {} }, 405);
        return;
      }
      case 'unknownRoute':
        await refuse({ method: 'POST', path: variant % 2 === 0 ? '/v1/catalogo' : '/v1/estabelecimentos/x/y', body: {} }, 404);
        return;
      case 'unsupportedMedia':
        await refuse({ method: 'POST', path: '/v1/estabelecimentos', raw: JSON.stringify({ cnpj: this.freeCnpj('0000'), nome: 'Texto' }), headers: { 'content-type': variant % 2 === 0 ? 'text/plain' : 'application/x-www-form-urlencoded' } }, 415);
        return;
      case 'badJson': {
        const texts = ['{', '{"nome":}', "{'nome':'x'}", '{"nome":"x",}', 'undefined', '\u0000'];
        await refuse({ method: 'POST', path: '/v1/estabelecimentos', raw: texts[variant % texts.length]!, headers: { 'content-type': 'application/json' } }, 400);
        return;
      }
      case 'tooLarge':
        await refuse({ method: 'POST', path: '/v1/estabelecimentos', raw: JSON.stringify({ cnpj: this.freeCnpj('0000'), nome: 'x'.repeat(1024 * 1024) }), headers: { 'content-type': 'application/json' } }, 413);
        return;
      case 'editArchived': {
        let archived = this.establishments.find((e) => e.estado === 'arquivado');
        if (!archived) {
          await this.archive(pick);
          archived = this.establishments.find((e) => e.estado === 'arquivado');
        }
        if (!archived) return;
        const etag = await this.read('establishment', archived.id, 'read-etag');
        await refuse({ method: variant % 2 === 0 ? 'PATCH' : 'DELETE', path: `/v1/estabelecimentos/${archived.id}`, ...(variant % 2 === 0 ? { body: { nome: 'Arquivado' } } : {}), ifMatch: etag ?? STALE_FALLBACK }, 409);
        return;
      }
      case 'unlinkNotLinked': {
        const product = await this.someProduct(pick);
        if (!product) return;
        let catalog = this.catalogs.find((c) => !product.catalogos.includes(c.id));
        if (!catalog) {
          await this.newCatalog(pick2, 'Outro', null);
          catalog = this.catalogs.find((c) => !product.catalogos.includes(c.id));
        }
        if (!catalog) return;
        const etag = await this.read('product', product.id, 'read-etag');
        await refuse({ method: 'DELETE', path: `/v1/catalogos/${catalog.id}/produtos/${product.id}`, ifMatch: etag ?? STALE_FALLBACK }, 404);
        return;
      }
      case 'linkUnknownProduct': {
        const catalog = await this.someCatalog(pick);
        if (catalog) await refuse({ method: 'PUT', path: `/v1/catalogos/${catalog.id}/produtos/${UNKNOWN_UUID}`, ifMatch: STALE_FALLBACK }, 404);
        return;
      }
      case 'ifMatchStar': {
        const kind = kinds[variant % 3]!;
        const item = await resourceOf(kind);
        if (item) await refuse({ method: 'PATCH', path: this.pathOf(kind, item.id), body: validPatch(kind), ifMatch: variant % 2 === 0 ? '*' : 'sem-aspas' }, 400);
        return;
      }
      case 'bothPreconditions': {
        const kind = kinds[variant % 3]!;
        const item = await resourceOf(kind);
        if (!item) return;
        const etag = await this.read(kind, item.id, 'read-etag');
        await refuse({ method: 'PATCH', path: this.pathOf(kind, item.id), body: validPatch(kind), ifMatch: etag ?? STALE_FALLBACK, headers: { 'if-none-match': '*' } }, 400);
        return;
      }
      case 'badQuery': {
        const paths = ['/v1/catalogos?limite=0', '/v1/estabelecimentos?limite=201', '/v1/produtos?limite=abc', '/v1/catalogos?apos_id=nao-e-uuid', '/v1/estabelecimentos?estado=excluido', '/v1/catalogos?limite=1&limite=2', '/v1/empresa?x=1'];
        await refuse({ method: 'GET', path: paths[variant % paths.length]! }, 422);
        return;
      }
      case 'badCursor': {
        const catalog = await this.someCatalog(pick);
        const paths = ['/v1/produtos?cursor=nao-e-cursor', `/v1/catalogos?apos_id=${UNKNOWN_UUID}`, `/v1/estabelecimentos?apos_id=${UNKNOWN_UUID}`];
        if (catalog) paths.push(`/v1/catalogos/${catalog.id}/produtos?cursor=${Buffer.from(JSON.stringify([1, this.company.companyId, 'produtos', 1])).toString('base64url')}`);
        await refuse({ method: 'GET', path: paths[variant % paths.length]! }, 422);
        return;
      }
      case 'noCredential':
        await refuse({ method: variant % 2 === 0 ? 'GET' : 'POST', path: '/v1/estabelecimentos', ...(variant % 2 === 0 ? {} : { body: { cnpj: this.freeCnpj('0000'), nome: 'X' } }), as: 'none' }, 401);
        return;
    }
  }
}
