/**
 * The detail of one timeline item (GET /_emulator/inspector/companies/{id}/items/{itemId}): the item and its
 * sections, every header and JSON value masked (mask.ts) before it leaves. A request shows its journal entry and,
 * when it was made after the inspector opened, its request and answer with headers and bodies; an event its record,
 * envelope, attempts and the signature headers of each attempt, computed as the emulator signs (the secret itself
 * never leaves); a job run, control call or task what the inspector kept of it.
 */
import { isoString } from '../../core/time.js';
import type { DeliveryAttempt, WebhookEvent } from '../../core/webhooks/events.js';
import { presentAttempt, presentEventItem } from '../../http/presenters.js';
import { signWebhook } from '../../network/signature.js';
import { VERSION } from '../../version.js';
import type { DetailSection, ItemDetail } from '../wire.js';
import type { InspectorView } from './inspector.js';
import { attemptItem, controlItem, eventItem, jobItem, requestItem, taskItem } from './items.js';
import { maskHeaders, maskJson } from './mask.js';

/** A body as the inspector keeps it: its text (up to its cap), its size, whether it was cut. */
interface KeptBody {
  readonly text: string;
  readonly bytes: number;
  readonly truncated: boolean;
}

/** One API exchange as recorded (Inspector.exchange); the answer's body arrives a moment after the rest. */
export interface KeptExchange {
  readonly requestHeaders: Headers;
  readonly requestBody: KeptBody | null;
  readonly status: number;
  readonly responseHeaders: Headers;
  responseBody: KeptBody | null;
  /** While the answer's body is being read. */
  reading: Promise<void> | undefined;
}

const NOT_RECORDED = 'Made before the inspector was first opened: the journal kept its line, not its headers or bodies (they are recorded from the first use of the inspector on).';

/** A body as a section: its JSON (masked) when it parses, else its text. */
function bodySection(title: string, body: KeptBody): DetailSection {
  const note = body.truncated ? ` (first ${body.text.length} characters of ${body.bytes} bytes: truncated)` : '';
  if (!body.truncated) {
    try {
      return { title, kind: 'json', value: maskJson(JSON.parse(body.text) as unknown) };
    } catch {
      // Not JSON: shown as text.
    }
  }
  return { title: `${title}${note}`, kind: 'text', value: body.text };
}

export function itemDetail(view: InspectorView, companyId: string, itemId: string): ItemDetail | undefined {
  const colon = itemId.indexOf(':');
  const prefix = itemId.slice(0, colon);
  const rest = itemId.slice(colon + 1);
  if (colon < 0 || rest === '') return undefined;
  switch (prefix) {
    case 'req':
      return requestDetail(view, companyId, rest);
    case 'evt': {
      const event = eventOf(view, companyId, rest);
      return event && { item: eventItem(event), sections: eventSections(view, event) };
    }
    case 'att': {
      const split = rest.lastIndexOf(':');
      const event = split < 0 ? undefined : eventOf(view, companyId, rest.slice(0, split));
      const n = rest.slice(split + 1);
      const attempt = event && /^[1-9]\d{0,5}$/.test(n) ? event.attempts[Number(n) - 1] : undefined;
      if (!event || !attempt) return undefined;
      return {
        item: attemptItem(event, attempt, view.attemptsPerCycle),
        sections: [{ title: 'Attempt', kind: 'json', value: attemptView(attempt) }, signatureSection(view, event, attempt), { title: 'Envelope', kind: 'json', value: envelope(event) }],
      };
    }
    case 'job': {
      const job = view.jobs(companyId).find((j) => `${j.seq}` === rest);
      if (!job) return undefined;
      const { seq: _seq, atMs: _atMs, kind: _kind, ...run } = job;
      return { item: jobItem(job), sections: [{ title: 'Run', kind: 'json', value: maskJson(run) }] };
    }
    case 'ctl': {
      const control = view.controls(companyId).find((c) => `${c.seq}` === rest);
      if (!control) return undefined;
      const { seq: _seq, atMs: _atMs, kind: _kind, ...call } = control;
      return { item: controlItem(control), sections: [{ title: 'Control call', kind: 'json', value: maskJson(call) }] };
    }
    case 'task': {
      const task = view.world.clock.upcoming(companyId, Number.MAX_SAFE_INTEGER).find((t) => `${t.id}` === rest);
      if (!task) return undefined;
      return {
        item: taskItem(task),
        sections: [{ title: 'Task', kind: 'json', value: maskJson({ kind: task.kind, nature: task.nature, due: isoString(task.due), ...(task.payload === undefined ? {} : { payload: task.payload }) }) }],
      };
    }
    default:
      return undefined;
  }
}

