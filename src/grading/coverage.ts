/**
 * What a suite exercised of the service: per operation, the statuses and error codes the client received against
 * those openapi.json documents for it; the faults it used; and the behaviours of BEHAVIOURS (one row each: what,
 * the statements behind it, the control that produces it, and how it is seen), among them the delivery outcomes its
 * receiver saw and the clock-driven ones. The score is the behaviours exercised out of those the table lists. For
 * every behaviour never exercised, and every write called without its high-value answers (a 412, a lost answer, a
 * Retry-After), a gap names the control that produces it.
 *
 * Counting is cheap and bounded by the API's size (a Tally per company); the coverage is built when asked.
 */
import { TASK_ANALYSIS_END } from '../core/analyses.js';
import { TASK_REVIEW } from '../core/cnpj-corrections.js';
import { concurrentEditImpossible } from '../core/concurrent-edit.js';
import { TASK_APPLICATION, TASK_EXPIRY } from '../core/ingestion/ingestions.js';
import type { State } from '../core/state.js';
import { TASK_EXECUTION_END } from '../core/surveillance-executions.js';
import { ifMatchOperation } from '../core/versioning.js';
import type { WebhookEvent } from '../core/webhooks/events.js';
import { eventRetentionJob } from '../core/webhooks/retention.js';
import type { FiredFault } from '../engine/activity.js';
import type { JournalRecord } from '../engine/journal.js';
import type { ReceiverAnswer } from '../network/transport.js';
import type { GradedOperation } from './findings.js';

/** What one operation got: its calls, each status and error code received, the replays, lost answers and Retry-Afters. */
class OperationTally {
  calls = 0;
  replayed = 0;
  lost = 0;
  /** Answers that carried a Retry-After (a 429 or 503 to back off from). */
  backoffs = 0;
  readonly statuses = new Map<number, number>();
  readonly codes = new Map<string, number>();

  addTo(other: OperationTally): void {
    other.calls += this.calls;
    other.replayed += this.replayed;
    other.lost += this.lost;
    other.backoffs += this.backoffs;
    for (const [status, n] of this.statuses) add(other.statuses, status, n);
    for (const [codigo, n] of this.codes) add(other.codes, codigo, n);
  }
}

const add = <K>(map: Map<K, number>, key: K, n = 1): void => void map.set(key, (map.get(key) ?? 0) + n);

/** What a company's requests, deliveries and jobs exercised, as counts. */
export class Tally {
  readonly operations = new Map<string, OperationTally>();
  /** Requests no operation took (404 rota_nao_encontrada, 405). */
  unrouted = 0;
  /** Faults fired, by `target effect`. */
  readonly faults = new Map<string, number>();
  /** The behaviours seen in deliveries and jobs, by id (those of requests are read off the operations). */
  readonly seen = new Map<BehaviourId, number>();
  /** Attempts to the built-in inbox, which no receiver of the client's answered. */
  inboxAttempts = 0;

  request(r: JournalRecord): void {
    if (r.operation === null) {
      this.unrouted++;
      return;
    }
    let tally = this.operations.get(r.operation);
    if (tally === undefined) this.operations.set(r.operation, (tally = new OperationTally()));
    tally.calls++;
    add(tally.statuses, r.status);
    if (r.codigo !== null) add(tally.codes, r.codigo);
    if (r.replayed) tally.replayed++;
    if (r.lost) tally.lost++;
    if (r.retryAfter !== null) tally.backoffs++;
  }

  fault(fault: FiredFault): void {
    add(this.faults, `${fault.target} ${fault.effect}`);
  }

  saw(id: BehaviourId): void {
    add(this.seen, id);
  }

