/**
 * Shared pieces of the webhook properties: generators of receiver behaviours, delivery faults, clock moves
 * and call steps, an in-process receiver that records every request it gets, and a runner that plays steps
 * against one emulator over HTTP (emu.fetch) while keeping a model of the destination's versions, of the
 * events it raised and of where each delivery cycle starts, taken only from the API's answers.
 *
 * Everything here is deterministic for a given list of steps: idempotency keys come from a counter, the
 * receiver's behaviour from the generated script, and no real time is read except by the transport's grace
 * for a receiver that never answers (its outcome does not depend on the timing: the receiver either answers
 * within microtasks or never).
 */
import fc from 'fast-check';
import type { Emulator, EmulatorOptions, EventKind, FaultInput } from '../../../src/index.js';
import { EVENT_KINDS } from '../../../src/index.js';
import { Api, type Answer } from '../../support/client.js';
import { lab, type Lab } from './lab.js';

export const SECOND = 1_000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** Deliveries to URLs under this prefix reach the runner's in-process receiver. */
export const HOOK_BASE = 'https://hooks.example.com/r';
/** Deliveries here reach no route: the emulator's built-in inbox answers 200. */
export const INBOX_BASE = 'https://inbox.example.com/in';

/**
 * Real milliseconds the transport waits for an in-process receiver before it counts as one that never
 * answers. The receiver here answers within microtasks, so a short grace keeps the `silent` behaviour cheap.
 */
const HANDLER_GRACE_MS = 50;

/** A lab (see lab.ts) whose emulator gives in-process receivers HANDLER_GRACE_MS. */
export function hookLab(options: EmulatorOptions = {}): Lab {
  return lab({ ...options, webhooks: { handlerGraceMs: HANDLER_GRACE_MS, ...options.webhooks } });
}

// ---------------------------------------------------------------------------------------------------------
// Generators

/** What the receiver does with one request it gets. */
export type Behaviour =
  /** Answers this status (200..599). */
  | { readonly kind: 'status'; readonly status: number }
  /** Throws synchronously: the connection counts as refused. */
  | { readonly kind: 'throw' }
  /** Returns a rejected promise: refused as well. */
  | { readonly kind: 'reject' }
  /** Resolves something that is not a Response: the exchange broke (reset). */
  | { readonly kind: 'garbage' }
  /** Never answers (the attempt times out). Costs HANDLER_GRACE_MS of real time, so a run allows only one. */
  | { readonly kind: 'silent' };

const statusIn = (min: number, max: number) =>
  fc.integer({ min, max }).map((status): Behaviour => ({ kind: 'status', status }));

const behaviour: fc.Arbitrary<Behaviour> = fc.oneof(
  { weight: 6, arbitrary: statusIn(200, 299) },
  { weight: 2, arbitrary: statusIn(300, 399) },
  { weight: 3, arbitrary: statusIn(400, 499) },
  { weight: 4, arbitrary: statusIn(500, 599) },
  { weight: 1, arbitrary: fc.constant<Behaviour>({ kind: 'throw' }) },
  { weight: 1, arbitrary: fc.constant<Behaviour>({ kind: 'reject' }) },
  { weight: 1, arbitrary: fc.constant<Behaviour>({ kind: 'garbage' }) },
  { weight: 1, arbitrary: fc.constant<Behaviour>({ kind: 'silent' }) },
);

/** A receiver script: request n gets behaviours[n % length]. */
export const behaviours = (options: { maxLength?: number } = {}) =>
  fc.array(behaviour, { minLength: 1, maxLength: options.maxLength ?? 12 });

/** A receiver that mostly fails (many attempts per cycle). */
export const failingBehaviours = fc.array(
  fc.oneof(
    { weight: 1, arbitrary: statusIn(200, 299) },
    { weight: 2, arbitrary: statusIn(300, 399) },
    { weight: 4, arbitrary: statusIn(400, 599) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Behaviour>(
        { kind: 'throw' },
        { kind: 'reject' },
        { kind: 'garbage' },
        { kind: 'silent' },
      ),
    },
  ),
  { minLength: 1, maxLength: 16 },
);

