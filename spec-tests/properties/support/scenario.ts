/**
 * Random call sequences for the stateful properties. A sequence is a list of abstract steps whose targets
 * are picks (natural numbers) resolved against what exists when the step runs, so every generated sequence
 * is runnable and shrinks well. A Runner executes steps over HTTP against one emulator, keeps a small model
 * of the company's resources (taken from the answers), and logs every exchange.
 *
 * Valid steps always send a request the contract accepts (reading the current ETag first when one is
 * needed); bad steps send a request the contract refuses, each with the status it must get.
 *
 * Ingestion steps (mixedStep only) keep a model of the ingestions (state as last read, batches sent); after
 * every clock move the runner reads the ingestion list back (validation, application and expiry run on the
 * clock) and, once one was applied, every product (an application creates, updates, reactivates, unlinks and
 * deactivates products), so that later valid steps still pick active products and free id_externo values.
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
  | { readonly t: 'bad'; readonly bad: BadKind; readonly pick: number; readonly pick2: number; readonly variant: number }
  /** A batch-ingestion request (README "Batch ingestion"), valid or refused; see IngestionAction. */
  | { readonly t: 'ingestion'; readonly action: IngestionAction; readonly pick: number; readonly pick2: number; readonly variant: number; readonly records: readonly RecordSpec[] };

/** Ingestion steps the contract accepts (each sets up what it needs first: a free catalog, an open ingestion...). */
export const INGESTION_VALID = ['start', 'replayStart', 'batch', 'repeatBatch', 'close', 'apply', 'read', 'tick'] as const;
/** Ingestion steps the contract refuses, each with the status it must get. */
export const INGESTION_REFUSED = [
  'secondStart', // 409 ingestao_em_andamento
  'noDefaultCatalog', // 422 catalogo_padrao_ausente (only while the head office has no catalog)
  'unknownCatalog', // 404
  'badStart', // 422
  'badStartKey', // 400: the start's own key rule (16–200, no whitespace)
  'reuseStartKey', // 422 idempotencia_reutilizada
  'conflictingBatch', // 409 lote_divergente
  'batchOverLimits', // 422 (numero, itens) or 413 (over 4 MiB)
  'batchAfterClose', // 409 ingestao_fechada
  'inconsistentTotal', // 422 total_lotes_inconsistente
  'badClose', // 422
  'closeClosed', // 409 ingestao_fechada
  'staleApply', // 412
  'applyWithoutIfMatch', // 428
  'applyNotValidated', // 409 ingestao_nao_validada
  'unknownIngestion', // 404
  'foreignIngestion', // 404 (another company's credential)
  'readOnlyIngestion', // 403
  'badIngestionQuery', // 422
] as const;
export type IngestionAction = (typeof INGESTION_VALID)[number] | (typeof INGESTION_REFUSED)[number];

/**
 * One record of a batch, resolved when the step runs: `ref` picks the id_externo (an existing product's, so
 * that records update, leave or reactivate products; or one of a small pool, so that they repeat across
 * ingestions); a `bad` record has an invalid NCM (reported, not refused: the ingestion is then rejected).
 */
export interface RecordSpec {
  readonly ref: number;
  readonly ncm: string;
  readonly bad: boolean;
  readonly sku?: string | null;
  readonly descricao?: string | null;
}

// ---------------------------------------------------------------------------------------------------------
// Generators