function requestDetail(view: InspectorView, companyId: string, requestId: string): ItemDetail | undefined {
  const record = view.journal(companyId).find((r) => r.requestId === requestId);
  if (!record) return undefined;
  const exchange = view.exchange(requestId);
  const error = view.error(requestId);
  const sections: DetailSection[] = [
    {
      title: 'Request',
      kind: 'json',
      value: {
        at: isoString(record.at),
        method: record.method,
        path: record.path,
        status: record.status,
        requestId: record.requestId,
        idempotencyKey: record.idempotencyKey,
        replayed: record.replayed,
        faultId: record.faultId,
        error: error ?? null,
      },
    },
  ];
  if (exchange === undefined) {
    sections.push({ title: 'Headers and bodies', kind: 'text', value: NOT_RECORDED });
  } else {
    sections.push({ title: 'Request headers', kind: 'headers', value: maskHeaders(exchange.requestHeaders) });
    if (exchange.requestBody !== null && exchange.requestBody.bytes > 0) sections.push(bodySection('Request body', exchange.requestBody));
    sections.push({ title: `Answer headers (${exchange.status})`, kind: 'headers', value: maskHeaders(exchange.responseHeaders) });
    if (exchange.responseBody !== null && exchange.responseBody.bytes > 0) sections.push(bodySection('Answer body', exchange.responseBody));
  }
  return { item: requestItem(record, error, exchange !== undefined), sections };
}

function eventOf(view: InspectorView, companyId: string, eventId: string): WebhookEvent | undefined {
  const event = view.world.state.webhookEvents.get(eventId);
  return event?.companyId === companyId ? event : undefined;
}

const iso = (instant: number | null) => (instant === null ? null : isoString(instant));

/**
 * An attempt as the API's attempt list shows it (GET /v1/webhook/eventos/{id}/tentativas, its field names), with what
 * only the emulator knows beside it: its cycle and how long it took.
 */
function attemptView(attempt: DeliveryAttempt) {
  return { ...presentAttempt(attempt), ciclo: attempt.ciclo, duracao_ms: attempt.terminadaEm === null ? null : attempt.terminadaEm - attempt.iniciadaEm };
}

function envelope(event: WebhookEvent): unknown {
  try {
    return maskJson(JSON.parse(event.body) as unknown);
  } catch {
    return event.body;
  }
}

function eventSections(view: InspectorView, event: WebhookEvent): DetailSection[] {
  return [
    {
      title: 'Event',
      kind: 'json',
      // The event as GET /v1/webhook/eventos/{id} shows it (its envelope is the next section), and its cycle.
      value: { ...presentEventItem(event), terminado_em: iso(event.terminadoEm), proxima_tentativa_em: iso(event.proximaTentativaEm), codigo_falha: event.codigoFalha, ciclo: event.ciclo },
    },
    { title: 'Envelope', kind: 'json', value: envelope(event) },
    { title: 'Attempts', kind: 'table', value: event.attempts.map(attemptView) },
    ...event.attempts.map((attempt) => signatureSection(view, event, attempt, `Signature headers of attempt ${attempt.tentativa}`)),
  ];
}

/**
 * The headers an attempt was sent with, signed again here with the destination's secret as the transport signs
 * (src/network/transport.ts): the timestamp is the attempt's start in Unix seconds. A `tamper` fault changed what
 * was actually sent; a destination changed since has a new secret, and then nothing can be recomputed.
 */
function signatureSection(view: InspectorView, event: WebhookEvent, attempt: DeliveryAttempt, title = 'Signature headers'): DetailSection {
  const destination = view.world.state.webhookDestinations.get(event.companyId);
  const version = attempt.destinoVersao ?? event.destinoVersao;
  if (destination === undefined || destination.versao !== version || destination.id !== event.destinoId) {
    return { title, kind: 'text', value: `Signed with the secret of destination version ${version}, which a newer configuration has replaced: the headers cannot be signed again.` };
  }
  const signed = signWebhook({ secret: destination.secret, eventId: event.id, body: event.body, timestamp: Math.floor(attempt.iniciadaEm / 1000) });
  return {
    title,
    kind: 'headers',
    value: maskHeaders([
      ['content-type', 'application/json'],
      ['user-agent', `catalog-emulator/${VERSION}`],
      ['service-event-id', signed['Service-Event-Id']],
      ['service-timestamp', signed['Service-Timestamp']],
      ['service-signature', signed['Service-Signature']],
    ]),
  };
}