export type DeliveryEffect = Extract<FaultInput, { target: 'delivery' }>['effect'];

export const deliveryEffect: fc.Arbitrary<DeliveryEffect> = fc.oneof(
  fc.integer({ min: 100, max: 599 }).map((status): DeliveryEffect => ({ status })),
  fc.constant<DeliveryEffect>({ redirect: true }),
  fc.constant<DeliveryEffect>({ refuse: true }),
  fc.constant<DeliveryEffect>({ timeout: true }),
  fc.constant<DeliveryEffect>({ reset: true }),
  fc
    .oneof(fc.integer({ min: 0, max: 20 * SECOND }), fc.constantFrom(14_999, 15_000, 15_001))
    .map((latencyMs): DeliveryEffect => ({ latencyMs })),
  fc.constant<DeliveryEffect>({ duplicate: true }),
  fc
    .constantFrom('signature', 'body', 'timestamp')
    .map((tamper): DeliveryEffect => ({ tamper: tamper as 'signature' | 'body' | 'timestamp' })),
);

/** The default schedule's waits and the values around its edges. */
const SCHEDULE_MOVES = [
  0,
  1,
  5 * SECOND,
  15 * SECOND,
  20 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  7 * HOUR,
  8 * HOUR,
  24 * HOUR,
];

/** A clock move of 0 s .. `maxMs`, biased to the schedule's waits and to short moves. */
export function clockMove(maxMs: number): fc.Arbitrary<number> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...SCHEDULE_MOVES.filter((m) => m <= maxMs)) },
    { weight: 2, arbitrary: fc.integer({ min: 0, max: Math.min(maxMs, 2 * MINUTE) }) },
    { weight: 3, arbitrary: fc.integer({ min: 0, max: maxMs }) },
  );
}

export type HookStep =
  | { readonly t: 'raise'; readonly tipo: EventKind }
  /** POST /v1/webhook/testes with the current ETag. */
  | { readonly t: 'test' }
  /** POST /v1/webhook/eventos/{id}/reenvios for the pick-th known event. */
  | { readonly t: 'resend'; readonly pick: number }
  /** PUT /v1/webhook with the current ETag: rotates, changes the URL, or reactivates a revoked destination. */
  | { readonly t: 'change'; readonly path: number }
  /** DELETE /v1/webhook with the current ETag. */
  | { readonly t: 'revoke' }
  | { readonly t: 'fault'; readonly effect: DeliveryEffect; readonly times: number }
  | { readonly t: 'advance'; readonly ms: number };

export interface StepWeights {
  readonly raise?: number;
  readonly test?: number;
  readonly resend?: number;
  readonly change?: number;
  readonly revoke?: number;
  readonly fault?: number;
  readonly advance?: number;
}

const tipo = fc.constantFrom<EventKind>(...EVENT_KINDS);

export function hookStep(weights: StepWeights, maxAdvanceMs = 30 * HOUR): fc.Arbitrary<HookStep> {
  const options: fc.WeightedArbitrary<HookStep>[] = [];
  const add = (weight: number | undefined, arbitrary: fc.Arbitrary<HookStep>) => {
    if (weight !== undefined && weight > 0) options.push({ weight, arbitrary });
  };
  add(weights.raise, fc.record({ t: fc.constant('raise' as const), tipo }));
  add(weights.test, fc.constant({ t: 'test' as const }));
  add(weights.resend, fc.record({ t: fc.constant('resend' as const), pick: fc.nat({ max: 1000 }) }));
  add(weights.change, fc.record({ t: fc.constant('change' as const), path: fc.nat({ max: 1000 }) }));
  add(weights.revoke, fc.constant({ t: 'revoke' as const }));
  add(
    weights.fault,
    fc.record({ t: fc.constant('fault' as const), effect: deliveryEffect, times: fc.integer({ min: 1, max: 3 }) }),
  );
  add(weights.advance, fc.record({ t: fc.constant('advance' as const), ms: clockMove(maxAdvanceMs) }));
  return fc.oneof(...options);
}