const nome = fc.oneof(
  { weight: 3, arbitrary: fc.string({ minLength: 1, maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 10, unit: 'grapheme' }) },
);
const externalId = fc.option(fc.string({ minLength: 1, maxLength: 24 }), { nil: null, freq: 3 });
const ncm = fc.stringMatching(/^\d{8}$/);
const shortText = (max: number) => fc.string({ minLength: 1, maxLength: max });
/** Codes may repeat and values may be empty: the spec forbids neither ("valores: array of 1 to 50 strings"). */
const atributos = fc.array(
  fc.record({ codigo: fc.oneof(shortText(12), fc.constantFrom('cor', 'tamanho')), valores: fc.array(fc.string({ maxLength: 16 }), { minLength: 1, maxLength: 3 }) }),
  { maxLength: 4 },
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
  ingestion: fc.record({
    t: fc.constant('ingestion' as const),
    action: fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom<IngestionAction>(...INGESTION_VALID) },
      { weight: 2, arbitrary: fc.constantFrom<IngestionAction>(...INGESTION_REFUSED) },
    ),
    pick,
    pick2: pick,
    variant: fc.nat({ max: 1000 }),
    records: fc.array(
      fc.record(
        { ref: fc.nat({ max: 12 }), ncm: fc.constantFrom('84713012', '09012100', '10063021'), bad: fc.oneof({ weight: 7, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }), sku: fc.option(shortText(16), { nil: null }), descricao: fc.option(shortText(40), { nil: null }) },
        { requiredKeys: ['ref', 'ncm', 'bad'] },
      ),
      { minLength: 1, maxLength: 4 },
    ),
  }),
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
  steps.push({ weight: 2, arbitrary: arbitraries.ingestion });
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
interface ProductModel { id: string; catalogos: string[]; idExterno: string | null; ativo: boolean }
interface IngestionModel {
  readonly id: string;
  readonly catalogId: string;
  /** As last read: brought up to date after every clock move (validation, application and expiry run on the clock). */
  estado: string;
  /** The batches received (201) by number, as sent. */
  readonly batches: Map<number, unknown[]>;
}