  /** Everything counted here, added to `other`. */
  addTo(other: Tally): void {
    for (const [id, tally] of this.operations) {
      let into = other.operations.get(id);
      if (into === undefined) other.operations.set(id, (into = new OperationTally()));
      tally.addTo(into);
    }
    other.unrouted += this.unrouted;
    other.inboxAttempts += this.inboxAttempts;
    for (const [key, n] of this.faults) add(other.faults, key, n);
    for (const [key, n] of this.seen) add(other.seen, key, n);
  }
}

/** An attempt that ended, to a receiver the test routed, as the behaviours read it. */
interface AttemptSeen {
  readonly event: WebhookEvent;
  /** The attempt's place in its cycle, from 1. */
  readonly inCycle: number;
  readonly estado: WebhookEvent['attempts'][number]['estado'];
}

/** A behaviour of the service a suite may exercise: one row of BEHAVIOURS. */
interface Behaviour {
  readonly id: string;
  readonly area: 'requests' | 'deliveries' | 'clock';
  readonly what: string;
  readonly statements: readonly string[];
  /** The control that produces it. */
  readonly control: string;
  /** Seen in the requests: how many times an operation's tally shows it. */
  readonly requests?: (operation: OperationTally) => number;
  /** Seen when this fault fires (`target effect`). */
  readonly fault?: string;
  /** Seen in an attempt to a routed receiver that ended. */
  readonly attempt?: (attempt: AttemptSeen) => boolean;
  /** Seen in a routed receiver's own answer. */
  readonly receiver?: (answer: ReceiverAnswer) => boolean;
  /** Seen when the job's task `task` ran and left its record so. */
  readonly job?: { readonly task: string; readonly done: (state: State, subjectId: string) => boolean };
  /** Seen when event retention removed an event the grading saw closed. */
  readonly retention?: true;
}

const is2xx = (answer: ReceiverAnswer['outcome'] | null): boolean =>
  answer !== null && answer.kind === 'response' && answer.status >= 200 && answer.status < 300;
const code = (codigo: string) => (operation: OperationTally) => operation.codes.get(codigo) ?? 0;
const status =
  (...statuses: number[]) =>
  (operation: OperationTally) =>
    statuses.reduce((sum, s) => sum + (operation.statuses.get(s) ?? 0), 0);
const apiFault = (match: string, effect: string) =>
  `POST /_emulator/faults {"target":"api",${match === '' ? '' : `"match":${match},`}"effect":${effect}}`;
const deliveryFault = (effect: string, times = '') =>
  `POST /_emulator/faults {"target":"delivery","effect":${effect}${times}}`;
const ROUTE = 'route the webhook URL to your receiver (emu.network.route, --route)';