// ---------------------------------------------------------------------------------------------------------
// The receiver

/** The destination as the model knows it at some moment. */
export interface DestinationModel {
  readonly id: string;
  readonly versao: number;
  readonly estado: 'ativo' | 'revogado';
  readonly url: string;
  /** The secret of the receipt of the last PUT (a DELETE keeps it: a revoked version delivers nothing). */
  readonly secret: string;
  readonly etag: string;
}

export interface Received {
  readonly index: number;
  /** Virtual time when the request reached the receiver. */
  readonly at: number;
  readonly url: string;
  readonly method: string;
  /** Lowercase names, as the Request holds them. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body as received (filled once read; always read before the receiver answers). */
  body: string;
  /** The destination the model held current when the request arrived. */
  readonly destination: DestinationModel | undefined;
  readonly behaviour: Behaviour;
}

export class Receiver {
  readonly received: Received[] = [];
  private silent = 0;

  constructor(
    private readonly script: readonly Behaviour[],
    private readonly now: () => number,
    private readonly current: () => DestinationModel | undefined,
    private readonly maxSilent = 1,
  ) {}

  private next(): Behaviour {
    const chosen = this.script[this.received.length % this.script.length] ?? { kind: 'status', status: 200 };
    if (chosen.kind !== 'silent') return chosen;
    // Each silent answer holds the clock HANDLER_GRACE_MS of real time: one per run is enough.
    this.silent += 1;
    return this.silent <= this.maxSilent ? chosen : { kind: 'status', status: 503 };
  }

  readonly handler = (request: Request): Response | Promise<Response> => {
    const behaviour = this.next();
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const entry: Received = {
      index: this.received.length,
      at: this.now(),
      url: request.url,
      method: request.method,
      headers,
      body: '',
      destination: this.current(),
      behaviour,
    };
    this.received.push(entry);
    const read = request.text().then((text) => {
      entry.body = text;
    });
    switch (behaviour.kind) {
      case 'status':
        return read.then(() => new Response(null, { status: behaviour.status }));
      case 'throw':
        throw new Error('receiver down');
      case 'reject':
        return read.then(() => Promise.reject(new Error('receiver down')));
      case 'garbage':
        return read.then(() => 'not a response' as unknown as Response);
      case 'silent':
        return read.then(() => new Promise<Response>(() => undefined));
    }
  };
}

// ---------------------------------------------------------------------------------------------------------
// The runner

interface CycleModel {
  /** The attempt number the cycle's first attempt gets (attempts are numbered across cycles). */
  readonly first: number;
  /** When the cycle opened (creation, or the accepted resend). */
  readonly start: number;
  readonly prazo: number;
  readonly destinoVersao: number;
}

export interface EventModel {
  readonly id: string;
  readonly raisedWhile: 'ativo' | 'revogado';
  readonly cycles: CycleModel[];
}

export interface WireAttempt {
  readonly tentativa: number;
  readonly destino_versao: number | null;
  readonly estado: 'iniciada' | 'entregue' | 'falhou' | 'incerta';
  readonly iniciada_em: string;
  readonly terminada_em: string | null;
  readonly codigo_falha: string | null;
  readonly status_http: number | null;
}

export interface WireEventItem {
  readonly id: string;
  readonly tipo: string;
  readonly ocorrido_em: string;
  /** Never null (spec: WH-EVT-01, CONV-09): an event is recorded only against a destination. */
  readonly destino_id: string;
  readonly destino_versao: number;
  readonly estado: 'pendente' | 'executando' | 'entregue' | 'falhou' | 'cancelado';
  readonly tentativas_ciclo: number;
  readonly tentativas_totais: number;
  readonly status_http: number | null;
  readonly criado_em: string;
  readonly prazo_em: string;
}

export interface WireEventDetail extends WireEventItem {
  readonly terminado_em: string | null;
  readonly proxima_tentativa_em: string | null;
  readonly codigo_falha: string | null;
  readonly evento: { readonly id: string; readonly dados: { readonly tipo: string } };
}

