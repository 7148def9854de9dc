/**
 * The timeline's items (src/inspector/wire.ts TimelineItem) made from what the emulator keeps: its journal entries,
 * the webhook events and their attempts in the state, what its history holds (history.ts: requests, control calls,
 * attempts, job runs, findings), and the tasks ahead on a clock. One place words every item, so the timeline and
 * the live stream say the same.
 */
import type { UpcomingTask } from '../../clock/clock.js';
import { isoString } from '../../core/time.js';
import type { DeliveryAttempt, WebhookEvent } from '../../core/webhooks/events.js';
import type { JournalRecord } from '../../engine/journal.js';
import type { TimelineItem } from '../wire.js';
import type { KeptControl, KeptDelivery, KeptFinding, KeptJob } from './history.js';

const toneOfStatus = (status: number): TimelineItem['tone'] =>
  status >= 500 ? 'error' : status >= 400 ? 'warn' : 'ok';

/** `+5s`, `+30m`, `+2h`, `+1h30m`, `+1d2h`, `+250ms`: a virtual span as a reader says it. */
export function span(ms: number): string {
  if (ms < 1000) return `+${Math.max(0, Math.round(ms))}ms`;
  let rest = Math.round(ms / 1000);
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    const n = Math.floor(rest / size);
    if (n > 0) parts.push(`${n}${unit}`);
    rest -= n * size;
    if (parts.length === 2) break;
  }
  return `+${parts.join('')}`;
}

/** An API request from its journal record, with its error answer's code; `recorded`: the history has it whole. */
export function requestItem(
  record: Pick<JournalRecord, 'at' | 'method' | 'path' | 'status' | 'requestId' | 'replayed' | 'faultId'>,
  codigo: string | null,
  recorded: boolean,
): TimelineItem {
  const tags: string[] = [];
  if (record.replayed) tags.push('replayed');
  if (record.faultId !== null) tags.push(`fault ${record.faultId}`);
  if (codigo !== null) tags.push(codigo);
  return {
    id: `req:${record.requestId}`,
    kind: 'request',
    at: isoString(record.at),
    title: `${record.method} ${record.path} → ${record.status}${record.replayed ? ' (replayed)' : ''}`,
    status: record.status,
    tone: record.faultId !== null && record.status < 400 ? 'warn' : toneOfStatus(record.status),
    tags,
    detail: recorded,
  };
}

const EVENT_TONE: Readonly<Record<WebhookEvent['estado'], TimelineItem['tone']>> = {
  pendente: 'pending',
  executando: 'pending',
  entregue: 'ok',
  falhou: 'error',
  cancelado: 'warn',
};

/** A webhook event, with where its delivery stands. */
export function eventItem(event: WebhookEvent): TimelineItem {
  const tags: string[] = [event.estado];
  if (event.ciclo > 1) tags.push(`cycle ${event.ciclo}`);
  if (event.codigoFalha !== null) tags.push(event.codigoFalha);
  const attempts = event.attempts.length;
  return {
    id: `evt:${event.id}`,
    kind: 'event',
    at: isoString(event.criadoEm),
    title: `event ${event.tipo} raised → ${event.estado}${attempts > 0 ? ` after ${attempts} attempt${attempts === 1 ? '' : 's'}` : ''}`,
    status: event.statusHttp,
    tone: EVENT_TONE[event.estado],
    tags,
    detail: true,
  };
}

const ATTEMPT_TONE: Readonly<Record<DeliveryAttempt['estado'], TimelineItem['tone']>> = {
  iniciada: 'pending',
  entregue: 'ok',
  falhou: 'error',
  incerta: 'warn',
};

/** Attempt `attempt` of `event`: its place in its cycle, its outcome, and how long after the previous one it started. */
export function attemptItem(event: WebhookEvent, attempt: DeliveryAttempt, attemptsPerCycle: number): TimelineItem {
  let inCycle = 0;
  let previous: DeliveryAttempt | undefined;
  for (const a of event.attempts) {
    if (a.ciclo !== attempt.ciclo || a.tentativa > attempt.tentativa) continue;
    inCycle++;
    if (a.tentativa < attempt.tentativa) previous = a;
  }
  const outcome =
    attempt.estado === 'iniciada'
      ? 'running'
      : `${attempt.estado}${attempt.statusHttp === null ? '' : ` ${attempt.statusHttp}`}`;
  const after =
    previous === undefined
      ? ''
      : ` (${span(attempt.iniciadaEm - (previous.terminadaEm ?? previous.iniciadaEm))} after the previous)`;
  const tags = [`attempt ${inCycle}/${attemptsPerCycle}`, outcome];
  if (attempt.codigoFalha !== null) tags.push(attempt.codigoFalha);
  if (attempt.ciclo > 1) tags.push(`cycle ${attempt.ciclo}`);
  return {
    id: `att:${event.id}:${attempt.tentativa}`,
    kind: 'attempt',
    at: isoString(attempt.iniciadaEm),
    title: `attempt ${inCycle}/${attemptsPerCycle} of ${event.tipo} → ${outcome}${after}`,
    status: attempt.statusHttp,
    tone: ATTEMPT_TONE[attempt.estado],
    tags,
    detail: true,
  };
}