export const BEHAVIOURS = [
  {
    id: 'idempotent-replay',
    area: 'requests',
    what: 'A write repeated with its idempotency-key, answered from the store (idempotent-replayed: true)',
    statements: ['REQ-02', 'REQ-03'],
    control: `send a write again with the same idempotency-key, e.g. after ${apiFault('{"method":"POST"}', '{"loseResponse":true}')}`,
    requests: (o) => o.replayed,
  },
  {
    id: 'lost-answer',
    area: 'requests',
    what: 'A write applied whose answer was lost (loseResponse, or a held request the client gave up on)',
    statements: ['REQ-02'],
    control: apiFault('{"method":"POST"}', '{"loseResponse":true}'),
    requests: (o) => o.lost,
  },
  {
    id: 'precondition-failed',
    area: 'requests',
    what: 'A 412 precondicao_falhou: the If-Match no longer matched',
    statements: ['REQ-05'],
    control: apiFault('{"method":"PATCH"}', '{"concurrentEdit":true}'),
    requests: code('precondicao_falhou'),
  },
  {
    id: 'idempotency-in-flight',
    area: 'requests',
    what: 'A 409 idempotencia_em_curso: a key sent again while its first request was still running',
    statements: [],
    control: `${apiFault('{"method":"POST"}', '{"delayMs":5000}')}, then send the request again with the same key before moving the clock`,
    requests: code('idempotencia_em_curso'),
  },
  {
    id: 'rate-limited',
    area: 'requests',
    what: 'A 429 with Retry-After',
    statements: ['ERR-10', 'LIM-09'],
    control: `${apiFault('', '{"status":429,"retryAfter":2}')} (or a sixth webhook test or resend within a minute)`,
    requests: status(429),
  },
  {
    id: 'service-unavailable',
    area: 'requests',
    what: 'A 503',
    statements: ['ERR-06', 'ERR-07'],
    control: apiFault('', '{"status":503,"retryAfter":2}'),
    requests: status(503),
  },
  {
    id: 'held-request',
    area: 'requests',
    what: 'A request held by a delayMs fault (a slow answer)',
    statements: [],
    control: apiFault('', '{"delayMs":20000}'),
    fault: 'api delayMs',
  },
  {
    id: 'delivered-first-attempt',
    area: 'deliveries',
    what: 'An event your receiver accepted at its first attempt',
    statements: ['WH-EVT-48', 'WH-EVT-55'],
    control: `${ROUTE}, then POST /v1/webhook/testes`,
    attempt: (a) => a.estado === 'entregue' && a.inCycle === 1,
  },
  {
    id: 'delivered-after-retries',
    area: 'deliveries',
    what: 'An event your receiver accepted after failed attempts',
    statements: ['WH-EVT-56', 'WH-EVT-58'],
    control: `${deliveryFault('{"status":503}')}, then move the clock 5 s`,
    attempt: (a) => a.estado === 'entregue' && a.inCycle > 1,
  },
  {
    id: 'cycle-failed',
    area: 'deliveries',
    what: "An event whose cycle's attempts all failed (estado falhou)",
    statements: ['WH-EVT-58', 'WH-EVT-59'],
    control: `${deliveryFault('{"status":503}', ',"times":8')}, then move the clock 24 h`,
    attempt: (a) => a.event.estado === 'falhou',
  },
  {
    id: 'uncertain-attempt',
    area: 'deliveries',
    what: 'An attempt ended incerta (time-out, reset, cut answer): the receiver may have processed it',
    statements: ['WH-EVT-56'],
    control: deliveryFault('{"timeout":true}'),
    attempt: (a) => a.estado === 'incerta',
  },
  {
    id: 'tampered-refused',
    area: 'deliveries',
    what: 'A tampered delivery your receiver refused',
    statements: ['SIG-03', 'SIG-07', 'SIG-08'],
    control: deliveryFault('{"tamper":"signature"}'),
    receiver: (answer) => answer.tamper !== null && answer.outcome.kind === 'response' && !is2xx(answer.outcome),
  },
  {
    id: 'duplicate-accepted',
    area: 'deliveries',
    what: 'An event delivered again after your receiver accepted it, and accepted again (deduplicated)',
    statements: ['SIG-11', 'WH-EVT-50'],
    control: `${deliveryFault('{"duplicate":true}')} (or resend a delivered event: POST /v1/webhook/eventos/{id}/reenvios)`,
    receiver: (answer) => is2xx(answer.outcome) && is2xx(answer.copy),
    attempt: (a) =>
      a.estado === 'entregue' &&
      a.event.attempts.some((earlier) => earlier.estado === 'entregue' && earlier.ciclo < a.event.ciclo),
  },
  {
    id: 'analysis-completed',
    area: 'clock',
    what: 'An analysis ran to concluida',
    statements: [],
    control: 'POST /v1/analises, then move the clock (or run-until-idle)',
    job: { task: TASK_ANALYSIS_END, done: (state, id) => state.analyses.get(id)?.estado === 'concluida' },
  },
  {
    id: 'analysis-failed',
    area: 'clock',
    what: 'An analysis that failed (falhou)',
    statements: [],
    control:
      'POST /_emulator/faults {"target":"job","match":{"kind":"analise"},"effect":{"fail":true}}, then POST /v1/analises and move the clock',
    job: { task: TASK_ANALYSIS_END, done: (state, id) => state.analyses.get(id)?.estado === 'falhou' },
  },
  {
    id: 'surveillance-execution-completed',
    area: 'clock',
    what: 'A surveillance execution ran to concluida',
    statements: [],
    control: 'select products (PATCH /v1/empresa/vigilancia), then move the clock past the daily execution (24 h)',
    job: { task: TASK_EXECUTION_END, done: (state, id) => state.executions.get(id)?.estado === 'concluida' },
  },
  {
    id: 'ingestion-applied',
    area: 'clock',
    what: 'An ingestion applied (aplicada)',
    statements: [],
    control: 'start an ingestion, send its batches, close and apply it, then move the clock',
    job: { task: TASK_APPLICATION, done: (state, id) => state.ingestions.get(id)?.estado === 'aplicada' },
  },
  {
    id: 'ingestion-expired',
    area: 'clock',
    what: 'An ingestion left open that expired (expirada)',
    statements: [],
    control: 'start an ingestion, then move the clock 24 h',
    job: { task: TASK_EXPIRY, done: (state, id) => state.ingestions.get(id)?.estado === 'expirada' },
  },
  {
    id: 'cnpj-review-decided',
    area: 'clock',
    what: 'A CNPJ correction reviewed (aprovada or rejeitada)',
    statements: ['CNPJ-03'],
    control: 'POST /v1/estabelecimentos/{id}/correcoes-cnpj, then move the clock',
    job: {
      task: TASK_REVIEW,
      done: (state, id) => ['aprovada', 'rejeitada'].includes(state.cnpjCorrections.get(id)?.estado ?? ''),
    },
  },
  {
    id: 'event-past-retention',
    area: 'clock',
    what: 'A closed event removed by retention (its query then answers 404)',
    statements: ['WH-EVT-19', 'WH-EVT-61'],
    control: 'move the clock 31 days after an event closed',
    retention: true,
  },
] as const satisfies readonly Behaviour[];