/** An attempt seen for the first time after the advance `epoch`, with the destination current throughout it. */
export interface ObservedAttempt {
  readonly eventId: string;
  readonly attempt: WireAttempt;
  readonly epoch: number;
  /** The destination the model held during that advance (no API call happens during an advance). */
  readonly destination: DestinationModel | undefined;
  readonly from: number;
  readonly to: number;
}

export interface LoggedExchange {
  readonly label: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly headers: [string, string][];
  readonly text: string;
}

export interface HookRunnerOptions {
  /** Paths a `change` step picks from, appended to HOOK_BASE (or a full URL). */
  readonly paths?: readonly string[];
  readonly script?: readonly Behaviour[];
  /** After every advance, fetch the attempts that appeared and note the destination current meanwhile. */
  readonly trackAttempts?: boolean;
  /** Called after every destination change answered 2xx. */
  readonly afterChange?: (runner: HookRunner) => Promise<void>;
}

const parseTime = (iso: string): number => Date.parse(iso);

export class HookRunner {
  readonly api: Api;
  readonly receiver: Receiver;
  readonly events = new Map<string, EventModel>();
  /** Every destination the model held, in order, with the virtual time of the answer that made it current. */
  readonly history: { readonly at: number; readonly destination: DestinationModel }[] = [];
  readonly log: LoggedExchange[] = [];
  readonly observed: ObservedAttempt[] = [];
  /** Accepted resends: event id → count. */
  readonly resends = new Map<string, number>();
  destination: DestinationModel | undefined;
  private keys = 0;
  private epoch = 0;
  private readonly seenAttempts = new Map<string, number>();
  private readonly paths: readonly string[];

  constructor(
    readonly lab: Lab,
    readonly options: HookRunnerOptions = {},
  ) {
    this.api = lab.api;
    this.paths = options.paths ?? ['a', 'b', 'c'];
    this.receiver = new Receiver(
      options.script ?? [{ kind: 'status', status: 200 }],
      () => this.emu.clock.now().getTime(),
      () => this.destination,
    );
    lab.emu.network.route(HOOK_BASE, this.receiver.handler);
  }

  get emu(): Emulator {
    return this.lab.emu;
  }

  now(): number {
    return this.emu.clock.now().getTime();
  }

  nextKey(): string {
    this.keys += 1;
    return `hook-key-${String(this.keys).padStart(10, '0')}`;
  }

  urlOf(path: number | string): string {
    const chosen = typeof path === 'number' ? this.paths[path % this.paths.length]! : path;
    return chosen.startsWith('https://') ? chosen : `${HOOK_BASE}/${chosen}`;
  }

