/**
 * The detail of one timeline item (GET /_emulator/inspector/companies/{id}/items/{itemId}): the item and its
 * sections, every header and JSON value masked (mask.ts) before it leaves. A request shows its journal entry and,
 * while the history holds it, its request and answer with headers and bodies; an event its record, envelope,
 * attempts and the signature headers of each attempt, computed as the emulator signs (the secret itself never
 * leaves); an attempt whose event is gone, a job run, control call, finding or task what was kept of it.
 */
import { isoString } from '../../core/time.js';
import type { DeliveryAttempt, WebhookEvent } from '../../core/webhooks/events.js';
import { errorBodyText } from '../../http/errors.js';
import { presentAttempt, presentEventItem } from '../../http/presenters.js';
import { signWebhook } from '../../network/signature.js';
import { VERSION } from '../../version.js';
import type { DetailSection, ItemDetail } from '../wire.js';
import { bodyText, headerPairs, type KeptBody, type KeptRequest } from './history.js';
import type { InspectorView } from './inspector.js';
import {
  attemptItem,
  controlItem,
  eventItem,
  findingItem,
  jobItem,
  keptAttemptItem,
  requestItem,
  taskItem,
} from './items.js';
import { maskHeaders, maskJson } from './mask.js';

/** A request the history dropped at its bounds (or never kept: EmulatorOptions.inspector of 0). */
const notKept = (view: InspectorView): string => {
  const { maxEntries, maxBytes } = view.history.counts();
  return maxEntries === 0 || maxBytes === 0
    ? 'This emulator keeps no history (its inspector option historyEntries or historyBytes is 0): the journal kept its line, not its headers or bodies.'
    : `Dropped from the history, which keeps the last ${maxEntries} entries within ${maxBytes} bytes for every company: the journal kept its line, not its headers or bodies.`;
};

/** A body as a section: its JSON (masked) when it parses, else its text. */
function bodySection(title: string, body: KeptBody): DetailSection {
  const { text, size, truncated } = bodyText(body);
  const note = truncated ? ` (first ${text.length} characters of ${size} bytes: truncated)` : '';
  if (!truncated) {
    try {
      return { title, kind: 'json', value: maskJson(JSON.parse(text) as unknown) };
    } catch {
      // Not JSON: shown as text.
    }
  }
  return { title: `${title}${note}`, kind: 'text', value: text };
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
      const eventId = rest.slice(0, split);
      const event = split < 0 ? undefined : eventOf(view, companyId, eventId);
      const n = rest.slice(split + 1);
      const valid = /^[1-9]\d{0,5}$/.test(n);
      const attempt = event && valid ? event.attempts[Number(n) - 1] : undefined;
      if (!event && split > 0 && valid) return keptAttemptDetail(view, companyId, eventId, Number(n));
      if (!event || !attempt) return undefined;
      return {
        item: attemptItem(event, attempt, view.attemptsPerCycle),
        sections: [
          { title: 'Attempt', kind: 'json', value: attemptView(attempt) },
          signatureSection(view, event, attempt),
          { title: 'Envelope', kind: 'json', value: envelope(event) },
        ],
      };
    }
    case 'job': {
      const job = kept(view, rest);
      if (job?.kind !== 'job' || job.companyId !== companyId) return undefined;
      const { seq: _seq, atMs: _atMs, bytes: _bytes, kind: _kind, ...run } = job;
      return { item: jobItem(job), sections: [{ title: 'Run', kind: 'json', value: maskJson(run) }] };
    }
    case 'ctl': {
      const control = kept(view, rest);
      if (control?.kind !== 'control' || !view.concerns(control, companyId)) return undefined;
      const { seq: _seq, atMs: _atMs, bytes: _bytes, kind: _kind, ...call } = control;
      return { item: controlItem(control), sections: [{ title: 'Control call', kind: 'json', value: maskJson(call) }] };
    }
    case 'fnd': {
      const finding = kept(view, rest);
      if (finding?.kind !== 'finding' || finding.companyId !== companyId) return undefined;
      const { seq: _seq, atMs: _atMs, bytes: _bytes, kind: _kind, ...found } = finding;
      return { item: findingItem(finding), sections: [{ title: 'Finding', kind: 'json', value: maskJson(found) }] };
    }
    case 'task': {
      const task = view.world.clock.upcoming(companyId, Number.MAX_SAFE_INTEGER).find((t) => `${t.id}` === rest);
      if (!task) return undefined;
      return {
        item: taskItem(task),
        sections: [
          {
            title: 'Task',
            kind: 'json',
            value: maskJson({
              kind: task.kind,
              nature: task.nature,
              due: isoString(task.due),
              ...(task.payload === undefined ? {} : { payload: task.payload }),
            }),
          },
        ],
      };
    }
    default:
      return undefined;
  }
}