/**
 * An attempt the history kept whose event the state no longer has (its destination removed, its retention over, a
 * reset of its records): what the attempt's entry told.
 */
export function keptAttemptItem(delivery: KeptDelivery): TimelineItem {
  const outcome = `${delivery.outcome}${delivery.status === null ? '' : ` ${delivery.status}`}`;
  const tags = [`attempt ${delivery.attemptInCycle}/${delivery.attemptsPerCycle}`, outcome];
  if (delivery.failure !== null) tags.push(delivery.failure);
  if (delivery.cycle > 1) tags.push(`cycle ${delivery.cycle}`);
  return {
    id: `att:${delivery.eventId}:${delivery.attempt}`,
    kind: 'attempt',
    at: delivery.at,
    title: `attempt ${delivery.attemptInCycle}/${delivery.attemptsPerCycle} of ${delivery.eventType} → ${outcome}`,
    status: delivery.status,
    tone: ATTEMPT_TONE[delivery.outcome],
    tags,
    detail: true,
  };
}

/** A finding on the client: the rule it broke and what happened. */
export function findingItem(finding: KeptFinding): TimelineItem {
  return {
    id: `fnd:${finding.seq}`,
    kind: 'finding',
    at: finding.at,
    title: `finding ${finding.rule}: ${finding.message}`,
    status: null,
    tone: 'warn',
    tags: [finding.rule, ...finding.statements],
    detail: true,
  };
}

/** What a task of the service's jobs does, in words (its kind stays in the item's tags). */
const TASK_WORDS: Readonly<Record<string, string>> = {
  'analise.inicio': 'start of analysis',
  'analise.fim': 'end of analysis',
  'vigilancia.diaria': 'daily surveillance schedule',
  'vigilancia.inicio': 'start of surveillance execution',
  'vigilancia.fim': 'end of surveillance execution',
  'ingestao.validacao': 'validation of ingestion',
  'ingestao.aplicacao': 'application of ingestion',
  'ingestao.expiracao': 'expiry of ingestion',
  'cnpj.revisao': 'review of CNPJ correction',
};

/** A task or job kind and the record it works on, in words: "end of analysis 0198…". */
const workOn = (kind: string, subject: string | undefined): string =>
  `${TASK_WORDS[kind] ?? kind}${subject === undefined ? '' : ` ${subject}`}`;

/** A run of a job on a record (an analysis, an execution, an ingestion step, a CNPJ review). */
export function jobItem(job: KeptJob): TimelineItem {
  const tags = [job.task, ...(job.fault === null ? [] : [`fault ${job.fault}`])];
  const how = job.fault === 'delayed' ? ' postponed by a fault' : job.fault === 'failed' ? ' failed by a fault' : '';
  return {
    id: `job:${job.seq}`,
    kind: 'job',
    at: isoString(job.atMs),
    title: `${workOn(job.task, job.subjectId ?? undefined)}${how}`,
    status: null,
    tone: job.fault === 'failed' ? 'error' : job.fault === 'delayed' ? 'warn' : 'info',
    tags,
    detail: true,
  };
}

/** A control call that changed something: what it was and what it did. */
export function controlItem(control: KeptControl): TimelineItem {
  const tags: string[] = [];
  if (control.operation !== null) tags.push(control.operation);
  if (control.error !== null) tags.push(control.error.codigo);
  const did = control.detail === null ? '' : ` (${control.detail})`;
  return {
    id: `ctl:${control.seq}`,
    kind: 'control',
    at: isoString(control.atMs),
    title: `${control.method} ${control.path} → ${control.status}${did}`,
    status: control.status,
    tone: control.status >= 400 ? toneOfStatus(control.status) : 'info',
    tags,
    detail: true,
  };
}

/** What a task of `kind` is about, in words, from its payload. */
function taskWords(task: UpcomingTask): string {
  const payload = (task.payload ?? {}) as Record<string, unknown>;
  const id = (name: string) => (typeof payload[name] === 'string' ? (payload[name] as string) : '?');
  switch (task.kind) {
    case 'webhook.tentativa':
      return `next attempt of event ${id('eventId')}`;
    case 'webhook.tempo_esgotado':
      return `time-out of attempt ${String(payload.tentativa)} of event ${id('eventId')}`;
    case 'webhook.resposta':
      return `delayed answer to attempt ${String(payload.tentativa)} of event ${id('eventId')}`;
    default:
      return workOn(
        task.kind,
        Object.values(payload).find((v): v is string => typeof v === 'string'),
      );
  }
}

/** A task ahead on the clock: work the clock will run, or a deadline only an advance reaches. */
export function taskItem(task: UpcomingTask): TimelineItem {
  const deadline = task.nature === 'deadline';
  return {
    id: `task:${task.id}`,
    kind: deadline ? 'deadline' : 'task',
    at: isoString(task.due),
    title: `${deadline ? 'deadline: ' : ''}${taskWords(task)}`,
    status: null,
    tone: 'pending',
    tags: [task.kind],
    detail: task.payload !== undefined,
  };
}