  async send(
    label: string,
    method: string,
    path: string,
    options: { body?: unknown; ifMatch?: string; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    const answer = await this.api.request(method, path, {
      key: method === 'GET' ? null : this.nextKey(),
      ...(options.body === undefined ? {} : { body: options.body }),
      ...(options.ifMatch === undefined ? {} : { ifMatch: options.ifMatch }),
      ...(options.headers === undefined ? {} : { headers: options.headers }),
    });
    this.log.push({
      label,
      method,
      path,
      status: answer.status,
      headers: [...answer.headers.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
      text: answer.text,
    });
    return answer;
  }

  private adopt(answer: Answer, secret: string | undefined): void {
    const body = answer.body as { id: string; versao: number; estado: 'ativo' | 'revogado' };
    const url = secret === undefined ? this.destination!.url : this.pendingUrl!;
    const destination: DestinationModel = {
      id: body.id,
      versao: body.versao,
      estado: body.estado,
      url,
      secret: secret ?? this.destination!.secret,
      etag: answer.headers.get('etag')!,
    };
    this.destination = destination;
    this.history.push({ at: this.now(), destination });
  }

  private pendingUrl: string | undefined;

  /** PUT /v1/webhook with If-None-Match: * (the first configuration). */
  async configure(path: number | string = 0): Promise<Answer> {
    this.pendingUrl = this.urlOf(path);
    const answer = await this.send('configure', 'PUT', '/v1/webhook', {
      body: { url: this.pendingUrl },
      headers: { 'if-none-match': '*' },
    });
    if (answer.status !== 201) throw new Error(`PUT /v1/webhook (create) answered ${answer.status}: ${answer.text}`);
    this.adopt(answer, answer.body.segredo);
    if (this.options.afterChange) await this.options.afterChange(this);
    return answer;
  }

  async change(path: number | string): Promise<Answer | undefined> {
    if (!this.destination) return undefined;
    this.pendingUrl = this.urlOf(path);
    const answer = await this.send('change', 'PUT', '/v1/webhook', {
      body: { url: this.pendingUrl },
      ifMatch: this.destination.etag,
    });
    if (answer.status !== 200) throw new Error(`PUT /v1/webhook (change) answered ${answer.status}: ${answer.text}`);
    this.adopt(answer, answer.body.segredo);
    if (this.options.afterChange) await this.options.afterChange(this);
    return answer;
  }

  async revoke(): Promise<Answer | undefined> {
    if (!this.destination) return undefined;
    const answer = await this.send('revoke', 'DELETE', '/v1/webhook', { ifMatch: this.destination.etag });
    if (this.destination.estado === 'revogado') {
      if (answer.status !== 409 || answer.body?.erro?.codigo !== 'destino_revogado')
        throw new Error(`DELETE of a revoked destination answered ${answer.status}: ${answer.text}`);
      return answer;
    }
    if (answer.status !== 200) throw new Error(`DELETE /v1/webhook answered ${answer.status}: ${answer.text}`);
    this.adopt(answer, undefined);
    if (this.options.afterChange) await this.options.afterChange(this);
    return answer;
  }

  async detail(id: string): Promise<Answer<WireEventDetail>> {
    return this.send('detail', 'GET', `/v1/webhook/eventos/${id}`);
  }

  /** Every attempt of the event, ascending, through the pages of the attempts query. */
  async attempts(id: string, after = 0): Promise<WireAttempt[]> {
    const all: WireAttempt[] = [];
    let cursor: number | null = after;
    while (cursor !== null) {
      const answer = await this.send(
        'attempts',
        'GET',
        `/v1/webhook/eventos/${id}/tentativas?limite=100${cursor > 0 ? `&apos_tentativa=${cursor}` : ''}`,
      );
      if (answer.status !== 200) throw new Error(`GET tentativas answered ${answer.status}: ${answer.text}`);
      all.push(...(answer.body.itens as WireAttempt[]));
      cursor = answer.body.proxima_tentativa as number | null;
    }
    return all;
  }

  /** Every event of the list, newest first, through its pages. */
  async listEvents(limite = 100): Promise<WireEventItem[]> {
    const items: WireEventItem[] = [];
    let cursor: string | null = null;
    do {
      const answer = await this.send(
        'list',
        'GET',
        `/v1/webhook/eventos?limite=${limite}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
      );
      if (answer.status !== 200) throw new Error(`GET eventos answered ${answer.status}: ${answer.text}`);
      items.push(...answer.body.itens);
      cursor = answer.body.proximo_cursor;
    } while (cursor !== null);
    return items;
  }

  /** Notes a new event (or a new cycle of a known one) from its detail, read right after it was accepted. */
  private async noteCycle(id: string, raised: boolean): Promise<WireEventDetail> {
    const answer = await this.detail(id);
    if (answer.status !== 200)
      throw new Error(`GET /v1/webhook/eventos/${id} answered ${answer.status}: ${answer.text}`);
    const d = answer.body;
    const cycle: CycleModel = {
      first: d.tentativas_totais + 1,
      start: this.now(),
      prazo: parseTime(d.prazo_em),
      destinoVersao: d.destino_versao,
    };
    if (raised)
      this.events.set(id, {
        id,
        raisedWhile: this.destination?.estado === 'ativo' ? 'ativo' : 'revogado',
        cycles: [cycle],
      });
    else this.events.get(id)!.cycles.push(cycle);
    return d;
  }

  async raise(kind: EventKind): Promise<string> {
    // spec: WH-EVT-53 — catalogo.aplicado carries catalogoId and versao (the event detail is checked against the
    // document); fixed values, so two runners with one seed still raise byte-identical events.
    const dados =
      kind === 'catalogo.aplicado'
        ? { tipo: kind, catalogoId: '0190a000-0000-7000-8000-00000000000a', versao: 1 }
        : { tipo: kind };
    const { eventId } = this.emu.webhooks.raise(this.lab.company.companyId, dados);
    await this.noteCycle(eventId, true);
    return eventId;
  }

  async test(): Promise<Answer | undefined> {
    if (!this.destination) return undefined;
    const answer = await this.send('test', 'POST', '/v1/webhook/testes', { body: {}, ifMatch: this.destination.etag });
    if (answer.status === 202) await this.noteCycle(answer.body.evento_id, true);
    return answer;
  }

  async resend(pick: number): Promise<Answer | undefined> {
    if (!this.destination || this.events.size === 0) return undefined;
    const ids = [...this.events.keys()];
    const id = ids[pick % ids.length]!;
    const answer = await this.send('resend', 'POST', `/v1/webhook/eventos/${id}/reenvios`, {
      body: {},
      ifMatch: this.destination.etag,
    });
    if (answer.status === 202) {
      this.resends.set(id, (this.resends.get(id) ?? 0) + 1);
      await this.noteCycle(id, false);
    }
    return answer;
  }

  addFault(effect: DeliveryEffect, times: number, url?: string): void {
    this.emu.faults.add({
      target: 'delivery',
      match: { companyId: this.lab.company.companyId, ...(url === undefined ? {} : { url }) },
      effect,
      times,
    });
  }

  async advance(ms: number): Promise<void> {
    const from = this.now();
    await this.emu.clock.advance(ms);
    this.epoch += 1;
    if (this.options.trackAttempts) await this.collectAttempts(from, this.now());
  }

  /** The attempts that appeared during the last advance, each tagged with the destination current meanwhile. */
  private async collectAttempts(from: number, to: number): Promise<void> {
    for (const item of await this.listEvents()) {
      const seen = this.seenAttempts.get(item.id) ?? 0;
      if (item.tentativas_totais <= seen) continue;
      for (const attempt of await this.attempts(item.id, seen)) {
        this.observed.push({ eventId: item.id, attempt, epoch: this.epoch, destination: this.destination, from, to });
      }
      this.seenAttempts.set(item.id, item.tentativas_totais);
    }
  }

  async run(step: HookStep): Promise<void> {
    switch (step.t) {
      case 'raise':
        await this.raise(step.tipo);
        return;
      case 'test':
        await this.test();
        return;
      case 'resend':
        await this.resend(step.pick);
        return;
      case 'change':
        await this.change(step.path);
        return;
      case 'revoke':
        await this.revoke();
        return;
      case 'fault':
        this.addFault(step.effect, step.times);
        return;
      case 'advance':
        await this.advance(step.ms);
        return;
    }
  }

  async runAll(steps: readonly HookStep[]): Promise<void> {
    for (const step of steps) await this.run(step);
  }

  /** Lets every open cycle end: 24 h of deadline, plus the last attempt's time-out and latency. */
  async settle(): Promise<void> {
    await this.advance(25 * HOUR);
  }
}

/** The wait before the attempt that follows attempt `k` (1-based, within its cycle) under `waits`. */
export function waitAfter(waits: readonly number[], k: number): number {
  return waits[Math.min(k - 1, waits.length - 1)]!;
}

/** The attempts of each cycle of `model`, by the attempt numbers where each cycle starts. */
export function byCycle(model: EventModel, attempts: readonly WireAttempt[]): WireAttempt[][] {
  return model.cycles.map((cycle, i) => {
    const next = model.cycles[i + 1];
    return attempts.filter((a) => a.tentativa >= cycle.first && (next === undefined || a.tentativa < next.first));
  });
}

export { parseTime };