/** The history's entry numbered by an item id's `n`. */
const kept = (view: InspectorView, n: string) =>
  /^[1-9]\d{0,15}$/.test(n) ? view.history.bySeq(Number(n)) : undefined;

/** An attempt the history kept whose event is gone from the state. */
function keptAttemptDetail(view: InspectorView, companyId: string, eventId: string, n: number): ItemDetail | undefined {
  let found;
  for (const entry of view.history.entries())
    if (entry.kind === 'delivery' && entry.companyId === companyId && entry.eventId === eventId && entry.attempt === n)
      found = entry;
  if (found === undefined) return undefined;
  const { seq: _seq, atMs: _atMs, bytes: _bytes, kind: _kind, ...attempt } = found;
  return {
    item: keptAttemptItem(found),
    sections: [{ title: 'Attempt (its event is no longer kept)', kind: 'json', value: maskJson(attempt) }],
  };
}

function requestDetail(view: InspectorView, companyId: string, requestId: string): ItemDetail | undefined {
  const exchange: KeptRequest | undefined = view.history.request(companyId, requestId);
  const record = exchange?.record ?? view.journal(companyId).find((r) => r.requestId === requestId);
  if (!record) return undefined;
  const error =
    exchange === undefined
      ? record.codigo === null
        ? null
        : { codigo: record.codigo }
      : exchange.error === undefined
        ? null
        : { codigo: exchange.error.codigo, caminho: exchange.error.caminho ?? null };
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
        error,
      },
    },
  ];
  if (exchange === undefined) {
    sections.push({ title: 'Headers and bodies', kind: 'text', value: notKept(view) });
  } else {
    sections.push({
      title: 'Request headers',
      kind: 'headers',
      value: maskHeaders(headerPairs(exchange.requestHeaders)),
    });
    if (exchange.requestBody !== null && exchange.requestBody.content.length > 0)
      sections.push(bodySection('Request body', exchange.requestBody));
    sections.push({
      title: `Answer headers (${exchange.status})`,
      kind: 'headers',
      value: maskHeaders(headerPairs(exchange.responseHeaders)),
    });
    const answer =
      exchange.error === undefined
        ? exchange.responseBody
        : { content: errorBodyText(exchange.error, record.requestId), size: undefined, truncated: false };
    if (answer !== null && answer.content.length > 0) sections.push(bodySection('Answer body', answer));
  }
  return { item: requestItem(record, error?.codigo ?? null, exchange !== undefined), sections };
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
  return {
    ...presentAttempt(attempt),
    ciclo: attempt.ciclo,
    duracao_ms: attempt.terminadaEm === null ? null : attempt.terminadaEm - attempt.iniciadaEm,
  };
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
      value: {
        ...presentEventItem(event),
        terminado_em: iso(event.terminadoEm),
        proxima_tentativa_em: iso(event.proximaTentativaEm),
        codigo_falha: event.codigoFalha,
        ciclo: event.ciclo,
      },
    },
    { title: 'Envelope', kind: 'json', value: envelope(event) },
    { title: 'Attempts', kind: 'table', value: event.attempts.map(attemptView) },
    ...event.attempts.map((attempt) =>
      signatureSection(view, event, attempt, `Signature headers of attempt ${attempt.tentativa}`),
    ),
  ];
}

/**
 * The headers an attempt was sent with, signed again here with the destination's secret as the transport signs
 * (src/network/transport.ts): the timestamp is the attempt's start in Unix seconds. A `tamper` fault changed what
 * was actually sent; a destination changed since has a new secret, and then nothing can be recomputed.
 */
function signatureSection(
  view: InspectorView,
  event: WebhookEvent,
  attempt: DeliveryAttempt,
  title = 'Signature headers',
): DetailSection {
  const destination = view.world.state.webhookDestinations.get(event.companyId);
  const version = attempt.destinoVersao ?? event.destinoVersao;
  if (destination === undefined || destination.versao !== version || destination.id !== event.destinoId) {
    return {
      title,
      kind: 'text',
      value: `Signed with the secret of destination version ${version}, which a newer configuration has replaced: the headers cannot be signed again.`,
    };
  }
  const signed = signWebhook({
    secret: destination.secret,
    eventId: event.id,
    body: event.body,
    timestamp: Math.floor(attempt.iniciadaEm / 1000),
  });
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
