/**
 * Webhook events and their delivery (spec "Events", "Event delivery", "Delivery attempt";
 * docs/webhooks.md "Delivery").
 *
 * Event (`estado`):
 *
 *   pendente   --iniciar_tentativa-->  executando  (an attempt starts: destination still the event's version, cycle not over)
 *   executando --entregar-->           entregue    (a completed 2xx)
 *   executando --falhar_tentativa-->   pendente    (another attempt is due: at most 8 per cycle, none after prazo_em)
 *   executando --esgotar-->            falhou      (8 attempts, or the next one would start after prazo_em)
 *   pendente   --esgotar-->            falhou      (a due attempt found the cycle over)
 *   pendente, executando --cancelar--> cancelado   (the destination changed or was revoked; raised while it was revoked)
 *   entregue, falhou, cancelado --reenviar--> pendente  (resend: a new cycle on the current destination)
 *
 * Attempt (`estado`): iniciada → entregue (a completed 2xx) | falhou (other status, redirect, refused) | incerta
 * (sent, outcome unknown: time-out, reset, or a response cut short). An attempt in flight when its event is
 * cancelled still records its outcome; the event stays cancelled.
 */
import type { Instant } from '../time.js';
import { HOUR, MINUTE, SECOND, isoString } from '../time.js';
import { uuidV4 } from '../random.js';
import { ok, refuse, type Result } from '../refusal.js';
import { schedule } from '../outbox.js';
import { indexesOf, nextPosition, positioned, type Context, type KindSlice, type State } from '../state.js';
import { at, repeatedId } from '../integrity.js';
import type { WebhookDestination } from './destination.js';
import type { Lifecycle } from '../lifecycle.js';