export type BehaviourId = (typeof BEHAVIOURS)[number]['id'];

/** The rows seen in attempts, in receivers' answers and in each job's runs: found once, not per fact. */
const ROWS: readonly (Behaviour & { readonly id: BehaviourId })[] = BEHAVIOURS;
export const ATTEMPT_ROWS = ROWS.filter((row) => row.attempt !== undefined);
export const RECEIVER_ROWS = ROWS.filter((row) => row.receiver !== undefined);
export const JOB_ROWS = ROWS.filter((row) => row.job !== undefined);
export const RETENTION_TASK = eventRetentionJob.task;

/** A behaviour as the coverage shows it. */
export interface BehaviourCoverage {
  readonly id: BehaviourId;
  readonly area: 'requests' | 'deliveries' | 'clock';
  readonly what: string;
  readonly statements: readonly string[];
  /** How many times it was seen. */
  readonly seen: number;
  /** The control that produces it. */
  readonly control: string;
}

/** One operation the client called. */
export interface OperationCoverage {
  readonly id: string;
  readonly method: string;
  readonly path: string;
  readonly calls: number;
  /** Each status received and how often, ascending. */
  readonly statuses: readonly { readonly status: number; readonly count: number }[];
  /** Each error code received and how often, by code. */
  readonly codes: readonly { readonly codigo: string; readonly count: number }[];
  /** The statuses openapi.json documents for it that it never received. */
  readonly unreceived: readonly number[];
}

