/**
 * The Runner executes steps over HTTP against one emulator, keeps a small model of the company's resources
 * (taken from the answers: every answer that represents one resource updates it), and logs every exchange.
 * What each step sends is its command's (commands/); the Runner holds what several commands share: sending
 * and logging, the model, the picks of existing or new resources, and the ingestion helpers.
 *
 * Ingestion steps keep a model of the ingestions (state as last read, batches sent); after every clock move
 * the runner reads the ingestions back (validation, application and expiry run on the clock) and, once one
 * was applied, every product (an application creates, updates, reactivates, unlinks and deactivates
 * products), so that later valid steps still pick active products and free id_externo values.
 */
import type { CreatedCompanyInfo, Emulator } from '../../../src/index.js';
import { Api, type Answer } from '../../support/client.js';
import { cnpjOf, cnpjOfNumber } from '../../support/cnpj.js';
import { runStep } from './commands/index.js';
import {
  FINAL_INGESTION,
  INGESTOES,
  ingestionPath,
  OPEN_INGESTION,
  OPERACOES,
  type Kind,
  type NewProductFields,
  type RecordSpec,
  type Step,
} from './steps.js';

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

export interface EstablishmentModel {
  id: string;
  cnpj: string;
  estado: string;
  catalogoId: string | null;
}
export interface CatalogModel {
  id: string;
  establishmentId: string;
}
export interface ProductModel {
  id: string;
  catalogos: string[];
  idExterno: string | null;
  ativo: boolean;
}
export interface IngestionModel {
  readonly id: string;
  readonly catalogId: string;
  /** As last read: brought up to date after every clock move (validation, application and expiry run on the clock). */
  estado: string;
  /** The batches received (201) by number, as sent. */
  readonly batches: Map<number, unknown[]>;
}