/** The ingestion states that hold the catalog (README "Batch ingestion": one open ingestion per catalog). */
const OPEN_INGESTION = ['aberta', 'validando', 'validada', 'aplicando'];
const OPERACOES = ['mesclar', 'substituicao_catalogo', 'substituicao_integral'] as const;
const INGESTOES = '/v1/catalogos/ingestoes';
const ingestionPath = (id: string) => `${INGESTOES}/${id}`;
/** Ingestion estados that never change again (README "Batch ingestion"). */
const FINAL_INGESTION: ReadonlySet<string> = new Set(['aplicada', 'rejeitada', 'revisao_necessaria', 'falhou', 'expirada']);
/** The common idempotency-key rule (the ingestion start alone takes 16–200 characters without whitespace). */
const COMMON_KEY = /^[A-Za-z0-9._:-]{16,128}$/;
const MiB = 1024 * 1024;
/** Clock moves of the ingestion steps: around a validation or application of a few records, and around the 24 h expiry. */
const TICKS = [1_000, 1_010, 2_000, 60_000, 24 * 3_600_000 - 1, 24 * 3_600_000, 24 * 3_600_000 + 1];

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
  readonly ingestions: IngestionModel[] = [];
  /** Every ETag seen per resource id, oldest first. */
  readonly etags = new Map<string, string[]>();
  private readonly apis: Record<Sent['as'], Api>;
  private keyCounter = 0;
  private step = -1;
  private readonly cnpjs = new Set<string>();
  private orderCounter = 2;
  private recordCounter = 0;

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
      const model = { id, catalogos: [...(body.catalogos as string[])], idExterno: (body.id_externo as string | null) ?? null, ativo: body.ativo !== false };
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

  /** An active product (an inactive one takes no change), created when there is none. */
  private async someProduct(pick: number): Promise<ProductModel | undefined> {
    if (!this.products.some((p) => p.ativo)) await this.newProduct(pick, { origem: 'erp', ncm: '84713012' });
    const active = this.products.filter((p) => p.ativo);
    return active[pick % Math.max(active.length, 1)];
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
        const linked = this.products.filter((p) => p.ativo && p.catalogos.length > 0);
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
        await this.advance(step.ms);
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
      case 'ingestion':
        await this.ingestion(step);
        return;
    }
  }

  /** Moves the clock; what ran on it (ingestion validation, application, expiry) is read back into the model. */
  async advance(ms: number): Promise<void> {
    await this.emu.clock.advance(ms);
    await this.refreshIngestions();
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
          { origem: 'erp', ncm: '84713012', atributos: [{ codigo: 'a', valores: ['1'] }, { codigo: 'b'.repeat(129), valores: ['2'] }] },
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
        const done = this.log.filter((e) => e.sent.key !== null && COMMON_KEY.test(e.sent.key) && e.answer.status < 300 && e.sent.method === 'POST');
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

  // -------------------------------------------------------------------------------------------------------
  // Batch ingestion (README "Batch ingestion")

  /**
   * GET each ingestion that may still move (the service lists none): their estados into the model, and the
   * products again once one was applied.
   */
  private async refreshIngestions(): Promise<void> {
    let applied = false;
    for (const model of this.ingestions) {
      if (FINAL_INGESTION.has(model.estado)) continue;
      const answer: Answer = await this.send('ingestions', { method: 'GET', path: ingestionPath(model.id), key: null, as: 'company' });
      if (answer.status !== 200) continue;
      if (answer.body.estado === 'aplicada') applied = true;
      model.estado = answer.body.estado;
    }
    if (applied) await this.refreshProducts();
  }

  /** GET every product of the company: an application creates, updates, reactivates, unlinks and deactivates them. */
  private async refreshProducts(): Promise<void> {
    let cursor: string | null = null;
    for (;;) {
      const answer: Answer = await this.send('products-after-application', { method: 'GET', path: `/v1/produtos?limite=200${cursor === null ? '' : `&cursor=${cursor}`}`, key: null, as: 'company' });
      if (answer.status !== 200) return;
      for (const body of answer.body.itens as Record<string, unknown>[]) {
        const id = String(body.id);
        const model = { id, catalogos: [...(body.catalogos as string[])], idExterno: (body.id_externo as string | null) ?? null, ativo: body.ativo !== false };
        const found = this.products.find((p) => p.id === id);
        if (found) Object.assign(found, model);
        else this.products.push(model);
      }
      cursor = (answer.body.proximo_cursor as string | null) ?? null;
      if (cursor === null) return;
    }
  }

  private noteEtag(id: string, answer: Answer): void {
    const etag = answer.headers.get('etag');
    if (answer.status >= 300 || etag === null) return;
    const seen = this.etags.get(id) ?? [];
    if (seen[seen.length - 1] !== etag) seen.push(etag);
    this.etags.set(id, seen);
  }

  /** The records of a batch step: half of them carry an existing product's id_externo when there is one. */
  private records(specs: readonly RecordSpec[]): Record<string, unknown>[] {
    const known = this.products.filter((p) => p.idExterno !== null);
    return specs.map((r) => ({
      id_externo: r.ref % 2 === 0 && known.length > 0 ? known[(r.ref >> 1) % known.length]!.idExterno : `ing-${r.ref}`,
      origem: 'erp',
      ncm: r.bad ? '1006' : r.ncm,
      ...(r.sku === undefined ? {} : { sku: r.sku }),
      ...(r.descricao === undefined ? {} : { descricao: r.descricao }),
    }));
  }

  /** Valid records with an id_externo nothing else has: an ingestion of them validates. */
  private freshRecords(count: number): Record<string, unknown>[] {
    return Array.from({ length: count }, () => ({ id_externo: `ingestao-${++this.recordCounter}`, origem: 'erp', ncm: '84713012' }));
  }

  private headOfficeCatalogId(): string | null {
    return this.establishments[0]!.catalogoId;
  }

  private openIngestionOf(catalogId: string): IngestionModel | undefined {
    return this.ingestions.find((i) => i.catalogId === catalogId && OPEN_INGESTION.includes(i.estado));
  }

  /** A catalog no open ingestion holds (a new catalog when every one is held). */
  private async freeCatalog(pick: number): Promise<CatalogModel | undefined> {
    if (this.catalogs.every((c) => this.openIngestionOf(c.id))) await this.newCatalog(pick, 'Para ingestão', null);
    const free = this.catalogs.filter((c) => !this.openIngestionOf(c.id));
    return free[pick % Math.max(free.length, 1)];
  }

  private startBody(catalogId: string | undefined, variant: number): Record<string, unknown> {
    return { operacao: OPERACOES[variant % 3], ...(catalogId === undefined ? {} : { catalogo_id: catalogId }), ...(variant % 5 === 0 ? { referencia_externa: `erp-${variant}` } : {}) };
  }

  /** A key of the start's own rule (16–200 characters, none of them whitespace): "/" and "#" are fine there. */
  private startKey(variant: number): string {
    return `${this.nextKey()}/erp#${'x'.repeat(variant % 170)}`;
  }

  /** Starts an ingestion in a free catalog; without catalogo_id (some variants) when that is the head office's. */
  private async start(pick: number, variant: number): Promise<IngestionModel | undefined> {
    const catalog = await this.freeCatalog(pick);
    if (!catalog) return undefined;
    const implicit = variant % 2 === 0 && catalog.id === this.headOfficeCatalogId();
    const answer = await this.send('ingestion:start', { method: 'POST', path: INGESTOES, body: this.startBody(implicit ? undefined : catalog.id, variant), key: this.startKey(variant), as: 'company' });
    if (answer.status !== 201) return undefined;
    const model: IngestionModel = { id: answer.body.ingestao_id, catalogId: answer.body.catalogo_id, estado: answer.body.estado, batches: new Map() };
    this.ingestions.push(model);
    return model;
  }

  /** An aberta ingestion, started when there is none. */
  private async openIngestion(pick: number, variant: number): Promise<IngestionModel | undefined> {
    const open = this.ingestions.filter((i) => i.estado === 'aberta');
    return open.length > 0 ? open[pick % open.length] : this.start(pick, variant);
  }

  /** An aberta ingestion with at least one batch received (one is sent when it has none). */
  private async openIngestionWithBatch(pick: number, variant: number, specs: readonly RecordSpec[]): Promise<IngestionModel | undefined> {
    const ingestion = await this.openIngestion(pick, variant);
    if (ingestion && ingestion.batches.size === 0) await this.putBatch('ingestion:batch', ingestion, 1 + (variant % 3), this.records(specs));
    return ingestion && ingestion.batches.size > 0 ? ingestion : undefined;
  }

  /** An ingestion that is no longer aberta (one is closed when there is none). */
  private async closedIngestion(pick: number, variant: number): Promise<IngestionModel | undefined> {
    const closed = this.ingestions.filter((i) => i.estado !== 'aberta');
    if (closed.length > 0) return closed[pick % closed.length];
    const open = await this.openIngestion(pick, variant);
    if (open) await this.close('ingestion:close', open, Math.max(1, this.highest(open)));
    return open && open.estado !== 'aberta' ? open : undefined;
  }

  /** A validada ingestion; when there is none, one of fresh records is started, closed and validated on the clock. */
  private async validatedIngestion(pick: number, variant: number): Promise<IngestionModel | undefined> {
    const validated = this.ingestions.filter((i) => i.estado === 'validada');
    if (validated.length > 0) return validated[pick % validated.length];
    const ingestion = await this.start(pick, variant);
    if (!ingestion) return undefined;
    const records = this.freshRecords(1 + (variant % 3));
    await this.putBatch('ingestion:batch', ingestion, 1, records);
    await this.close('ingestion:close', ingestion, 1);
    await this.advance(1_000 + records.length); // validation: 1 s + 1 ms per record
    return ingestion.estado === 'validada' ? ingestion : undefined;
  }

  private highest(ingestion: IngestionModel): number {
    return Math.max(0, ...ingestion.batches.keys());
  }

  private async readIngestion(ingestion: IngestionModel, label: string, query = ''): Promise<Answer> {
    const answer = await this.send(label, { method: 'GET', path: `${ingestionPath(ingestion.id)}${query}`, key: null, as: 'company' });
    if (answer.status === 200) ingestion.estado = answer.body.estado;
    this.noteEtag(ingestion.id, answer);
    return answer;
  }

  private async putBatch(label: string, ingestion: IngestionModel, numero: number, itens: unknown[], extra: { expected?: number } = {}): Promise<Answer> {
    const answer = await this.send(label, { method: 'PUT', path: `${ingestionPath(ingestion.id)}/lotes/${numero}`, body: { itens }, key: this.nextKey(), as: 'company' }, extra);
    if (answer.status === 201) ingestion.batches.set(numero, itens);
    this.noteEtag(ingestion.id, answer);
    return answer;
  }

  private async close(label: string, ingestion: IngestionModel, total: number, expected?: number): Promise<Answer> {
    const answer = await this.send(label, { method: 'POST', path: `${ingestionPath(ingestion.id)}/fechamento`, body: { total_lotes: total }, key: this.nextKey(), as: 'company' }, expected === undefined ? {} : { expected });
    if (answer.status === 202) ingestion.estado = answer.body.estado;
    this.noteEtag(ingestion.id, answer);
    return answer;
  }

  /** POST …/aplicacao, with `{}` or no body at all (it takes no fields). */
  private async apply(label: string, ingestion: IngestionModel, ifMatch: string | undefined, variant: number, expected?: number): Promise<Answer> {
    const sent: Sent = { method: 'POST', path: `${ingestionPath(ingestion.id)}/aplicacao`, ...(variant % 2 === 0 ? { body: {} } : {}), key: this.nextKey(), ...(ifMatch === undefined ? {} : { ifMatch }), as: 'company' };
    const answer = await this.send(label, sent, expected === undefined ? {} : { expected });
    if (answer.status === 202) ingestion.estado = answer.body.estado;
    this.noteEtag(ingestion.id, answer);
    return answer;
  }

  /** An ingestion step: valid ones set up what they need first; refused ones get the status the contract requires. */
  private async ingestion(step: Extract<Step, { t: 'ingestion' }>): Promise<void> {
    const { action, pick, pick2, variant } = step;
    const label = `ingestion:${action}`;
    const refuse = (sent: Omit<Sent, 'key' | 'as'> & { key?: string | null; as?: Sent['as'] }, expected: number) =>
      this.send(label, { key: sent.method === 'GET' ? null : this.nextKey(), as: 'company', ...sent }, { expected });
    const anyIngestion = async () => this.ingestions[pick % Math.max(this.ingestions.length, 1)] ?? (await this.openIngestion(pick, variant));
    const startedEarlier = () => {
      const started = this.log.filter((e) => e.label === 'ingestion:start' && e.answer.status === 201);
      return started[pick2 % Math.max(started.length, 1)];
    };
    switch (action) {
      // Valid
      case 'start':
        await this.start(pick, variant);
        return;
      case 'replayStart': {
        // The same key and body again: 200 with the receipt, repetida: true; nothing changes.
        const earlier = startedEarlier();
        if (earlier) await this.send(label, earlier.sent);
        return;
      }
      case 'batch': {
        // Batches in any order; a number already received is sent again with the same content (200).
        const ingestion = await this.openIngestion(pick, variant);
        if (!ingestion) return;
        const numero = 1 + (pick2 % 4);
        await this.putBatch(label, ingestion, numero, ingestion.batches.get(numero) ?? this.records(step.records));
        return;
      }
      case 'repeatBatch': {
        // The same content up to key order and white space: 200, repetido.
        const ingestion = await this.openIngestionWithBatch(pick, variant, step.records);
        if (!ingestion) return;
        const numeros = [...ingestion.batches.keys()];
        const numero = numeros[pick2 % numeros.length]!;
        const reordered = ingestion.batches.get(numero)!.map((item) => Object.fromEntries(Object.entries(item as Record<string, unknown>).reverse()));
        const raw = JSON.stringify({ itens: reordered }, null, variant % 2 === 0 ? 2 : undefined);
        await this.send(label, { method: 'PUT', path: `${ingestionPath(ingestion.id)}/lotes/${numero}`, raw, headers: { 'content-type': 'application/json' }, key: this.nextKey(), as: 'company' });
        return;
      }
      case 'close': {
        // Sometimes one batch more than received: the ingestion is then rejected (lotes_faltantes).
        const ingestion = await this.openIngestion(pick, variant);
        if (ingestion) await this.close(label, ingestion, Math.max(1, this.highest(ingestion)) + (variant % 3 === 0 ? 1 : 0));
        return;
      }
      case 'apply': {
        const ingestion = await this.validatedIngestion(pick, variant);
        if (!ingestion) return;
        const read = await this.readIngestion(ingestion, 'read-etag');
        if (read.status === 200 && ingestion.estado === 'validada') await this.apply(label, ingestion, read.headers.get('etag')!, variant);
        return;
      }
      case 'read': {
        const ingestion = this.ingestions[pick % Math.max(this.ingestions.length, 1)];
        if (ingestion) await this.readIngestion(ingestion, label, `?limite=${1 + (variant % 1000)}`);
        return;
      }
      case 'tick':
        // Sometimes the next validation or application fails (falhou) or is postponed: a job fault of kind ingestao.
        if (variant % 10 >= 8) this.emu.faults.add({ target: 'job', match: { kind: 'ingestao', companyId: this.company.companyId }, effect: variant % 10 === 9 ? { fail: true } : { delayMs: 30_000 }, times: 1 });
        await this.advance(TICKS[variant % TICKS.length]!);
        return;

      // Refused
      case 'secondStart': {
        const held = this.ingestions.filter((i) => OPEN_INGESTION.includes(i.estado));
        const open = held[pick % Math.max(held.length, 1)] ?? (await this.openIngestion(pick, variant));
        if (!open) return;
        const implicit = variant % 2 === 0 && open.catalogId === this.headOfficeCatalogId();
        await refuse({ method: 'POST', path: INGESTOES, body: this.startBody(implicit ? undefined : open.catalogId, variant >> 1), key: this.startKey(variant) }, 409);
        return;
      }
      case 'noDefaultCatalog':
        if (this.headOfficeCatalogId() === null) await refuse({ method: 'POST', path: INGESTOES, body: this.startBody(undefined, variant), key: this.startKey(variant) }, 422);
        return;
      case 'unknownCatalog':
        await refuse({ method: 'POST', path: INGESTOES, body: this.startBody(UNKNOWN_UUID, variant), key: this.startKey(variant) }, 404);
        return;
      case 'badStart': {
        const bodies: unknown[] = [{}, { operacao: 'substituir' }, { operacao: 'MESCLAR' }, { operacao: 'mesclar', referencia_externa: '' }, { operacao: 'mesclar', referencia_externa: 'r'.repeat(201) }, { operacao: 'mesclar', catalogo_id: 'nao-e-uuid' }, { operacao: 'mesclar', catalogo_id: null }, { operacao: 'mesclar', campo: 1 }, [], null];
        await refuse({ method: 'POST', path: INGESTOES, body: bodies[variant % bodies.length], key: this.startKey(variant) }, 422);
        return;
      }
      case 'badStartKey': {
        const keys = [null, '', 'a'.repeat(15), 'a'.repeat(201), 'chave com espaco 0001', 'chave\tcom\ttabulacao'];
        await refuse({ method: 'POST', path: INGESTOES, body: this.startBody(undefined, variant), key: keys[variant % keys.length] ?? null }, 400);
        return;
      }
      case 'reuseStartKey': {
        const earlier = startedEarlier();
        if (earlier) await refuse({ method: 'POST', path: INGESTOES, body: { ...(earlier.sent.body as Record<string, unknown>), referencia_externa: `outra-${variant}` }, key: earlier.sent.key }, 422);
        return;
      }
      case 'conflictingBatch': {
        const ingestion = await this.openIngestionWithBatch(pick, variant, step.records);
        if (!ingestion) return;
        const numeros = [...ingestion.batches.keys()];
        const numero = numeros[pick2 % numeros.length]!;
        const itens = ingestion.batches.get(numero)!;
        const other = variant % 2 === 0 ? [...itens, { id_externo: 'outro-registro', origem: 'erp', ncm: '84713012' }] : itens.map((item, i) => (i === 0 ? { ...(item as Record<string, unknown>), origem: 'outra' } : item));
        await this.putBatch(label, ingestion, numero, other, { expected: 409 });
        return;
      }
      case 'batchOverLimits': {
        const ingestion = await this.openIngestion(pick, variant);
        if (!ingestion) return;
        const at = (numero: string) => `${ingestionPath(ingestion.id)}/lotes/${numero}`;
        const record = { id_externo: 'limite', origem: 'erp', ncm: '84713012' };
        const one = JSON.stringify({ itens: [record] });
        const cases: [string, () => string, number][] = [
          [at('0'), () => one, 422],
          [at('1001'), () => one, 422],
          [at('01'), () => one, 422],
          [at('-1'), () => one, 422],
          [at('1'), () => '{"itens":[]}', 422],
          [at('1'), () => JSON.stringify({ itens: Array(1001).fill(record) }), 422],
          [at('1'), () => '{"itens":"x"}', 422],
          [at('1'), () => '{"itens":{}}', 422],
          [at('1'), () => '{}', 422],
          [at('1'), () => JSON.stringify({ itens: [record], extra: 1 }), 422],
          [at('1'), () => JSON.stringify({ itens: [{ ...record, descricao: 'x'.repeat(4 * MiB) }] }), 413],
        ];
        const [path, raw, expected] = cases[variant % cases.length]!;
        await refuse({ method: 'PUT', path, raw: raw(), headers: { 'content-type': 'application/json' } }, expected);
        return;
      }
      case 'batchAfterClose': {
        const ingestion = await this.closedIngestion(pick, variant);
        if (ingestion) await this.putBatch(label, ingestion, 1 + (pick2 % 4), this.records(step.records), { expected: 409 });
        return;
      }
      case 'inconsistentTotal': {
        const ingestion = await this.openIngestion(pick, variant);
        if (!ingestion) return;
        if (this.highest(ingestion) < 2) await this.putBatch('ingestion:batch', ingestion, 2 + (variant % 3), this.records(step.records));
        const highest = this.highest(ingestion);
        if (highest >= 2) await this.close(label, ingestion, highest - 1 - (variant % (highest - 1)), 422);
        return;
      }
      case 'badClose': {
        const ingestion = await this.openIngestion(pick, variant);
        if (!ingestion) return;
        const bodies: unknown[] = [{}, { total_lotes: 0 }, { total_lotes: 1001 }, { total_lotes: '1' }, { total_lotes: 1.5 }, { total_lotes: null }, { total_lotes: 1, extra: true }, []];
        await refuse({ method: 'POST', path: `${ingestionPath(ingestion.id)}/fechamento`, body: bodies[variant % bodies.length] }, 422);
        return;
      }
      case 'closeClosed': {
        const ingestion = await this.closedIngestion(pick, variant);
        if (ingestion) await this.close(label, ingestion, Math.max(1, this.highest(ingestion)), 409);
        return;
      }
      case 'staleApply': {
        // An ETag the ingestion had before (before its last batch, its close or its validation).
        const ingestion = variant % 2 === 0 ? await this.validatedIngestion(pick, variant) : await this.openIngestionWithBatch(pick, variant, step.records);
        if (!ingestion) return;
        const current = (await this.readIngestion(ingestion, 'read-etag')).headers.get('etag');
        const seen = (this.etags.get(ingestion.id) ?? []).filter((e) => e !== current);
        await this.apply(label, ingestion, seen[pick2 % Math.max(seen.length, 1)] ?? STALE_FALLBACK, variant, 412);
        return;
      }
      case 'applyWithoutIfMatch': {
        const ingestion = variant % 2 === 0 ? await this.validatedIngestion(pick, variant) : await anyIngestion();
        if (ingestion) await this.apply(label, ingestion, undefined, variant, 428);
        return;
      }
      case 'applyNotValidated': {
        const others = this.ingestions.filter((i) => i.estado !== 'validada');
        const ingestion = others[pick % Math.max(others.length, 1)] ?? (await this.openIngestion(pick, variant));
        if (!ingestion) return;
        const etag = (await this.readIngestion(ingestion, 'read-etag')).headers.get('etag');
        if (etag !== null && ingestion.estado !== 'validada') await this.apply(label, ingestion, etag, variant, 409);
        return;
      }
      case 'unknownIngestion': {
        const path = ingestionPath(UNKNOWN_UUID);
        const sends: Omit<Sent, 'key' | 'as'>[] = [
          { method: 'GET', path },
          { method: 'PUT', path: `${path}/lotes/1`, body: { itens: this.records(step.records) } },
          { method: 'POST', path: `${path}/fechamento`, body: { total_lotes: 1 } },
          { method: 'POST', path: `${path}/aplicacao`, body: {}, ifMatch: STALE_FALLBACK },
        ];
        await refuse(sends[variant % sends.length]!, 404);
        return;
      }
      case 'foreignIngestion': {
        const ingestion = await anyIngestion();
        if (!ingestion) return;
        const path = ingestionPath(ingestion.id);
        const sends: Omit<Sent, 'key' | 'as'>[] = [
          { method: 'GET', path },
          { method: 'PUT', path: `${path}/lotes/${1 + (pick2 % 4)}`, body: { itens: this.records(step.records) } },
          { method: 'POST', path: `${path}/fechamento`, body: { total_lotes: 1 } },
          { method: 'POST', path: `${path}/aplicacao`, ifMatch: (this.etags.get(ingestion.id) ?? []).at(-1) ?? STALE_FALLBACK },
        ];
        await refuse({ ...sends[variant % sends.length]!, as: 'other' }, 404);
        return;
      }
      case 'readOnlyIngestion': {
        if (variant % 2 === 0) {
          await refuse({ method: 'POST', path: INGESTOES, body: this.startBody(undefined, variant), key: this.startKey(variant), as: 'readOnly' }, 403);
          return;
        }
        const ingestion = await this.openIngestion(pick, variant);
        if (ingestion) await refuse({ method: 'PUT', path: `${ingestionPath(ingestion.id)}/lotes/${1 + (pick2 % 4)}`, body: { itens: this.records(step.records) }, as: 'readOnly' }, 403);
        return;
      }
      case 'badIngestionQuery': {
        // Query validation comes before the 404: an unknown ingestion's path refuses a bad query with 422 too.
        const unknown = ingestionPath(UNKNOWN_UUID);
        const paths = [`${unknown}?limite=0`, `${unknown}?limite=1001`, `${unknown}?cursor=${'c'.repeat(600)}`, `${unknown}?limite=1&limite=2`, `${unknown}?apos_id=${UNKNOWN_UUID}`];
        const ingestion = this.ingestions[pick % Math.max(this.ingestions.length, 1)];
        if (ingestion) {
          paths.push(`${ingestionPath(ingestion.id)}?limite=1001`, `${ingestionPath(ingestion.id)}?limite=0`, `${ingestionPath(ingestion.id)}?x=1`);
          // A cursor is read where there are preview errors to page: once validated.
          if (['validada', 'aplicando', 'aplicada', 'revisao_necessaria', 'rejeitada'].includes(ingestion.estado)) paths.push(`${ingestionPath(ingestion.id)}?cursor=nao-e-cursor`);
        }
        await refuse({ method: 'GET', path: paths[variant % paths.length]! }, 422);
        return;
      }
    }
  }
}
