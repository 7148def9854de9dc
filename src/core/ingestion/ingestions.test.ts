/**
 * The pure core of batch ingestion's lifecycle (src/core/ingestion/ingestions.ts, docs/batch-ingestion.md):
 * the start and its refusals (one open ingestion per catalog), the lifecycle table (every operation and task
 * in every state: what it allows, the 409 code of what it refuses, the state left alone), batches (insert
 * order, repeats, divergent content), the close, the validation's outcome and the precedence of its failure
 * codes, the application (aplicada, revisao_necessaria, falhou), the expiry and its rescheduling, and the task
 * intents each transition leaves in the outbox with their due times.
 */
import { describe, expect, it } from 'vitest';
import { deleteCatalog, previewDeletion } from '../catalog-deletion.js';
import { catalogEtag, createCatalog, editCatalog, type Catalog } from '../catalogs.js';
import { createCompany } from '../companies.js';
import { registerEstablishment } from '../establishments.js';
import { createProduct, type Product } from '../products.js';
import { createRandom, seedRandom } from '../random.js';
import { exportState } from '../snapshot.js';
import { type Context, type State } from '../state.js';
import { createState } from '../slices.js';
import {
  T0,
  CORE_CONFIG,
  ROOT,
  OTHER_ROOT,
  cnpj,
  configureWebhook,
  expectRefusal,
  unwrap,
} from '../testing/support.js';
import { HOUR, MINUTE, SECOND } from '../time.js';
import {
  applyIngestion,
  BASE_RUN_MS,
  closeIngestion,
  expireIngestion,
  EXPIRY_MS,
  findIngestion,
  ingestionEtag,
  isOpen,
  receiveBatch,
  requestApplication,
  runDuration,
  RUN_MS_PER_RECORD,
  startIngestion,
  TASK_APPLICATION,
  TASK_EXPIRY,
  TASK_VALIDATION,
  validateIngestion,
  type Ingestion,
  type IngestionState,
} from './ingestions.js';
import type { Batch, IngestionRecord, RecordError } from './plan.js';

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
const NCM = '84713012';

const record = (idExterno: string, fields: Partial<IngestionRecord> = {}): IngestionRecord => ({
  idExterno,
  origem: 'erp',
  ncm: NCM,
  sku: null,
  descricao: null,
  atributos: [],
  ...fields,
});

/** A batch; `content` stands for its canonical JSON (by default derived from its records). */
function batch(
  numero: number,
  records: readonly (IngestionRecord | null)[],
  errors: readonly RecordError[] = [],
  content?: string,
): Batch {
  return { numero, content: content ?? JSON.stringify({ itens: records }), records, errors };
}

/** The error a readBatch would report for an item with a bad NCM. */
const ncmError = (lote: number, indice: number): RecordError => ({
  lote,
  indice,
  caminho: `body.itens[${indice}].ncm`,
  codigo: 'valor_invalido',
  mensagem: 'must be an NCM of 8 digits',
});

/** A company with catalog A (head office) holding product SKU-1, and catalog B (a branch). */
function setup() {
  const state = createState(T0);
  const random = createRandom(seedRandom(5));
  const ctx = (now = T0): Context => ({ now, random, config: CORE_CONFIG });
  const created = unwrap(createCompany(state, { cnpjRoot: ROOT, surveillanceCapacity: 100 }, ctx()));
  const companyId = created.company.id;
  const branch = unwrap(registerEstablishment(state, companyId, { cnpj: cnpj(ROOT, '0002'), nome: 'Filial' }, ctx()));
  const a = unwrap(createCatalog(state, companyId, { establishmentId: created.headOffice.id, nome: 'A' }, ctx()));
  const b = unwrap(createCatalog(state, companyId, { establishmentId: branch.id, nome: 'B' }, ctx()));
  const p1 = unwrap(createProduct(state, companyId, a.id, { origem: 'erp', ncm: NCM, idExterno: 'SKU-1' }, ctx()));
  state.outbox.length = 0;
  return {
    state,
    ctx,
    companyId,
    headOffice: created.headOffice.id,
    a: a.id,
    b: b.id,
    p1: p1.id,
    catalog: (id: string): Catalog => state.catalogs.get(id)!,
    product: (id: string): Product => state.products.get(id)!,
    ingestion: (id: string): Ingestion => state.ingestions.get(id)!,
    start: (operacao: Ingestion['operacao'] = 'mesclar', catalogId?: string, now = T0) =>
      unwrap(
        startIngestion(state, companyId, { operacao, ...(catalogId === undefined ? {} : { catalogId }) }, ctx(now)),
      ),
  };
}
type World = ReturnType<typeof setup>;