export interface Coverage {
  /** Behaviours of the table seen at least once, out of those it lists. */
  readonly score: { readonly exercised: number; readonly listed: number };
  readonly behaviours: readonly BehaviourCoverage[];
  /** A behaviour never seen, or a high-value answer a called write never got, each with the control that produces it. */
  readonly gaps: readonly string[];
  /** The operations called, in the API's order. */
  readonly operations: readonly OperationCoverage[];
  /** The operations never called (`METHOD /path`). */
  readonly notCalled: readonly string[];
  /** Requests no operation took (404 rota_nao_encontrada, 405). */
  readonly unrouted: number;
  /** The faults that fired, and how often. */
  readonly faults: readonly { readonly target: string; readonly effect: string; readonly fired: number }[];
  /** Delivery attempts that went to the built-in inbox rather than to a receiver of yours (not counted above). */
  readonly inboxAttempts: number;
}

/** The coverage of what `tally` counted, against the API's operations. */
export function coverageOf(tally: Tally, operations: readonly GradedOperation[]): Coverage {
  const sum = (count: (o: OperationTally) => number) =>
    [...tally.operations.values()].reduce((total, o) => total + count(o), 0);
  const behaviours: BehaviourCoverage[] = BEHAVIOURS.map((row: Behaviour & { readonly id: BehaviourId }) => ({
    id: row.id,
    area: row.area,
    what: row.what,
    statements: row.statements,
    seen:
      (row.requests === undefined ? 0 : sum(row.requests)) +
      (row.fault === undefined ? 0 : (tally.faults.get(row.fault) ?? 0)) +
      (tally.seen.get(row.id) ?? 0),
    control: row.control,
  }));
  const called = operations.filter((o) => tally.operations.has(o.id));
  const gaps = [
    ...behaviours.filter((b) => b.seen === 0).map((b) => `no ${b.id}: ${b.control}`),
    ...called.flatMap((o) => writeGaps(o, tally.operations.get(o.id)!)),
  ];
  return {
    score: { exercised: behaviours.filter((b) => b.seen > 0).length, listed: behaviours.length },
    behaviours,
    gaps,
    operations: called.map((o) => {
      const t = tally.operations.get(o.id)!;
      return {
        id: o.id,
        method: o.method,
        path: o.path,
        calls: t.calls,
        statuses: [...t.statuses].sort(([a], [b]) => a - b).map(([s, count]) => ({ status: s, count })),
        codes: [...t.codes].sort(([a], [b]) => (a < b ? -1 : 1)).map(([codigo, count]) => ({ codigo, count })),
        unreceived: o.statuses.filter((s) => !t.statuses.has(s)),
      };
    }),
    notCalled: operations.filter((o) => !tally.operations.has(o.id)).map((o) => `${o.method} ${o.path}`),
    unrouted: tally.unrouted,
    faults: [...tally.faults]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([key, fired]) => {
        const [target, effect] = key.split(' ') as [string, string];
        return { target, effect, fired };
      }),
    inboxAttempts: tally.inboxAttempts,
  };
}

/**
 * The high-value answers a write called never got, each with its control: a 412 where another client could save
 * what its If-Match guards, a lost answer (the retry a client must get right), and a Retry-After to back off from.
 */
function writeGaps(operation: GradedOperation, tally: OperationTally): string[] {
  if (operation.method === 'GET') return [];
  const { method, path } = operation;
  const match = `{"method":"${method}","path":"${path.replace(/\{\w+\}/g, '*')}"}`;
  const gaps: string[] = [];
  const guard = ifMatchOperation(method, path);
  if (guard !== undefined && concurrentEditImpossible(guard) === undefined && !tally.codes.has('precondicao_falhou')) {
    gaps.push(`no 412 on ${method} ${path}: ${apiFault(match, '{"concurrentEdit":true}')}`);
  }
  if (tally.lost === 0)
    gaps.push(
      `no lost answer on ${method} ${path}: ${apiFault(match, '{"loseResponse":true}')}, then retry with the same idempotency-key`,
    );
  if (tally.backoffs === 0)
    gaps.push(
      `no 429 or 503 with Retry-After on ${method} ${path}: ${apiFault(match, '{"status":503,"retryAfter":2}')}`,
    );
  return gaps;
}