export const EVENT_KINDS = [
  'catalogo.aplicado',
  'catalogo.revisao_necessaria',
  'analise.concluida',
  'analise.falhou',
  'divergencias.alteradas',
  'vigilancia.degradada',
  'vigilancia.restabelecida',
  'webhook.teste',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** `dados` of an envelope: discriminated by `tipo` (spec "Envelope"). */
export type EventData = { readonly tipo: EventKind } & Readonly<Record<string, unknown>>;

export type EventState = 'pendente' | 'executando' | 'entregue' | 'falhou' | 'cancelado';
export type AttemptState = 'iniciada' | 'entregue' | 'falhou' | 'incerta';
type EventTrigger = 'iniciar_tentativa' | 'entregar' | 'falhar_tentativa' | 'esgotar' | 'cancelar' | 'reenviar';

/** spec: WH-EVT-05 (the states), WH-EVT-37 (only a closed event is resent), WH-EVT-45 (a resend opens a new cycle). */
const LIFECYCLE: Lifecycle<EventState, EventTrigger> = {
  pendente: { iniciar_tentativa: 'executando', esgotar: 'falhou', cancelar: 'cancelado' },
  executando: { entregar: 'entregue', falhar_tentativa: 'pendente', esgotar: 'falhou', cancelar: 'cancelado' },
  entregue: { reenviar: 'pendente' },
  falhou: { reenviar: 'pendente' },
  cancelado: { reenviar: 'pendente' },
};

const CLOSED: ReadonlySet<EventState> = new Set(['entregue', 'falhou', 'cancelado']);
export const isClosed = (estado: EventState): boolean => CLOSED.has(estado);

/**
 * `codigo_falha` values (docs/webhooks.md). On an attempt: why it did not deliver. On an event: the last
 * attempt's code, or why the cycle was cancelled.
 */
export const FAILURE_CODES = {
  /** The receiver answered a status other than 2xx or 3xx (`status_http` holds it). */
  status: 'status_nao_2xx',
  /** The receiver answered 3xx: redirects are not followed. */
  redirect: 'redirecionamento_nao_seguido',
  /** The connection was refused: nothing was sent. */
  refused: 'conexao_recusada',
  /** The host could not be reached (DNS, network): nothing was sent. */
  unreachable: 'destino_inalcancavel',
  /** Sent, then the connection broke before an answer: the receiver may have processed it. */
  reset: 'conexao_interrompida',
  /**
   * Sent, and an answer began (its status arrived, `status_http` holds it) but never completed: the connection
   * broke mid-body or the body came short of what it declared. A code of its own, not `conexao_interrompida`
   * or `status_nao_2xx`: the receiver did answer, so it may well have processed the event, yet no complete
   * answer arrived, and only a completed 2xx confirms an attempt (spec: WH-EVT-56), whatever the status said.
   */
  incomplete: 'resposta_incompleta',
  /** Sent, and no answer within the attempt time-out: the receiver may have processed it. */
  timeout: 'tempo_esgotado',
  /** Event cancelled: the destination was changed or rotated (a new version). */
  destinationChanged: 'destino_alterado',
  /** Event cancelled: the destination was revoked. */
  destinationRevoked: 'destino_revogado',
  /** Event cancelled at creation: the company's destination was revoked (it can be resent after reactivation). */
  inactiveDestination: 'destino_inativo',
} as const;

/** What the network made of one attempt (the shell's transport reports it; the core classifies it). */
export type NetworkOutcome =
  /** A complete response: status line, headers and the whole body it declared. */
  | { readonly kind: 'response'; readonly status: number }
  /** A response began with `status`, then stopped before its body was complete. */
  | { readonly kind: 'incomplete'; readonly status: number }
  | { readonly kind: 'refused' }
  | { readonly kind: 'unreachable' }
  | { readonly kind: 'reset' }
  | { readonly kind: 'timeout' };

export interface DeliveryPolicy {
  /** Waits before attempts 2..8, from the end of the previous attempt (docs/webhooks.md "Delivery"). */
  readonly retryWaitsMs: readonly number[];
  readonly attemptTimeoutMs: number;
  readonly cycleMs: number;
  readonly maxAttemptsPerCycle: number;
}

/** Svix's schedule squeezed into the spec's 8 attempts in 24 hours (spec: WH-EVT-58, WH-EVT-60); 15 s per attempt. */
export const DEFAULT_DELIVERY_POLICY: DeliveryPolicy = {
  retryWaitsMs: [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 7 * HOUR, 8 * HOUR],
  attemptTimeoutMs: 15 * SECOND,
  cycleMs: 24 * HOUR,
  maxAttemptsPerCycle: 8,
};

export const TASK_ATTEMPT = 'webhook.tentativa';
export const TASK_ATTEMPT_TIMEOUT = 'webhook.tempo_esgotado';
/** A delayed answer (a latency fault) arrives: the attempt finishes with the outcome the task carries. */
export const TASK_RESPONSE = 'webhook.resposta';

export interface DeliveryAttempt {
  /** Numbered across cycles: 1, 2, … (the attempts query pages by it). */
  readonly tentativa: number;
  readonly ciclo: number;
  readonly destinoVersao: number | null;
  readonly estado: AttemptState;
  readonly iniciadaEm: Instant;
  readonly terminadaEm: Instant | null;
  readonly codigoFalha: string | null;
  readonly statusHttp: number | null;
}

export interface WebhookEvent {
  readonly id: string;
  readonly companyId: string;
  readonly tipo: EventKind;
  readonly ocorridoEm: Instant;
  readonly criadoEm: Instant;
  /** The envelope's exact bytes: stored once, signed and sent as is by every attempt. */
  readonly body: string;
  /**
   * The destination of the current cycle. Never null: the spec types `destino_id` string and `destino_versao`
   * int (spec: CONV-09, WH-EVT-01), so an event exists only against a destination (see raiseEvent).
   */
  readonly destinoId: string;
  readonly destinoVersao: number;
  readonly estado: EventState;
  readonly ciclo: number;
  readonly prazoEm: Instant;
  readonly terminadoEm: Instant | null;
  readonly proximaTentativaEm: Instant | null;
  readonly codigoFalha: string | null;
  readonly statusHttp: number | null;
  readonly attempts: readonly DeliveryAttempt[];
  readonly position: number;
}

/** What the shell must send for an attempt that just started. */
export interface Delivery {
  readonly eventId: string;
  readonly companyId: string;
  readonly tipo: EventKind;
  readonly tentativa: number;
  readonly url: string;
  readonly secret: string;
  readonly body: string;
}

export function attemptsInCycle(e: WebhookEvent): number {
  let count = 0;
  for (const a of e.attempts) if (a.ciclo === e.ciclo) count++;
  return count;
}

function transition(e: WebhookEvent, trigger: EventTrigger): EventState | undefined {
  return LIFECYCLE[e.estado][trigger];
}

/**
 * Raises an event for the company: the one way every part of the service announces something. It is recorded
 * against the destination that exists now, bound to its current version: delivered when the destination is
 * active; recorded `cancelado` (`destino_inativo`) when it is revoked, so it can be resent after reactivation.
 * A company that never configured a destination has nothing to deliver to and no destination to name
 * (`destino_id` and `destino_versao` admit no null: spec CONV-09, WH-EVT-01): the event is not recorded, and
 * undefined is returned.
 */
export function raiseEvent(state: State, companyId: string, dados: EventData, ctx: Context): WebhookEvent | undefined {
  const destination = state.webhookDestinations.get(companyId);
  return destination === undefined ? undefined : recordEvent(state, destination, dados, ctx);
}

/**
 * The envelope's exact bytes (spec "Envelope"): stored once, then signed and sent as they are by every attempt. The
 * receiver check (src/grading) sends its events through this too, so they are the ones a receiver gets.
 */
export function envelopeBody(id: string, empresa: string, ocorridoEm: Instant, dados: EventData): string {
  return JSON.stringify({ id, versao: 1, empresa, ocorridoEm: isoString(ocorridoEm), dados });
}

/** Records an event of `destination`'s company against it (raiseEvent, and the test event, which has its destination in hand). */
export function recordEvent(
  state: State,
  destination: WebhookDestination,
  dados: EventData,
  ctx: Context,
): WebhookEvent {
  const companyId = destination.companyId;
  const company = state.companies.get(companyId);
  const id = uuidV4(ctx.random);
  const body = envelopeBody(id, company?.cnpjRoot ?? '', ctx.now, dados);
  const deliverable = destination.estado === 'ativo';
  const event: WebhookEvent = {
    id,
    companyId,
    tipo: dados.tipo,
    ocorridoEm: ctx.now,
    criadoEm: ctx.now,
    body,
    destinoId: destination.id,
    destinoVersao: destination.versao,
    estado: deliverable ? 'pendente' : 'cancelado',
    ciclo: 1,
    prazoEm: ctx.now + ctx.config.delivery.cycleMs,
    terminadoEm: deliverable ? null : ctx.now,
    proximaTentativaEm: deliverable ? ctx.now : null,
    codigoFalha: deliverable ? null : FAILURE_CODES.inactiveDestination,
    statusHttp: null,
    attempts: [],
    position: nextPosition(state),
  };
  addEvent(state, event);
  if (deliverable) {
    schedule(state, { kind: TASK_ATTEMPT, owner: companyId, due: ctx.now, payload: { eventId: id, ciclo: 1 } });
  } else {
    state.closedWebhookEvents.push([ctx.now, id]);
  }
  return event;
}

/**
 * A due attempt starts: the event must still be waiting in this cycle, bound to the destination's current
 * version, with attempts and time left. Returns what to send, or undefined when nothing is to be sent.
 */
export function beginAttempt(state: State, eventId: string, ciclo: number, ctx: Context): Delivery | undefined {
  const { now } = ctx;
  const event = state.webhookEvents.get(eventId);
  if (!event || event.ciclo !== ciclo) return undefined;
  const next = transition(event, 'iniciar_tentativa');
  if (next === undefined) return undefined;
  const destination = state.webhookDestinations.get(event.companyId);
  if (!destination || destination.estado !== 'ativo' || destination.versao !== event.destinoVersao) {
    // A change of the destination cancels its open events at once; this only guards a restored state.
    close(
      state,
      event,
      'cancelado',
      destination?.estado === 'revogado' ? FAILURE_CODES.destinationRevoked : FAILURE_CODES.destinationChanged,
      now,
    );
    return undefined;
  }
  if (attemptsInCycle(event) >= ctx.config.delivery.maxAttemptsPerCycle || now > event.prazoEm) {
    close(state, event, transition(event, 'esgotar')!, event.codigoFalha, now);
    return undefined;
  }
  const tentativa = event.attempts.length + 1;
  const attempt: DeliveryAttempt = {
    tentativa,
    ciclo,
    destinoVersao: destination.versao,
    estado: 'iniciada',
    iniciadaEm: now,
    terminadaEm: null,
    codigoFalha: null,
    statusHttp: null,
  };
  replaceEvent(state, event, { estado: next, proximaTentativaEm: null, attempts: [...event.attempts, attempt] });
  return {
    eventId,
    companyId: event.companyId,
    tipo: event.tipo,
    tentativa,
    url: destination.url,
    secret: destination.secret,
    body: event.body,
  };
}

/**
 * An attempt that started waits at most the attempt time-out. The transport arms that time-out only when the
 * answer does not come back at once; a restored state re-arms it for every attempt still running, since the
 * request it was waiting on did not survive the restore.
 */
export function attemptTimeoutIntent(
  state: State,
  eventId: string,
  tentativa: number,
  startedAt: Instant,
  ctx: Context,
): void {
  const event = state.webhookEvents.get(eventId);
  if (!event) return;
  schedule(state, {
    kind: TASK_ATTEMPT_TIMEOUT,
    owner: event.companyId,
    due: startedAt + ctx.config.delivery.attemptTimeoutMs,
    payload: { eventId, tentativa },
  });
}

export function rearmStartedAttempts(state: State, ctx: Context, companyId?: string): void {
  for (const event of state.webhookEvents.values()) {
    if (companyId !== undefined && event.companyId !== companyId) continue;
    for (const attempt of event.attempts) {
      if (attempt.estado === 'iniciada')
        attemptTimeoutIntent(state, event.id, attempt.tentativa, attempt.iniciadaEm, ctx);
    }
  }
}

/** How the network's outcome ends an attempt: only a completed 2xx delivers (spec "Delivery semantics"). */
export function classifyOutcome(outcome: NetworkOutcome): {
  estado: Exclude<AttemptState, 'iniciada'>;
  codigoFalha: string | null;
  statusHttp: number | null;
} {
  switch (outcome.kind) {
    case 'response':
      if (outcome.status >= 200 && outcome.status < 300)
        return { estado: 'entregue', codigoFalha: null, statusHttp: outcome.status };
      if (outcome.status >= 300 && outcome.status < 400)
        return { estado: 'falhou', codigoFalha: FAILURE_CODES.redirect, statusHttp: outcome.status };
      return { estado: 'falhou', codigoFalha: FAILURE_CODES.status, statusHttp: outcome.status };
    case 'refused':
      return { estado: 'falhou', codigoFalha: FAILURE_CODES.refused, statusHttp: null };
    case 'unreachable':
      return { estado: 'falhou', codigoFalha: FAILURE_CODES.unreachable, statusHttp: null };
    case 'incomplete':
      // spec: WH-EVT-56. Even a cut 2xx confirms nothing; the status is kept, since it is what arrived.
      return { estado: 'incerta', codigoFalha: FAILURE_CODES.incomplete, statusHttp: outcome.status };
    case 'reset':
      return { estado: 'incerta', codigoFalha: FAILURE_CODES.reset, statusHttp: null };
    case 'timeout':
      return { estado: 'incerta', codigoFalha: FAILURE_CODES.timeout, statusHttp: null };
  }
}

/**
 * An attempt ends with `outcome` (or its time-out fires). A late outcome of an attempt already ended, or of
 * an event that moved on (cancelled, resent), changes only what it must: nothing, or the attempt record.
 */
export function finishAttempt(
  state: State,
  eventId: string,
  tentativa: number,
  outcome: NetworkOutcome,
  ctx: Context,
): void {
  const { now } = ctx;
  const policy = ctx.config.delivery;
  const event = state.webhookEvents.get(eventId);
  const attempt = event?.attempts[tentativa - 1];
  if (!event || !attempt || attempt.estado !== 'iniciada') return;
  const result = classifyOutcome(outcome);
  // Attempts are numbered by their place (the slice's check holds it): the one ending is at tentativa - 1.
  const attempts = event.attempts.slice();
  attempts[tentativa - 1] = { ...attempt, ...result, terminadaEm: now };
  const current = attempt.ciclo === event.ciclo && event.estado === 'executando';
  if (!current) {
    replaceEvent(state, event, { attempts });
    return;
  }
  if (result.estado === 'entregue') {
    close(state, event, transition(event, 'entregar')!, null, now, { attempts, statusHttp: result.statusHttp });
    return;
  }
  const made = attemptsInCycle(event);
  const wait = policy.retryWaitsMs[Math.min(made - 1, policy.retryWaitsMs.length - 1)] ?? 0;
  const due = now + wait;
  if (made >= policy.maxAttemptsPerCycle || due > event.prazoEm) {
    close(state, event, transition(event, 'esgotar')!, result.codigoFalha, now, {
      attempts,
      statusHttp: result.statusHttp,
    });
    return;
  }
  replaceEvent(state, event, {
    attempts,
    statusHttp: result.statusHttp,
    codigoFalha: result.codigoFalha,
    estado: transition(event, 'falhar_tentativa')!,
    proximaTentativaEm: due,
  });
  schedule(state, { kind: TASK_ATTEMPT, owner: event.companyId, due, payload: { eventId, ciclo: event.ciclo } });
}

/** The destination changed or was revoked: its open events are cancelled; attempts in flight may still arrive. */
export function cancelOpenEvents(state: State, companyId: string, codigoFalha: string, now: Instant): void {
  const open = indexesOf(state, companyId).openWebhookEvents;
  for (const eventId of [...open]) {
    const event = state.webhookEvents.get(eventId);
    if (event && transition(event, 'cancelar') !== undefined) close(state, event, 'cancelado', codigoFalha, now);
  }
}

/** Opens a new cycle on `destination` (resend, or the first cycle of a test event). */
export function reopen(state: State, event: WebhookEvent, destination: WebhookDestination, ctx: Context): WebhookEvent {
  const { now } = ctx;
  const next = transition(event, 'reenviar');
  if (next === undefined) throw new Error(`reopen: event ${event.id} is ${event.estado}`);
  const ciclo = event.ciclo + 1;
  const reopened = replaceEvent(state, event, {
    estado: next,
    ciclo,
    destinoId: destination.id,
    destinoVersao: destination.versao,
    prazoEm: now + ctx.config.delivery.cycleMs,
    terminadoEm: null,
    proximaTentativaEm: now,
    codigoFalha: null,
    statusHttp: null,
  });
  indexesOf(state, event.companyId).openWebhookEvents.add(event.id);
  schedule(state, { kind: TASK_ATTEMPT, owner: event.companyId, due: now, payload: { eventId: event.id, ciclo } });
  return reopened;
}

/** Whether a closed event may be resent: closed, and younger than 30 days (spec "Limits"). */
export function resendable(event: WebhookEvent, now: Instant, maxAgeMs: number): Result<WebhookEvent> {
  if (transition(event, 'reenviar') === undefined) {
    return refuse(
      'conflict',
      'evento_em_andamento',
      `Event ${event.id} is ${event.estado}: only entregue, falhou or cancelado events can be resent.`,
    );
  }
  if (now - event.criadoEm >= maxAgeMs) {
    return refuse(
      'conflict',
      'evento_antigo',
      `Event ${event.id} was created on ${isoString(event.criadoEm)}: only events younger than 30 days can be resent.`,
    );
  }
  return ok(event);
}

/** Closes `event` as `estado`; `ending` carries what the attempt that closes it changed (one copy of the event, not two). */
function close(
  state: State,
  event: WebhookEvent,
  estado: EventState,
  codigoFalha: string | null,
  now: Instant,
  ending?: Pick<WebhookEvent, 'attempts' | 'statusHttp'>,
): WebhookEvent {
  const closed = replaceEvent(state, event, {
    ...ending,
    estado,
    codigoFalha,
    terminadoEm: now,
    proximaTentativaEm: null,
  });
  indexesOf(state, event.companyId).openWebhookEvents.delete(event.id);
  state.closedWebhookEvents.push([now, event.id]);
  return closed;
}

function replaceEvent(
  state: State,
  current: WebhookEvent,
  changes: Partial<Omit<WebhookEvent, 'id' | 'companyId' | 'position'>>,
): WebhookEvent {
  const updated: WebhookEvent = { ...current, ...changes };
  state.webhookEvents.set(updated.id, updated);
  return updated;
}

/** A new (or restored) event, in its company's list and, while it is not closed, among its open events. */
function addEvent(state: State, event: WebhookEvent): void {
  state.webhookEvents.set(event.id, event);
  if (!isClosed(event.estado)) indexesOf(state, event.companyId).openWebhookEvents.add(event.id);
}

/** The events; what retention walks (the closed ones in closing order) is rebuilt from their `terminadoEm`. */
const positionedEvents = positioned('webhookEvents', (state) => state.webhookEvents, addEvent, true);
/**
 * `list` holding `items` instead, in place. Not `list.splice(0, list.length, ...items)`: spread into a call, some
 * 120,000 items (closed events a restore or a company's removal puts back) overflow the stack.
 */
function refill<T>(list: T[], items: readonly T[]): void {
  list.length = items.length;
  for (let i = 0; i < items.length; i++) list[i] = items[i]!;
}

export const webhookEventsSlice: KindSlice<'webhookEvents', readonly WebhookEvent[], WebhookEvent> = {
  ...positionedEvents,
  holds: ['webhookEvents', 'closedWebhookEvents'],
  indexes: ['openWebhookEvents'],
  fromData: (state, events) => {
    positionedEvents.fromData(state, events);
    const closed = events
      .filter((e) => e.terminadoEm !== null && isClosed(e.estado))
      .map((e): [Instant, string] => [e.terminadoEm!, e.id]);
    // Merged by closing time into what is there (one company's import beside the others'): retention walks it
    // oldest first. Ties in position order, as a whole state's import gives them.
    const queue = state.closedWebhookEvents;
    const position = (id: string) => state.webhookEvents.get(id)?.position ?? 0;
    refill(
      queue,
      [...queue, ...closed].sort((a, b) => a[0] - b[0] || position(a[1]) - position(b[1])),
    );
  },
  removeCompany: (state, companyId) => {
    const queue = state.closedWebhookEvents;
    refill(
      queue,
      queue.filter(([, id]) => state.webhookEvents.get(id)?.companyId !== companyId),
    );
    state.webhookEvents.dropCompany(companyId);
  },
  unique: (events) => repeatedId('webhookEvents', events, 'webhook event'),
  check: (data, r) => {
    const destinationOf = new Map(data.webhookDestinations.map((d) => [d.companyId, d]));
    for (const [i, e] of data.webhookEvents.entries()) {
      if (!r.companies.has(e.companyId))
        return at(['webhookEvents', i, 'companyId'], `webhook event ${e.id} belongs to unknown company ${e.companyId}`);
      const destination = destinationOf.get(e.companyId);
      if (destination?.id !== e.destinoId || e.destinoVersao > destination.versao) {
        return at(
          ['webhookEvents', i, destination?.id !== e.destinoId ? 'destinoId' : 'destinoVersao'],
          `webhook event ${e.id}: destination ${e.destinoId} version ${e.destinoVersao} is not a version of its company's webhook destination`,
        );
      }
      if (isClosed(e.estado) !== (e.terminadoEm !== null))
        return at(
          ['webhookEvents', i, 'terminadoEm'],
          `webhook event ${e.id}: terminadoEm must be set exactly when it is closed`,
        );
      for (const [j, a] of e.attempts.entries()) {
        const path = ['webhookEvents', i, 'attempts', j];
        // The attempts query pages by this number, and a late outcome finds its attempt by it.
        if (a.tentativa !== j + 1)
          return at(
            [...path, 'tentativa'],
            `webhook event ${e.id}: attempt ${j + 1} is numbered ${a.tentativa}; attempts are numbered 1, 2, … in order`,
          );
        if (a.ciclo > e.ciclo)
          return at(
            [...path, 'ciclo'],
            `webhook event ${e.id}: attempt ${a.tentativa} is of cycle ${a.ciclo}, after the event's cycle ${e.ciclo}`,
          );
        if ((a.estado === 'iniciada') !== (a.terminadaEm === null))
          return at(
            [...path, 'terminadaEm'],
            `webhook event ${e.id}: attempt ${a.tentativa} must have terminadaEm exactly when it has ended`,
          );
      }
    }
    return undefined;
  },
};