export interface RunnerOptions {
  /** Called around every request (the refusal property snapshots the state here). */
  readonly around?: (sent: Sent, send: () => Promise<Answer>) => Promise<Answer>;
}

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
    this.apis = {
      company: api,
      readOnly: api.as(others.readOnlyToken),
      other: api.as(others.otherToken),
      none: api.as(undefined),
    };
    this.establishments.push({
      id: company.headOffice.id,
      cnpj: company.headOffice.cnpj,
      estado: 'ativo',
      catalogoId: null,
    });
    this.cnpjs.add(company.headOffice.cnpj);
  }

  /** A runner on `emu` with a company, a read-only credential and a second company (all from the seeded source). */
  static create(emu: Emulator, api: Api, company: CreatedCompanyInfo, options: RunnerOptions = {}): Runner {
    const readOnlyToken = emu.companies.addCredential(company.companyId, ['catalogo:ler']).token;
    const other = emu.companies.create();
    return new Runner(
      emu,
      api,
      company,
      { readOnlyToken, otherToken: other.token, otherRoot: other.cnpjRoot },
      options,
    );
  }

  /** Idempotency keys from a per-runner counter: the same sequence sends the same keys. */
  nextKey(): string {
    this.keyCounter += 1;
    return `prop-key-${String(this.keyCounter).padStart(10, '0')}`;
  }

  async runAll(steps: readonly Step[]): Promise<void> {
    for (const step of steps) await this.run(step);
  }

  async send(
    label: string,
    sent: Sent,
    extra: { expected?: number; resource?: { kind: Kind; id?: string } } = {},
  ): Promise<Answer> {
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
  absorb(kind: Kind, answer: Answer): void {
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
      const model = {
        id,
        cnpj: String(body.cnpj),
        estado: String(body.estado),
        catalogoId: (body.catalogo_id as string | null) ?? null,
      };
      if (found) Object.assign(found, model);
      else this.establishments.push(model);
      this.cnpjs.add(model.cnpj);
    } else if (kind === 'catalog') {
      if (!this.catalogs.some((c) => c.id === id))
        this.catalogs.push({ id, establishmentId: String(body.estabelecimento_id) });
      const establishment = this.establishments.find((e) => e.id === body.estabelecimento_id);
      if (establishment && body.estado === 'ativo') establishment.catalogoId = id;
    } else {
      const found = this.products.find((p) => p.id === id);
      const model = {
        id,
        catalogos: [...(body.catalogos as string[])],
        idExterno: (body.id_externo as string | null) ?? null,
        ativo: body.ativo !== false,
      };
      if (found) Object.assign(found, model);
      else this.products.push(model);
    }
  }

  pathOf(kind: Kind, id: string): string {
    return kind === 'establishment'
      ? `/v1/estabelecimentos/${id}`
      : kind === 'catalog'
        ? `/v1/catalogos/${id}`
        : `/v1/produtos/${id}`;
  }

  /** GET one resource; its ETag (undefined when the read failed). */
  async read(kind: Kind, id: string, label = 'read'): Promise<string | undefined> {
    const answer = await this.send(
      label,
      { method: 'GET', path: this.pathOf(kind, id), key: null, as: 'company' },
      { resource: { kind, id } },
    );
    return answer.status === 200 ? (answer.headers.get('etag') ?? undefined) : undefined;
  }

  listOf(kind: Kind): { id: string }[] {
    return kind === 'establishment' ? this.establishments : kind === 'catalog' ? this.catalogs : this.products;
  }

  freeCnpj(order: string): string {
    let cnpj = cnpjOf(this.company.cnpjRoot, order);
    while (this.cnpjs.has(cnpj)) {
      cnpj = cnpjOfNumber(this.company.cnpjRoot, this.orderCounter);
      this.orderCounter += 1;
    }
    return cnpj;
  }

  /** An id_externo no other product holds (the requested one, or it with a suffix). */
  freeProductExternalId(wanted: string | null | undefined, self?: string): string | null | undefined {
    if (wanted === null || wanted === undefined) return wanted;
    let candidate = wanted;
    for (let n = 2; this.products.some((p) => p.idExterno === candidate && p.id !== self); n++)
      candidate = `${wanted}~${n}`;
    return candidate;
  }

  async newEstablishment(order: string, nome: string, idExterno: string | null): Promise<Answer> {
    const cnpj = this.freeCnpj(order);
    this.cnpjs.add(cnpj);
    const body = { cnpj, nome, ...(idExterno === null ? {} : { id_externo: idExterno }) };
    const answer = await this.send(
      'newEstablishment',
      { method: 'POST', path: '/v1/estabelecimentos', body, key: this.nextKey(), as: 'company' },
      { resource: { kind: 'establishment' } },
    );
    return answer;
  }

  /** An active establishment with no catalog, registering one when there is none. */
  async freeEstablishment(pick: number): Promise<EstablishmentModel | undefined> {
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
    const body = {
      estabelecimento_id: establishment.id,
      nome,
      ...(idExterno === null ? {} : { id_externo: idExterno }),
    };
    return this.send(
      'newCatalog',
      { method: 'POST', path: '/v1/catalogos', body, key: this.nextKey(), as: 'company' },
      { resource: { kind: 'catalog' } },
    );
  }

  async someCatalog(pick: number): Promise<CatalogModel | undefined> {
    if (this.catalogs.length === 0) await this.newCatalog(pick, 'Catálogo', null);
    return this.catalogs[pick % Math.max(this.catalogs.length, 1)];
  }

  async newProduct(pick: number, fields: NewProductFields): Promise<Answer | undefined> {
    const catalog = await this.someCatalog(pick);
    if (!catalog) return undefined;
    const body = {
      ...fields,
      ...(fields.id_externo === undefined ? {} : { id_externo: this.freeProductExternalId(fields.id_externo) }),
    };
    return this.send(
      'newProduct',
      { method: 'POST', path: `/v1/catalogos/${catalog.id}/produtos`, body, key: this.nextKey(), as: 'company' },
      { resource: { kind: 'product' } },
    );
  }

  /** An active product (an inactive one takes no change), created when there is none. */
  async someProduct(pick: number): Promise<ProductModel | undefined> {
    if (!this.products.some((p) => p.ativo)) await this.newProduct(pick, { origem: 'erp', ncm: '84713012' });
    const active = this.products.filter((p) => p.ativo);
    return active[pick % Math.max(active.length, 1)];
  }

  /** A conditional change: GET the current ETag, then send it. */
  async conditional(
    label: string,
    kind: Kind,
    id: string,
    method: string,
    path: string,
    body: unknown,
    resultKind: Kind = kind,
  ): Promise<Answer | undefined> {
    const etag = await this.read(kind, id, 'read-etag');
    if (etag === undefined) return undefined;
    return this.send(
      label,
      { method, path, ...(body === undefined ? {} : { body }), key: this.nextKey(), ifMatch: etag, as: 'company' },
      { resource: { kind: resultKind, id } },
    );
  }

  /** A product, a catalog (each created when there is none) or an active establishment. */
  async resourceOf(kind: Kind, pick: number): Promise<{ id: string } | undefined> {
    if (kind === 'product') return this.someProduct(pick);
    if (kind === 'catalog') return this.someCatalog(pick);
    const active = this.establishments.filter((e) => e.estado === 'ativo');
    return active[pick % Math.max(active.length, 1)];
  }

  /** Archives an active establishment without catalog (registering one when there is none). */
  async archive(pick: number): Promise<void> {
    let free = this.establishments.filter((e) => e.estado === 'ativo' && e.catalogoId === null);
    if (free.length === 0) {
      await this.newEstablishment('0000', 'A arquivar', null);
      free = this.establishments.filter((e) => e.estado === 'ativo' && e.catalogoId === null);
    }
    const establishment = free[pick % Math.max(free.length, 1)];
    if (establishment)
      await this.conditional(
        'archive',
        'establishment',
        establishment.id,
        'DELETE',
        `/v1/estabelecimentos/${establishment.id}`,
        undefined,
      );
  }

  /** Runs one step: its command (commands/) sets up what it needs, sends its requests and the model follows the answers. */
  async run(step: Step): Promise<void> {
    this.step += 1;
    await runStep(this, step);
  }

  /** Moves the clock; what ran on it (ingestion validation, application, expiry) is read back into the model. */
  async advance(ms: number): Promise<void> {
    await this.emu.clock.advance(ms);
    await this.refreshIngestions();
  }

  // -------------------------------------------------------------------------------------------------------
  // Batch ingestion (docs/batch-ingestion.md)

  /**
   * GET each ingestion that may still move (the service lists none): their estados into the model, and the
   * products again once one was applied.
   */
  async refreshIngestions(): Promise<void> {
    let applied = false;
    for (const model of this.ingestions) {
      if (FINAL_INGESTION.has(model.estado)) continue;
      const answer: Answer = await this.send('ingestions', {
        method: 'GET',
        path: ingestionPath(model.id),
        key: null,
        as: 'company',
      });
      if (answer.status !== 200) continue;
      if (answer.body.estado === 'aplicada') applied = true;
      model.estado = answer.body.estado;
    }
    if (applied) await this.refreshProducts();
  }

  /** GET every product of the company: an application creates, updates, reactivates, unlinks and deactivates them. */
  async refreshProducts(): Promise<void> {
    let cursor: string | null = null;
    for (;;) {
      const answer: Answer = await this.send('products-after-application', {
        method: 'GET',
        path: `/v1/produtos?limite=200${cursor === null ? '' : `&cursor=${cursor}`}`,
        key: null,
        as: 'company',
      });
      if (answer.status !== 200) return;
      for (const body of answer.body.itens as Record<string, unknown>[]) {
        const id = String(body.id);
        const model = {
          id,
          catalogos: [...(body.catalogos as string[])],
          idExterno: (body.id_externo as string | null) ?? null,
          ativo: body.ativo !== false,
        };
        const found = this.products.find((p) => p.id === id);
        if (found) Object.assign(found, model);
        else this.products.push(model);
      }
      cursor = (answer.body.proximo_cursor as string | null) ?? null;
      if (cursor === null) return;
    }
  }

  noteEtag(id: string, answer: Answer): void {
    const etag = answer.headers.get('etag');
    if (answer.status >= 300 || etag === null) return;
    const seen = this.etags.get(id) ?? [];
    if (seen[seen.length - 1] !== etag) seen.push(etag);
    this.etags.set(id, seen);
  }

  /** The records of a batch step: half of them carry an existing product's id_externo when there is one. */
  records(specs: readonly RecordSpec[]): Record<string, unknown>[] {
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
  freshRecords(count: number): Record<string, unknown>[] {
    return Array.from({ length: count }, () => ({
      id_externo: `ingestao-${++this.recordCounter}`,
      origem: 'erp',
      ncm: '84713012',
    }));
  }

  headOfficeCatalogId(): string | null {
    return this.establishments[0]!.catalogoId;
  }

  openIngestionOf(catalogId: string): IngestionModel | undefined {
    return this.ingestions.find((i) => i.catalogId === catalogId && OPEN_INGESTION.includes(i.estado));
  }

  /** A catalog no open ingestion holds (a new catalog when every one is held). */
  async freeCatalog(pick: number): Promise<CatalogModel | undefined> {
    if (this.catalogs.every((c) => this.openIngestionOf(c.id))) await this.newCatalog(pick, 'Para ingestão', null);
    const free = this.catalogs.filter((c) => !this.openIngestionOf(c.id));
    return free[pick % Math.max(free.length, 1)];
  }

  startBody(catalogId: string | undefined, variant: number): Record<string, unknown> {
    return {
      operacao: OPERACOES[variant % 3],
      ...(catalogId === undefined ? {} : { catalogo_id: catalogId }),
      ...(variant % 5 === 0 ? { referencia_externa: `erp-${variant}` } : {}),
    };
  }

  /** A key of the start's own rule (16–200 characters, none of them whitespace): "/" and "#" are fine there. */
  startKey(variant: number): string {
    return `${this.nextKey()}/erp#${'x'.repeat(variant % 170)}`;
  }

  /** Starts an ingestion in a free catalog; without catalogo_id (some variants) when that is the head office's. */
  async start(pick: number, variant: number): Promise<IngestionModel | undefined> {
    const catalog = await this.freeCatalog(pick);
    if (!catalog) return undefined;
    const implicit = variant % 2 === 0 && catalog.id === this.headOfficeCatalogId();
    const answer = await this.send('ingestion:start', {
      method: 'POST',
      path: INGESTOES,
      body: this.startBody(implicit ? undefined : catalog.id, variant),
      key: this.startKey(variant),
      as: 'company',
    });
    if (answer.status !== 201) return undefined;
    const model: IngestionModel = {
      id: answer.body.ingestao_id,
      catalogId: answer.body.catalogo_id,
      estado: answer.body.estado,
      batches: new Map(),
    };
    this.ingestions.push(model);
    return model;
  }

  /** An aberta ingestion, started when there is none. */
  async openIngestion(pick: number, variant: number): Promise<IngestionModel | undefined> {
    const open = this.ingestions.filter((i) => i.estado === 'aberta');
    return open.length > 0 ? open[pick % open.length] : this.start(pick, variant);
  }

  /** An aberta ingestion with at least one batch received (one is sent when it has none). */
  async openIngestionWithBatch(
    pick: number,
    variant: number,
    specs: readonly RecordSpec[],
  ): Promise<IngestionModel | undefined> {
    const ingestion = await this.openIngestion(pick, variant);
    if (ingestion && ingestion.batches.size === 0)
      await this.putBatch('ingestion:batch', ingestion, 1 + (variant % 3), this.records(specs));
    return ingestion && ingestion.batches.size > 0 ? ingestion : undefined;
  }

  /** An ingestion that is no longer aberta (one is closed when there is none). */
  async closedIngestion(pick: number, variant: number): Promise<IngestionModel | undefined> {
    const closed = this.ingestions.filter((i) => i.estado !== 'aberta');
    if (closed.length > 0) return closed[pick % closed.length];
    const open = await this.openIngestion(pick, variant);
    if (open) await this.close('ingestion:close', open, Math.max(1, this.highest(open)));
    return open && open.estado !== 'aberta' ? open : undefined;
  }

  /** A validada ingestion; when there is none, one of fresh records is started, closed and validated on the clock. */
  async validatedIngestion(pick: number, variant: number): Promise<IngestionModel | undefined> {
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

  highest(ingestion: IngestionModel): number {
    return Math.max(0, ...ingestion.batches.keys());
  }

  async readIngestion(ingestion: IngestionModel, label: string, query = ''): Promise<Answer> {
    const answer = await this.send(label, {
      method: 'GET',
      path: `${ingestionPath(ingestion.id)}${query}`,
      key: null,
      as: 'company',
    });
    if (answer.status === 200) ingestion.estado = answer.body.estado;
    this.noteEtag(ingestion.id, answer);
    return answer;
  }

  async putBatch(
    label: string,
    ingestion: IngestionModel,
    numero: number,
    itens: unknown[],
    extra: { expected?: number } = {},
  ): Promise<Answer> {
    const answer = await this.send(
      label,
      {
        method: 'PUT',
        path: `${ingestionPath(ingestion.id)}/lotes/${numero}`,
        body: { itens },
        key: this.nextKey(),
        as: 'company',
      },
      extra,
    );
    if (answer.status === 201) ingestion.batches.set(numero, itens);
    this.noteEtag(ingestion.id, answer);
    return answer;
  }

  async close(label: string, ingestion: IngestionModel, total: number, expected?: number): Promise<Answer> {
    const answer = await this.send(
      label,
      {
        method: 'POST',
        path: `${ingestionPath(ingestion.id)}/fechamento`,
        body: { total_lotes: total },
        key: this.nextKey(),
        as: 'company',
      },
      expected === undefined ? {} : { expected },
    );
    if (answer.status === 202) ingestion.estado = answer.body.estado;
    this.noteEtag(ingestion.id, answer);
    return answer;
  }

  /** POST …/aplicacao, with `{}` or no body at all (it takes no fields). */
  async apply(
    label: string,
    ingestion: IngestionModel,
    ifMatch: string | undefined,
    variant: number,
    expected?: number,
  ): Promise<Answer> {
    const sent: Sent = {
      method: 'POST',
      path: `${ingestionPath(ingestion.id)}/aplicacao`,
      ...(variant % 2 === 0 ? { body: {} } : {}),
      key: this.nextKey(),
      ...(ifMatch === undefined ? {} : { ifMatch }),
      as: 'company',
    };
    const answer = await this.send(label, sent, expected === undefined ? {} : { expected });
    if (answer.status === 202) ingestion.estado = answer.body.estado;
    this.noteEtag(ingestion.id, answer);
    return answer;
  }
}