/** Everything an operation that refuses (or a task that does nothing) must leave alone. */
function fingerprint(state: State): string {
  return JSON.stringify({ data: exportState(state), outbox: state.outbox, open: [...state.openIngestions.entries()] });
}

const events = (w: World) =>
  [...w.state.webhookEvents.values()].sort((x, y) => x.position - y.position).map((e) => JSON.parse(e.body).dados);

/**
 * An ingestion of catalog A driven to `target`, with the times it went through. A valid ingestion has one
 * batch with one record (SKU-1 changed, SKU-2 new); `rejeitada` closes with total_lotes 2 and one batch.
 */
function driveTo(w: World, target: IngestionState): { id: string; now: number } {
  let now = T0;
  const id = w.start('mesclar', w.a, now).id;
  if (target === 'aberta') return { id, now };
  if (target === 'expirada') {
    now += EXPIRY_MS;
    expireIngestion(w.state, id, w.ctx(now));
    return { id, now };
  }
  now += MINUTE;
  unwrap(
    receiveBatch(w.state, w.companyId, id, batch(1, [record('SKU-1', { sku: 'novo' }), record('SKU-2')]), w.ctx(now)),
  );
  now += MINUTE;
  unwrap(closeIngestion(w.state, w.companyId, id, target === 'rejeitada' ? 2 : 1, w.ctx(now)));
  if (target === 'validando') return { id, now };
  now += runDuration(2);
  validateIngestion(w.state, id, target === 'falhou', w.ctx(now));
  if (target === 'validada' || target === 'rejeitada' || target === 'falhou') return { id, now };
  now += MINUTE;
  unwrap(requestApplication(w.state, w.companyId, id, [ingestionEtag(w.ingestion(id))], w.ctx(now)));
  if (target === 'aplicando') return { id, now };
  if (target === 'revisao_necessaria')
    unwrap(editCatalog(w.state, w.companyId, w.a, [catalogEtag(w.catalog(w.a))], { nome: 'A2' }, w.ctx(now)));
  now += runDuration(2);
  applyIngestion(w.state, id, false, w.ctx(now));
  return { id, now };
}

const STATES: readonly IngestionState[] = [
  'aberta',
  'validando',
  'validada',
  'aplicando',
  'rejeitada',
  'aplicada',
  'revisao_necessaria',
  'falhou',
  'expirada',
];
const FINAL: ReadonlySet<IngestionState> = new Set([
  'rejeitada',
  'aplicada',
  'revisao_necessaria',
  'falhou',
  'expirada',
]);

describe('driving the lifecycle', () => {
  it.each(STATES)('reaches %s', (target) => {
    const w = setup();
    const { id } = driveTo(w, target);
    expect(w.ingestion(id).estado).toBe(target);
    expect(isOpen(target)).toBe(!FINAL.has(target));
    expect(w.state.openIngestions.get(w.a) === id).toBe(!FINAL.has(target));
  });
});

describe('the lifecycle table', () => {
  /** The requests and tasks, and the state in which each acts (refusal code for requests elsewhere). */
  const OPERATIONS = [
    {
      name: 'receiveBatch',
      allowed: ['aberta'],
      code: 'ingestao_fechada',
      run: (w: World, id: string, now: number) =>
        receiveBatch(w.state, w.companyId, id, batch(9, [record('SKU-9')]), w.ctx(now)),
    },
    {
      name: 'closeIngestion',
      allowed: ['aberta'],
      code: 'ingestao_fechada',
      run: (w: World, id: string, now: number) => closeIngestion(w.state, w.companyId, id, 9, w.ctx(now)),
    },
    {
      name: 'requestApplication',
      allowed: ['validada'],
      code: 'ingestao_nao_validada',
      run: (w: World, id: string, now: number) =>
        requestApplication(w.state, w.companyId, id, [ingestionEtag(w.ingestion(id))], w.ctx(now)),
    },
  ] as const;

  for (const op of OPERATIONS) {
    it.each(STATES)(
      `${op.name} in %s: allowed exactly in ${op.allowed.join(', ')}, else 409 with the state left alone`,
      (estado) => {
        const w = setup();
        const { id, now } = driveTo(w, estado);
        w.state.outbox.length = 0;
        const before = fingerprint(w.state);
        const versao = w.ingestion(id).versao;
        const result = op.run(w, id, now + SECOND);
        if ((op.allowed as readonly string[]).includes(estado)) {
          expect(result.ok).toBe(true);
          expect(w.ingestion(id).versao).toBe(versao + 1);
        } else {
          expectRefusal(result, 'conflict', op.code);
          if (!result.ok) expect(result.refusal.mensagem).toContain(estado);
          expect(fingerprint(w.state)).toBe(before);
        }
      },
    );
  }

  it.each(STATES)('the validation task acts only in validando (here %s)', (estado) => {
    const w = setup();
    const { id, now } = driveTo(w, estado);
    w.state.outbox.length = 0;
    const before = fingerprint(w.state);
    validateIngestion(w.state, id, false, w.ctx(now + HOUR));
    if (estado === 'validando') expect(w.ingestion(id).estado).toBe('validada');
    else expect(fingerprint(w.state)).toBe(before);
  });

  it.each(STATES)('the application task acts only in aplicando (here %s)', (estado) => {
    const w = setup();
    const { id, now } = driveTo(w, estado);
    w.state.outbox.length = 0;
    const before = fingerprint(w.state);
    applyIngestion(w.state, id, false, w.ctx(now + HOUR));
    if (estado === 'aplicando') expect(w.ingestion(id).estado).toBe('aplicada');
    else expect(fingerprint(w.state)).toBe(before);
  });

  it.each(STATES)('the expiry task, when due, expires only aberta and validada (here %s)', (estado) => {
    const w = setup();
    const { id, now } = driveTo(w, estado);
    w.state.outbox.length = 0;
    const before = fingerprint(w.state);
    expireIngestion(w.state, id, w.ctx(now + EXPIRY_MS));
    if (estado === 'aberta' || estado === 'validada') {
      expect(w.ingestion(id)).toMatchObject({
        estado: 'expirada',
        codigoFalha: 'prazo_expirado',
        expiraEm: null,
        plan: null,
        batches: [],
      });
      expect(w.state.openIngestions.has(w.a)).toBe(false);
    } else {
      expect(fingerprint(w.state)).toBe(before);
    }
  });

  it('moves versao on every transition and accepted batch, and the ETag with it', () => {
    const w = setup();
    const id = w.start().id;
    const seen = [w.ingestion(id)];
    unwrap(receiveBatch(w.state, w.companyId, id, batch(1, [record('SKU-1', { sku: 'x' })]), w.ctx()));
    seen.push(w.ingestion(id));
    unwrap(receiveBatch(w.state, w.companyId, id, batch(1, [record('SKU-1', { sku: 'x' })]), w.ctx()));
    expect(w.ingestion(id)).toBe(seen[1]);
    unwrap(closeIngestion(w.state, w.companyId, id, 1, w.ctx()));
    seen.push(w.ingestion(id));
    validateIngestion(w.state, id, false, w.ctx(T0 + SECOND));
    seen.push(w.ingestion(id));
    unwrap(requestApplication(w.state, w.companyId, id, [ingestionEtag(w.ingestion(id))], w.ctx(T0 + SECOND)));
    seen.push(w.ingestion(id));
    applyIngestion(w.state, id, false, w.ctx(T0 + 2 * SECOND));
    seen.push(w.ingestion(id));
    expect(seen.map((i) => i.versao)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(seen.map((i) => i.estado)).toEqual(['aberta', 'aberta', 'validando', 'validada', 'aplicando', 'aplicada']);
    expect(new Set(seen.map(ingestionEtag)).size).toBe(6);
  });
});

describe('startIngestion', () => {
  it("opens an ingestion in the head office's active catalog by default, with the catalog's versao and a 24 h expiry task", () => {
    const w = setup();
    const i = unwrap(
      startIngestion(w.state, w.companyId, { operacao: 'substituicao_catalogo', referenciaExterna: 'erp-1' }, w.ctx()),
    );
    expect(i).toMatchObject({
      companyId: w.companyId,
      catalogId: w.a,
      operacao: 'substituicao_catalogo',
      referenciaExterna: 'erp-1',
      estado: 'aberta',
      versao: 1,
      versaoCatalogo: w.catalog(w.a).versao,
      criadaEm: T0,
      atualizadaEm: T0,
      expiraEm: T0 + 24 * HOUR,
      totalLotes: null,
      lotesRecebidos: [],
      itensRecebidos: 0,
      batches: [],
      preview: null,
      plan: null,
      aplicacao: null,
      codigoFalha: null,
    });
    expect(w.state.openIngestions.get(w.a)).toBe(i.id);
    expect(w.state.outbox).toEqual([
      { kind: TASK_EXPIRY, owner: w.companyId, due: T0 + 24 * HOUR, payload: { ingestionId: i.id } },
    ]);
  });

  it('refuses an unknown catalog (404), a deleted one (409) and, without catalogo_id, a head office with no catalog (422)', () => {
    const w = setup();
    expectRefusal(
      startIngestion(w.state, w.companyId, { operacao: 'mesclar', catalogId: UNKNOWN_ID }, w.ctx()),
      'not_found',
      'catalogo_nao_encontrado',
      'body.catalogo_id',
    );
    const other = unwrap(createCompany(w.state, { cnpjRoot: OTHER_ROOT }, w.ctx()));
    const foreign = unwrap(
      createCatalog(w.state, other.company.id, { establishmentId: other.headOffice.id, nome: 'X' }, w.ctx()),
    );
    expectRefusal(
      startIngestion(w.state, w.companyId, { operacao: 'mesclar', catalogId: foreign.id }, w.ctx()),
      'not_found',
      'catalogo_nao_encontrado',
      'body.catalogo_id',
    );
    unwrap(
      deleteCatalog(w.state, w.companyId, w.a, [unwrap(previewDeletion(w.state, w.companyId, w.a)).etag], w.ctx()),
    );
    w.state.outbox.length = 0;
    const before = fingerprint(w.state);
    expectRefusal(
      startIngestion(w.state, w.companyId, { operacao: 'mesclar', catalogId: w.a }, w.ctx()),
      'conflict',
      'catalogo_excluido',
      'body.catalogo_id',
    );
    expectRefusal(
      startIngestion(w.state, w.companyId, { operacao: 'mesclar' }, w.ctx()),
      'invalid',
      'catalogo_padrao_ausente',
      'body.catalogo_id',
    );
    expect(fingerprint(w.state)).toBe(before);
    // Another catalog still takes one.
    expect(
      unwrap(startIngestion(w.state, w.companyId, { operacao: 'mesclar', catalogId: w.b }, w.ctx())).catalogId,
    ).toBe(w.b);
  });

  it.each(['aberta', 'validando', 'validada', 'aplicando'] as const)(
    'refuses a second ingestion of the catalog while one is %s (409 ingestao_em_andamento), not of another catalog',
    (estado) => {
      const w = setup();
      const { id, now } = driveTo(w, estado);
      w.state.outbox.length = 0;
      const before = fingerprint(w.state);
      const named = startIngestion(w.state, w.companyId, { operacao: 'mesclar', catalogId: w.a }, w.ctx(now));
      expectRefusal(named, 'conflict', 'ingestao_em_andamento', 'body.catalogo_id');
      if (!named.ok) expect(named.refusal.mensagem).toContain(id);
      expectRefusal(
        startIngestion(w.state, w.companyId, { operacao: 'mesclar' }, w.ctx(now)),
        'conflict',
        'ingestao_em_andamento',
      );
      expect(fingerprint(w.state)).toBe(before);
      expect(
        unwrap(startIngestion(w.state, w.companyId, { operacao: 'mesclar', catalogId: w.b }, w.ctx(now))).estado,
      ).toBe('aberta');
    },
  );

  it.each([...FINAL])('frees the catalog once the ingestion is %s, and drops its batches and plan', (estado) => {
    const w = setup();
    const { id, now } = driveTo(w, estado);
    expect(w.ingestion(id)).toMatchObject({ batches: [], plan: null, expiraEm: null });
    const next = unwrap(startIngestion(w.state, w.companyId, { operacao: 'mesclar', catalogId: w.a }, w.ctx(now)));
    expect(next.id).not.toBe(id);
    expect(w.state.openIngestions.get(w.a)).toBe(next.id);
  });
});

describe('findIngestion', () => {
  it("finds the company's own ingestions only", () => {
    const w = setup();
    const id = w.start().id;
    expect(unwrap(findIngestion(w.state, w.companyId, id)).id).toBe(id);
    expectRefusal(findIngestion(w.state, w.companyId, UNKNOWN_ID), 'not_found', 'ingestao_nao_encontrada', 'path.id');
    const other = unwrap(createCompany(w.state, { cnpjRoot: OTHER_ROOT }, w.ctx()));
    expectRefusal(findIngestion(w.state, other.company.id, id), 'not_found', 'ingestao_nao_encontrada', 'path.id');
    expectRefusal(
      receiveBatch(w.state, other.company.id, id, batch(1, [record('X')]), w.ctx()),
      'not_found',
      'ingestao_nao_encontrada',
      'path.id',
    );
    expectRefusal(
      closeIngestion(w.state, other.company.id, id, 1, w.ctx()),
      'not_found',
      'ingestao_nao_encontrada',
      'path.id',
    );
    expectRefusal(
      requestApplication(w.state, other.company.id, id, [ingestionEtag(w.ingestion(id))], w.ctx()),
      'not_found',
      'ingestao_nao_encontrada',
      'path.id',
    );
  });
});

describe('receiveBatch', () => {
  it('keeps batches and their numbers in number order whatever the arrival order, counts every item, and restarts the 24 h', () => {
    const w = setup();
    const id = w.start().id;
    const b3 = batch(3, [record('C1'), null], [ncmError(3, 1)]);
    const b1 = batch(1, [record('A1')]);
    const b2 = batch(2, [record('B1'), record('B2'), record('B3')]);
    const times = [T0 + HOUR, T0 + 2 * HOUR, T0 + 3 * HOUR];
    const answers = [b3, b1, b2].map((b, n) => unwrap(receiveBatch(w.state, w.companyId, id, b, w.ctx(times[n]))));
    expect(answers.map((r) => r.repeated)).toEqual([false, false, false]);
    expect(answers.map((r) => r.batch)).toEqual([b3, b1, b2]);
    expect(w.ingestion(id)).toMatchObject({
      estado: 'aberta',
      versao: 4,
      lotesRecebidos: [1, 2, 3],
      itensRecebidos: 6,
      batches: [b1, b2, b3],
      expiraEm: T0 + 3 * HOUR + EXPIRY_MS,
      atualizadaEm: T0 + 3 * HOUR,
    });
    expect(w.state.outbox).toHaveLength(1); // only the start's expiry task: the expiry reschedules itself
  });

  it('answers a repeat of the same content as repeated, changing nothing', () => {
    const w = setup();
    const id = w.start().id;
    const first = batch(1, [record('A1')], [], '{"itens":[1]}');
    unwrap(receiveBatch(w.state, w.companyId, id, first, w.ctx()));
    const before = fingerprint(w.state);
    const stored = w.ingestion(id);
    // The same canonical content, even with records read again, is the same batch.
    const again = unwrap(
      receiveBatch(w.state, w.companyId, id, batch(1, [record('A1')], [], '{"itens":[1]}'), w.ctx(T0 + HOUR)),
    );
    expect(again).toEqual({ ingestion: stored, batch: first, repeated: true });
    expect(again.ingestion).toBe(stored);
    expect(fingerprint(w.state)).toBe(before);
  });

  it('refuses other content under a received number (409 lote_divergente at path.numero), changing nothing', () => {
    const w = setup();
    const id = w.start().id;
    unwrap(receiveBatch(w.state, w.companyId, id, batch(1, [record('A1')], [], '{"itens":[1]}'), w.ctx()));
    const before = fingerprint(w.state);
    expectRefusal(
      receiveBatch(w.state, w.companyId, id, batch(1, [record('A1')], [], '{"itens":[2]}'), w.ctx(T0 + HOUR)),
      'conflict',
      'lote_divergente',
      'path.numero',
    );
    expect(fingerprint(w.state)).toBe(before);
  });
});

describe('closeIngestion', () => {
  it('moves to validando and schedules the validation 1 s + 1 ms per received item (invalid ones included) later', () => {
    const w = setup();
    const id = w.start().id;
    unwrap(
      receiveBatch(w.state, w.companyId, id, batch(2, [record('A1'), null, record('A2')], [ncmError(2, 1)]), w.ctx()),
    );
    unwrap(receiveBatch(w.state, w.companyId, id, batch(1, [record('B1')]), w.ctx()));
    w.state.outbox.length = 0;
    const at = T0 + 5 * MINUTE;
    const closed = unwrap(closeIngestion(w.state, w.companyId, id, 3, w.ctx(at)));
    expect(closed).toMatchObject({ estado: 'validando', totalLotes: 3, expiraEm: null, versao: 4, atualizadaEm: at });
    expect(BASE_RUN_MS).toBe(SECOND);
    expect(RUN_MS_PER_RECORD).toBe(1);
    expect(w.state.outbox).toEqual([
      { kind: TASK_VALIDATION, owner: w.companyId, due: at + 1000 + 4, payload: { ingestionId: id } },
    ]);
  });

  it('refuses total_lotes below a received batch (422 total_lotes_inconsistente), leaving the ingestion aberta and unchanged', () => {
    const w = setup();
    const id = w.start().id;
    unwrap(receiveBatch(w.state, w.companyId, id, batch(3, [record('A1')]), w.ctx()));
    w.state.outbox.length = 0;
    const before = fingerprint(w.state);
    const stored = w.ingestion(id);
    expectRefusal(
      closeIngestion(w.state, w.companyId, id, 2, w.ctx(T0 + MINUTE)),
      'invalid',
      'total_lotes_inconsistente',
      'body.total_lotes',
    );
    expect(w.ingestion(id)).toBe(stored);
    expect(fingerprint(w.state)).toBe(before);
    // total_lotes = the highest received is fine.
    expect(unwrap(closeIngestion(w.state, w.companyId, id, 3, w.ctx(T0 + MINUTE))).estado).toBe('validando');
  });

  it('takes a close with no batch at all (validation then finds every batch missing)', () => {
    const w = setup();
    const id = w.start().id;
    w.state.outbox.length = 0;
    unwrap(closeIngestion(w.state, w.companyId, id, 2, w.ctx()));
    expect(w.state.outbox).toEqual([
      { kind: TASK_VALIDATION, owner: w.companyId, due: T0 + 1000, payload: { ingestionId: id } },
    ]);
    validateIngestion(w.state, id, false, w.ctx(T0 + 1000));
    expect(w.ingestion(id)).toMatchObject({ estado: 'rejeitada', codigoFalha: 'lotes_faltantes' });
    expect(w.ingestion(id).preview).toMatchObject({ lotesFaltantes: [1, 2], registros: 0, erros: [] });
  });
});

describe('expiry', () => {
  it('reschedules itself to expiraEm when a batch moved it, and expires there', () => {
    const w = setup();
    const id = w.start().id;
    unwrap(receiveBatch(w.state, w.companyId, id, batch(1, [record('A1')]), w.ctx(T0 + 3 * HOUR)));
    w.state.outbox.length = 0;
    const stored = w.ingestion(id);
    expireIngestion(w.state, id, w.ctx(T0 + EXPIRY_MS));
    expect(w.ingestion(id)).toBe(stored);
    expect(w.state.outbox).toEqual([
      { kind: TASK_EXPIRY, owner: w.companyId, due: T0 + 3 * HOUR + EXPIRY_MS, payload: { ingestionId: id } },
    ]);
    w.state.outbox.length = 0;
    expireIngestion(w.state, id, w.ctx(T0 + 3 * HOUR + EXPIRY_MS));
    expect(w.ingestion(id)).toMatchObject({
      estado: 'expirada',
      codigoFalha: 'prazo_expirado',
      expiraEm: null,
      batches: [],
      lotesRecebidos: [1],
      versao: stored.versao + 1,
    });
    expect(w.state.outbox).toEqual([]);
    expect(w.state.openIngestions.has(w.a)).toBe(false);
  });

  it('gives a validada ingestion 24 h from its validation, with its own expiry task', () => {
    const w = setup();
    const id = w.start().id;
    unwrap(receiveBatch(w.state, w.companyId, id, batch(1, [record('A1')]), w.ctx()));
    unwrap(closeIngestion(w.state, w.companyId, id, 1, w.ctx()));
    w.state.outbox.length = 0;
    const validatedAt = T0 + runDuration(1);
    validateIngestion(w.state, id, false, w.ctx(validatedAt));
    expect(w.ingestion(id)).toMatchObject({ estado: 'validada', expiraEm: validatedAt + EXPIRY_MS });
    expect(w.state.outbox).toEqual([
      { kind: TASK_EXPIRY, owner: w.companyId, due: validatedAt + EXPIRY_MS, payload: { ingestionId: id } },
    ]);
    // The start's own expiry task, due at T0 + 24 h, finds it validada with a later expiraEm: it waits.
    w.state.outbox.length = 0;
    expireIngestion(w.state, id, w.ctx(T0 + EXPIRY_MS));
    expect(w.ingestion(id).estado).toBe('validada');
    expireIngestion(w.state, id, w.ctx(validatedAt + EXPIRY_MS));
    expect(w.ingestion(id)).toMatchObject({ estado: 'expirada', codigoFalha: 'prazo_expirado', plan: null });
  });

  it('does nothing to an unknown ingestion', () => {
    const w = setup();
    const before = fingerprint(w.state);
    expireIngestion(w.state, UNKNOWN_ID, w.ctx(T0 + EXPIRY_MS));
    validateIngestion(w.state, UNKNOWN_ID, false, w.ctx());
    applyIngestion(w.state, UNKNOWN_ID, false, w.ctx());
    expect(fingerprint(w.state)).toBe(before);
  });
});

describe('validateIngestion', () => {
  /** Closes an ingestion of A with `batches` and `totalLotes`; optionally deletes A first; validates. */
  function validated(w: World, batches: readonly Batch[], totalLotes: number, deleteA = false): Ingestion {
    const id = w.start('substituicao_catalogo', w.a).id;
    for (const b of batches) unwrap(receiveBatch(w.state, w.companyId, id, b, w.ctx()));
    unwrap(closeIngestion(w.state, w.companyId, id, totalLotes, w.ctx()));
    if (deleteA)
      unwrap(
        deleteCatalog(w.state, w.companyId, w.a, [unwrap(previewDeletion(w.state, w.companyId, w.a)).etag], w.ctx()),
      );
    w.state.outbox.length = 0;
    validateIngestion(w.state, id, false, w.ctx(T0 + MINUTE));
    return w.ingestion(id);
  }
  const invalid = batch(1, [record('A1'), null], [ncmError(1, 1)]);

  it('rejects with catalogo_excluido before lotes_faltantes before registros_invalidos, keeping the preview', () => {
    const cases: [boolean, number, string][] = [
      [true, 2, 'catalogo_excluido'],
      [true, 1, 'catalogo_excluido'],
      [false, 2, 'lotes_faltantes'],
      [false, 1, 'registros_invalidos'],
    ];
    for (const [deleteA, totalLotes, codigo] of cases) {
      const w = setup();
      const i = validated(w, [invalid], totalLotes, deleteA);
      expect(i).toMatchObject({
        estado: 'rejeitada',
        codigoFalha: codigo,
        batches: [],
        plan: null,
        expiraEm: null,
        atualizadaEm: T0 + MINUTE,
      });
      expect(i.preview).toMatchObject({
        registros: 1,
        novos: 1,
        lotesFaltantes: totalLotes === 2 ? [2] : [],
        erros: [ncmError(1, 1)],
      });
      expect(w.state.outbox).toEqual([]);
      expect(w.state.openIngestions.has(w.a)).toBe(false);
    }
  });

  it('rejects a deleted catalog with catalogo_excluido even when nothing else is wrong', () => {
    const w = setup();
    expect(validated(w, [batch(1, [record('A1')])], 1, true)).toMatchObject({
      estado: 'rejeitada',
      codigoFalha: 'catalogo_excluido',
    });
  });

  it('rejects id_externo repeated across batches as registros_invalidos', () => {
    const w = setup();
    const i = validated(w, [batch(1, [record('A1')]), batch(2, [record('A1', { sku: 'x' })])], 2);
    expect(i).toMatchObject({ estado: 'rejeitada', codigoFalha: 'registros_invalidos' });
    expect(i.preview!.erros).toMatchObject([
      { lote: 2, indice: 0, caminho: 'body.itens[0].id_externo', codigo: 'id_externo_repetido' },
    ]);
  });

  it('validates otherwise: preview and plan kept, batches dropped, 24 h to apply', () => {
    const w = setup();
    const i = validated(w, [batch(1, [record('SKU-1', { sku: 'x' }), record('N1')])], 1);
    expect(i).toMatchObject({
      estado: 'validada',
      codigoFalha: null,
      batches: [],
      lotesRecebidos: [1],
      itensRecebidos: 2,
      expiraEm: T0 + MINUTE + EXPIRY_MS,
    });
    expect(i.preview).toMatchObject({
      versaoCatalogo: w.catalog(w.a).versao,
      registros: 2,
      novos: 1,
      alterados: 1,
      lotesFaltantes: [],
      erros: [],
    });
    expect(i.plan).not.toBeNull();
    expect(w.state.openIngestions.get(w.a)).toBe(i.id);
  });

  it('fails (falha_execucao) when the run fails: no preview, catalog freed', () => {
    const w = setup();
    const { id } = driveTo(w, 'falhou');
    expect(w.ingestion(id)).toMatchObject({
      estado: 'falhou',
      codigoFalha: 'falha_execucao',
      preview: null,
      plan: null,
      batches: [],
    });
    expect(w.state.openIngestions.has(w.a)).toBe(false);
  });
});

describe('requestApplication', () => {
  it('needs the current ETag: 428 without, 412 when stale, both before the state check', () => {
    const w = setup();
    const { id, now } = driveTo(w, 'validada');
    w.state.outbox.length = 0;
    const before = fingerprint(w.state);
    expectRefusal(
      requestApplication(w.state, w.companyId, id, undefined, w.ctx(now)),
      'precondition_required',
      'precondicao_ausente',
      'header.if-match',
    );
    expectRefusal(
      requestApplication(w.state, w.companyId, id, ['"stale"'], w.ctx(now)),
      'precondition_failed',
      'precondicao_falhou',
      'header.if-match',
    );
    expect(fingerprint(w.state)).toBe(before);
    // A stale ETag on an ingestion that is not validada: still 412, the precondition comes first.
    const w2 = setup();
    const aberta = driveTo(w2, 'aberta');
    expectRefusal(
      requestApplication(w2.state, w2.companyId, aberta.id, ['"stale"'], w2.ctx()),
      'precondition_failed',
      'precondicao_falhou',
      'header.if-match',
    );
    expectRefusal(
      requestApplication(w2.state, w2.companyId, aberta.id, undefined, w2.ctx()),
      'precondition_required',
      'precondicao_ausente',
      'header.if-match',
    );
  });

  it('moves to aplicando and schedules the application 1 s + 1 ms per planned record later', () => {
    const w = setup();
    const id = w.start().id;
    unwrap(receiveBatch(w.state, w.companyId, id, batch(2, [record('N3')]), w.ctx()));
    unwrap(receiveBatch(w.state, w.companyId, id, batch(1, [record('SKU-1'), record('N1'), record('N2')]), w.ctx()));
    unwrap(closeIngestion(w.state, w.companyId, id, 2, w.ctx()));
    validateIngestion(w.state, id, false, w.ctx(T0 + 2 * MINUTE));
    expect(w.ingestion(id).plan!.records).toHaveLength(4);
    w.state.outbox.length = 0;
    const at = T0 + 3 * MINUTE;
    const applying = unwrap(requestApplication(w.state, w.companyId, id, [ingestionEtag(w.ingestion(id))], w.ctx(at)));
    expect(applying).toMatchObject({ estado: 'aplicando', expiraEm: null, atualizadaEm: at });
    expect(w.state.outbox).toEqual([
      { kind: TASK_APPLICATION, owner: w.companyId, due: at + 1000 + 4, payload: { ingestionId: id } },
    ]);
  });
});

describe('applyIngestion', () => {
  it('applies a fresh plan: aplicada with aplicacao, catalog versao moved once, catalogo.aplicado raised', () => {
    const w = setup();
    configureWebhook(w.state, w.companyId, w.ctx()); // events are recorded only against a destination
    const { id, now } = driveTo(w, 'aplicando');
    const versao = w.catalog(w.a).versao;
    const eventsBefore = events(w).length;
    const at = now + runDuration(2);
    applyIngestion(w.state, id, false, w.ctx(at));
    expect(w.ingestion(id)).toMatchObject({
      estado: 'aplicada',
      codigoFalha: null,
      aplicacao: { versaoCatalogo: versao + 1, aplicadaEm: at },
      plan: null,
      expiraEm: null,
    });
    expect(w.catalog(w.a).versao).toBe(versao + 1);
    expect(w.product(w.p1)).toMatchObject({ sku: 'novo', versao: 2 });
    expect(events(w).slice(eventsBefore)).toEqual([{ tipo: 'catalogo.aplicado', catalogoId: w.a, versao: versao + 1 }]);
    expect(w.state.openIngestions.has(w.a)).toBe(false);
  });

  it('applies nothing when the catalog moved: revisao_necessaria, catalogo.revisao_necessaria with both versions', () => {
    const w = setup();
    configureWebhook(w.state, w.companyId, w.ctx()); // events are recorded only against a destination
    const { id, now } = driveTo(w, 'aplicando');
    const validatedVersao = w.ingestion(id).preview!.versaoCatalogo;
    unwrap(editCatalog(w.state, w.companyId, w.a, [catalogEtag(w.catalog(w.a))], { nome: 'A2' }, w.ctx(now)));
    const products = JSON.stringify([...w.state.products.values()]);
    const catalog = w.catalog(w.a);
    const eventsBefore = events(w).length;
    applyIngestion(w.state, id, false, w.ctx(now + runDuration(2)));
    expect(w.ingestion(id)).toMatchObject({
      estado: 'revisao_necessaria',
      codigoFalha: 'catalogo_alterado',
      aplicacao: null,
      plan: null,
    });
    expect(JSON.stringify([...w.state.products.values()])).toBe(products);
    expect(w.catalog(w.a)).toBe(catalog);
    expect(events(w).slice(eventsBefore)).toEqual([
      {
        tipo: 'catalogo.revisao_necessaria',
        catalogoId: w.a,
        ingestaoId: id,
        versaoValidada: validatedVersao,
        versaoAtual: validatedVersao + 1,
      },
    ]);
    expect(w.state.openIngestions.has(w.a)).toBe(false);
  });

  it('applies nothing when the run fails: falhou falha_execucao, no event', () => {
    const w = setup();
    const { id, now } = driveTo(w, 'aplicando');
    const products = JSON.stringify([...w.state.products.values()]);
    const catalog = w.catalog(w.a);
    const eventsBefore = events(w).length;
    applyIngestion(w.state, id, true, w.ctx(now + runDuration(2)));
    expect(w.ingestion(id)).toMatchObject({
      estado: 'falhou',
      codigoFalha: 'falha_execucao',
      aplicacao: null,
      plan: null,
    });
    expect(JSON.stringify([...w.state.products.values()])).toBe(products);
    expect(w.catalog(w.a)).toBe(catalog);
    expect(events(w)).toHaveLength(eventsBefore);
    expect(w.state.openIngestions.has(w.a)).toBe(false);
  });
});
