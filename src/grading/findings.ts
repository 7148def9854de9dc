/**
 * Findings on the client's behaviour: the mistakes an integration most often makes that the emulator sees and the
 * integrator cannot (a retry under a new key after a lost answer, a stale ETag sent again, a receiver that accepts a
 * tampered delivery…). One rule per row of RULES, each with the statements it comes from, what triggers it and the
 * fix; a rule reads the facts the engine hands the grading (src/grading/report.ts) as they happen, and remembers
 * between them only what it needs, bounded. Pure: no clock, no I/O; the real time a rule reads is handed in.
 */
import { isoString } from '../core/time.js';
import { opaqueTag } from '../core/versioning.js';
import type { FindingActivity, ReceivedDelivery } from '../engine/activity.js';
import type { JournalRecord } from '../engine/journal.js';
import type { TransportOutcome } from '../network/transport.js';

/** A finding as the report gives it: the activity stream's entry without its kind. */
export type ClientFinding = Omit<FindingActivity, 'kind'>;

/** What a rule's finding says of itself; the report adds the rule, time, company and fix. */
export interface Draft {
  readonly message: string;
  readonly requestIds?: readonly string[];
  readonly eventIds?: readonly string[];
  /** The statements of this finding when they are more precise than the rule's (the operation's own). */
  readonly statements?: readonly string[];
  /**
   * What the finding is about, for a rule that tells one finding of it and then adds to it (slow-receiver: an
   * event, whose unanswered attempts it lists): a draft whose key a finding of its rule and company was made with
   * replaces what that finding says, and is told no second time.
   */
  readonly key?: string;
}

/** An operation of the API as the grading knows it (read off the API's operation table by the emulator that makes it). */
export interface GradedOperation {
  /** Its operationId in openapi.json. */
  readonly id: string;
  readonly method: string;
  /** As the spec writes it: `/v1/produtos/{id}`. */
  readonly path: string;
  /** The statuses openapi.json documents for it (successes and errors), ascending. */
  readonly statuses: readonly number[];
}

/** What a rule may ask besides the fact: the real time (ms), an operation by id, the journal's earlier requests. */
export interface RuleContext {
  realNow(): number;
  operation(id: string): GradedOperation | undefined;
  /** The request id of the latest request of `companyId` before `requestId` that sent idempotency-key `key`, if the journal still has it. */
  earlierWithKey(companyId: string, key: string, requestId: string): string | undefined;
}

/**
 * A bounded memory of one rule: at most `capacity` entries, the oldest forgotten first. Keys begin with the
 * company id, so a company's reset or removal forgets its entries (a whole reset or restore, all of them): what a
 * reset replaced is not the client's mistake to be judged against.
 */
export class Recent<V> {
  readonly #entries = new Map<string, V>();
  constructor(private readonly capacity = 1000) {}

  get size(): number {
    return this.#entries.size;
  }
  get(key: string): V | undefined {
    return this.#entries.get(key);
  }
  has(key: string): boolean {
    return this.#entries.has(key);
  }
  set(key: string, value: V): void {
    // Deleted first so that a key set again counts as the newest.
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.capacity) this.#entries.delete(this.#entries.keys().next().value!);
  }
  /** The entry, removed. */
  take(key: string): V | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined) this.#entries.delete(key);
    return value;
  }
  deleteWhere(test: (key: string, value: V) => boolean): void {
    for (const [key, value] of this.#entries) if (test(key, value)) this.#entries.delete(key);
  }
  entries(): IterableIterator<[string, V]> {
    return this.#entries.entries();
  }
  /** Forgets one company's entries, or (null) every entry. */
  forget(companyId: string | null): void {
    if (companyId === null) this.#entries.clear();
    else this.deleteWhere((key) => key.startsWith(`${companyId}\n`));
  }
}

/** The key of a company's memory entry: its id first (see Recent.forget). */
export const keyOf = (companyId: string, ...parts: readonly string[]): string => [companyId, ...parts].join('\n');

/** One rule of the table. `M` is what it remembers (none: `undefined`). */
interface Rule<M extends Recent<unknown> | undefined> {
  readonly id: string;
  /** The spec statements or header rules it comes from. */
  readonly statements: readonly string[];
  /** What triggers it, as the table of docs/grading.md says. */
  readonly trigger: string;
  readonly fix: string;
  readonly memory: () => M;
  request?(memory: M, request: JournalRecord, context: RuleContext): Draft | undefined;
  received?(memory: M, delivery: ReceivedDelivery): Draft | undefined;
}

/** A row of the table: TypeScript infers its memory from `memory`. */
const rule = <M extends Recent<unknown> | undefined>(row: Rule<M>): Rule<M> => row;
const none = (): undefined => undefined;

/** A complete 2xx: what confirms an attempt (spec: WH-EVT-55). */
const accepted = (outcome: TransportOutcome | null): boolean =>
  outcome !== null && outcome.kind === 'response' && outcome.status >= 200 && outcome.status < 300;
/** A complete answer other than 2xx: the receiver said no. */
const refused = (outcome: TransportOutcome | null): boolean =>
  outcome !== null && outcome.kind === 'response' && !(outcome.status >= 200 && outcome.status < 300);

/** `METHOD /path (request id)`: how a finding names a request. */
const named = (r: JournalRecord): string => `${r.method} ${r.path} (request ${r.requestId})`;
const tags = (ifMatch: readonly string[]): string => ifMatch.join(', ');

/**
 * Where a client reads the ETag an If-Match operation needs (the resource it guards, or for a catalog's deletion its
 * impact preview), by the operation as IF_MATCH_OPERATIONS writes it; the parameters are the operation's own.
 */
export const FRESH_ETAG_READS: Readonly<Record<string, string>> = {
  'PATCH /v1/catalogos/{id}': '/v1/catalogos/{id}',
  'DELETE /v1/catalogos/{id}': '/v1/catalogos/{id}/impacto-exclusao',
  'PUT /v1/catalogos/{id}/produtos/{produto_id}': '/v1/produtos/{produto_id}',
  'DELETE /v1/catalogos/{id}/produtos/{produto_id}': '/v1/produtos/{produto_id}',
  'PATCH /v1/produtos/{id}': '/v1/produtos/{id}',
  'PATCH /v1/estabelecimentos/{id}': '/v1/estabelecimentos/{id}',
  'DELETE /v1/estabelecimentos/{id}': '/v1/estabelecimentos/{id}',
  'POST /v1/estabelecimentos/{id}/correcoes-cnpj': '/v1/estabelecimentos/{id}',
  'PATCH /v1/empresa/vigilancia': '/v1/empresa/vigilancia',
  'PUT /v1/webhook': '/v1/webhook',
  'DELETE /v1/webhook': '/v1/webhook',
  'POST /v1/webhook/testes': '/v1/webhook',
  'POST /v1/webhook/eventos/{id}/reenvios': '/v1/webhook',
  'POST /v1/catalogos/ingestoes/{id}/aplicacao': '/v1/catalogos/ingestoes/{id}',
};

/** The statement that refuses each operation's write without an idempotency-key, where the spec numbers one. */
const KEY_REQUIRED_BY: Readonly<Record<string, string>> = {
  'PATCH /v1/catalogos/{id}': 'CAT-18',
  'DELETE /v1/catalogos/{id}': 'CAT-33',
  'PUT /v1/catalogos/{id}/produtos/{produto_id}': 'CAT-41',
  'POST /v1/estabelecimentos': 'EST-05',
  'PATCH /v1/estabelecimentos/{id}': 'EST-19',
  'PATCH /v1/produtos/{id}': 'PROD-08',
  'PATCH /v1/empresa/vigilancia': 'SURV-05',
  'POST /v1/analises': 'ANA-03',
  'POST /v1/estabelecimentos/{id}/correcoes-cnpj': 'CNPJ-06',
  'POST /v1/catalogos/ingestoes': 'ING-01',
  'PUT /v1/webhook': 'WH-DEST-07',
  'DELETE /v1/webhook': 'WH-DEST-26',
  'POST /v1/webhook/testes': 'WH-EVT-25',
  'POST /v1/webhook/eventos/{id}/reenvios': 'WH-EVT-33',
};

/** The statements a tampered delivery's receiver breaks, by what the fault corrupted. */
const TAMPER_STATEMENTS = {
  signature: ['SIG-02', 'SIG-03', 'SIG-07'],
  body: ['SIG-03', 'SIG-07'],
  timestamp: ['SIG-08'],
} as const;

/** The values of a path's parameters, by the template's names; undefined when the path does not fit it. */
export function paramsOf(template: string, path: string): Record<string, string> | undefined {
  const names = template.split('/');
  const values = path.split('/');
  if (names.length !== values.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, name] of names.entries()) {
    const value = values[i]!;
    if (name.startsWith('{')) params[name.slice(1, -1)] = value;
    else if (name !== value) return undefined;
  }
  return params;
}

/** `template` with its parameters filled in. */
const filled = (template: string, params: Readonly<Record<string, string>>): string =>
  template.replace(/\{(\w+)\}/g, (_, name: string) => params[name] ?? '');

/** A path as compared: uuids are accepted in either case (spec: CONV-04). */
const samePath = (path: string): string => path.toLowerCase();
/** A read: a request that changes nothing, and takes no idempotency-key. */
const isRead = (r: JournalRecord): boolean => r.method === 'GET' || r.method === 'HEAD';

/** The unanswered attempts a slow-receiver finding lists one by one; those after them it counts. */
export const SLOW_ATTEMPTS_LISTED = 10;

export const RULES = [
  rule({
    id: 'new-key-after-lost-answer',
    statements: ['REQ-02', 'REQ-03'],
    trigger:
      "A write whose answer was lost (a `loseResponse` fault, or a request a `delayMs` fault held that the client gave up on: its connection closed, or in process its Request's signal aborted) sent again, same method, path and body, under a new idempotency-key.",
    fix: 'Retry a write whose answer you did not get with the same idempotency-key: the service then answers its original result and applies it once.',
    memory: () => new Recent<{ readonly requestId: string; readonly key: string | null }>(),
    request(lost, r) {
      if (r.fingerprint === null || r.companyId === null || (lost.size === 0 && !r.lost)) return undefined;
      const key = keyOf(r.companyId, r.fingerprint);
      const earlier = lost.size === 0 ? undefined : lost.take(key);
      if (r.lost) lost.set(key, { requestId: r.requestId, key: r.idempotencyKey });
      if (earlier === undefined || earlier.key === r.idempotencyKey) return undefined;
      return {
        message: `${named(r)} repeated request ${earlier.requestId}, whose answer was lost, under a new idempotency-key (${earlier.key} → ${r.idempotencyKey}): the service took it for a new request and ran it again.`,
        requestIds: [earlier.requestId, r.requestId],
      };
    },
  }),
  rule({
    id: 'key-reused-for-other-request',
    statements: ['REQ-03'],
    trigger: 'The 422 `idempotencia_reutilizada`: an idempotency-key sent again with another method, path or body.',
    fix: 'Generate a new idempotency-key for each new request; reuse one only to repeat that same request.',
    memory: none,
    request(_, r, context) {
      if (r.codigo !== 'idempotencia_reutilizada' || r.companyId === null || r.idempotencyKey === null)
        return undefined;
      const earlier = context.earlierWithKey(r.companyId, r.idempotencyKey, r.requestId);
      return {
        message: `${named(r)} sent idempotency-key ${r.idempotencyKey}, already used${earlier === undefined ? '' : ` by request ${earlier}`} for a different request: refused 422 idempotencia_reutilizada.`,
        requestIds: earlier === undefined ? [r.requestId] : [earlier, r.requestId],
      };
    },
  }),
  rule({
    id: 'retry-before-retry-after',
    statements: ['ERR-10', 'RFC 9110 Retry-After'],
    trigger:
      "The same request repeated before the Retry-After of its 429 or 503 had passed on the emulator's clock (on " +
      'a manual clock, a wait in real time counts too): the same method and path (its ids in any case), and for a ' +
      'write the same idempotency-key (a write under another key is another request).',
    fix: 'Wait at least the Retry-After seconds of a 429 or 503 before repeating the request (a write with the same idempotency-key).',
    memory: () =>
      new Recent<{
        readonly requestId: string;
        readonly status: number;
        readonly at: number;
        readonly realAt: number;
        readonly waitMs: number;
      }>(),
    request(waits, r, context) {
      if (r.companyId === null || (waits.size === 0 && r.retryAfter === null)) return undefined;
      // The resource and the request: a read of another resource, or another write to the same path (another
      // product created, under its own key), is no repeat. A write's key is its last part: a path, whatever it
      // holds, cannot make two requests one.
      const path = samePath(r.path);
      const write = isRead(r) ? [] : [r.idempotencyKey ?? ''];
      const key = keyOf(r.companyId, r.method, path, ...write);
      const wait = waits.size === 0 ? undefined : waits.take(key);
      if (r.retryAfter !== null && r.retryAfter > 0 && (r.status === 429 || r.status === 503)) {
        waits.set(key, {
          requestId: r.requestId,
          status: r.status,
          at: r.at,
          realAt: context.realNow(),
          waitMs: r.retryAfter * 1000,
        });
      }
      if (wait === undefined) return undefined;
      const waited = Math.max(r.at - wait.at, context.realNow() - wait.realAt);
      if (waited >= wait.waitMs) return undefined;
      return {
        message: `${named(r)} came ${seconds(waited)} after the ${wait.status} of request ${wait.requestId}, whose Retry-After asked for ${seconds(wait.waitMs)}.`,
        requestIds: [wait.requestId, r.requestId],
      };
    },
  }),
  rule({
    id: 'stale-etag-retried',
    statements: ['REQ-05'],
    trigger:
      'After a 412 on a resource, an ETag it refused sent again in If-Match (alone or among others, strong or weak) ' +
      'without a read of the resource in between.',
    fix: 'After a 412, read the resource again, reapply your change to what it returns and send its new ETag (with a new idempotency-key).',
    // Each tag a 412 refused, by its opaque part (W/"a" is "a" sent weakly): one entry per tag, so that a list
    // holding it is found by a look-up per tag it sends.
    memory: () => new Recent<{ readonly requestId: string; readonly companyId: string; readonly read: string }>(),
    request(stale, r, context) {
      if (r.companyId === null) return undefined;
      const refused412 = r.status === 412 && r.codigo === 'precondicao_falhou' && r.ifMatch !== null;
      if (stale.size === 0 && !refused412) return undefined;
      let draft: Draft | undefined;
      for (const tag of stale.size === 0 ? [] : (r.ifMatch ?? [])) {
        const earlier = stale.get(keyOf(r.companyId, opaqueTag(tag)));
        if (earlier === undefined) continue;
        const list = r.ifMatch!;
        const sent = list.length === 1 ? `${tag} again, the ETag` : `${tags(list)}, whose ${tag} is the ETag`;
        const refusal = `request ${earlier.requestId} had been refused with 412`;
        const message = `${named(r)} sent If-Match ${sent} ${refusal}, without reading ${earlier.read} in between.`;
        draft = { message, requestIds: [earlier.requestId, r.requestId] };
        break;
      }
      if (refused412) {
        const read = freshRead(r, context);
        const refusal = read === undefined ? undefined : { requestId: r.requestId, companyId: r.companyId, read };
        if (refusal !== undefined) for (const tag of r.ifMatch!) stale.set(keyOf(r.companyId, opaqueTag(tag)), refusal);
      } else if (isRead(r) && r.status < 300) {
        const path = samePath(r.path);
        stale.deleteWhere((_, entry) => entry.companyId === r.companyId && samePath(entry.read) === path);
      }
      return draft;
    },
  }),
  rule({
    id: 'missing-idempotency-key',
    statements: ['REQ-02'],
    trigger: 'A write refused with 400 `chave_idempotencia_ausente`: sent without an idempotency-key.',
    fix: 'Send an idempotency-key on every state-changing request: a new one per request, the same one to repeat it.',
    memory: none,
    request(_, r, context) {
      if (r.codigo !== 'chave_idempotencia_ausente') return undefined;
      const operation = r.operation === null ? undefined : context.operation(r.operation);
      const statement = operation === undefined ? undefined : KEY_REQUIRED_BY[`${operation.method} ${operation.path}`];
      return {
        message: `${named(r)} was sent without an idempotency-key: refused 400 chave_idempotencia_ausente.`,
        requestIds: [r.requestId],
        ...(statement === undefined ? {} : { statements: [statement] }),
      };
    },
  }),
  rule({
    id: 'accepted-tampered-delivery',
    statements: ['SIG-02', 'SIG-03', 'SIG-07', 'SIG-08'],
    trigger:
      'The receiver answered 2xx to a delivery the `tamper` delivery fault corrupted (its signature, its body or its timestamp).',
    fix: 'Verify Service-Signature on the raw body before parsing it (HMAC-SHA256 of "timestamp.eventId.body" with the whole secret, compared in constant time), refuse a Service-Timestamp more than 5 minutes off, and answer non-2xx to a delivery that fails.',
    memory: none,
    received(_, d) {
      const { tamper, outcome } = d.answer;
      if (tamper === null || !accepted(outcome)) return undefined;
      return {
        message: `The receiver answered ${status(outcome)} to attempt ${d.tentativa} of event ${d.eventId}, whose ${tamper} a tamper fault had corrupted: it accepted a delivery it cannot have verified.`,
        eventIds: [d.eventId],
        statements: TAMPER_STATEMENTS[tamper],
      };
    },
  }),
  rule({
    id: 'slow-receiver',
    statements: ['WH-EVT-56'],
    trigger:
      'The receiver did not answer an attempt within the delivery time-out (`webhooks.attemptTimeout`, 15 s by ' +
      'default): the attempt ends `incerta` and is retried. One finding per event, told at its first such attempt, ' +
      'listing each of them.',
    fix: 'Answer 2xx as soon as the delivery is verified and its event id recorded, and do the work afterwards (a queue), well within the time-out.',
    // Each event's unanswered attempts so far (the first SLOW_ATTEMPTS_LISTED as attempt and start, the rest
    // counted): its one finding is made again from them at each, and replaces what it said (see Draft.key).
    memory: () => new Recent<{ readonly listed: (readonly [tentativa: number, at: number])[]; more: number }>(),
    received(events, d) {
      if (d.answer.outcome.kind !== 'no_answer') return undefined;
      const key = keyOf(d.companyId, d.eventId);
      const slow = events.get(key) ?? { listed: [], more: 0 };
      if (slow.listed.length < SLOW_ATTEMPTS_LISTED) slow.listed.push([d.tentativa, d.at]);
      else slow.more++;
      events.set(key, slow);
      const count = slow.listed.length + slow.more;
      const each = slow.listed.map(([tentativa, at]) => `${tentativa} (started ${isoString(at)})`).join(', ');
      const rest = slow.more === 0 ? '' : `, and ${slow.more} more`;
      const attempts = count === 1 ? `attempt ${each}` : `${count} attempts: ${each}${rest}`;
      const within = `within the delivery time-out (${seconds(d.timeoutMs)})`;
      const message = `The receiver gave no complete answer ${within} to event ${d.eventId}, ${attempts}.`;
      return { message, eventIds: [d.eventId], key: d.eventId };
    },
  }),
  rule({
    id: 'duplicate-refused',
    statements: ['SIG-11', 'WH-EVT-50'],
    trigger:
      'A redelivered event (a later attempt, a resend, or the copy a `duplicate` fault sent) answered non-2xx after the receiver had once accepted it.',
    fix: 'Deduplicate by the event id (Service-Event-Id): answer 2xx to an event already processed, without applying it again.',
    // The events the receiver accepted, and whether a refusal of one was told already (once per event is enough:
    // a refused redelivery is retried, and refused again, until its cycle ends).
    memory: () => new Recent<'accepted' | 'told'>(10_000),
    received(events, d) {
      const { outcome, copy, tamper } = d.answer;
      const key = keyOf(d.companyId, d.eventId);
      const before = events.get(key);
      if (before === undefined && (accepted(outcome) || accepted(copy))) events.set(key, 'accepted');
      // A tampered copy is refused rightly, however often the event was accepted before.
      if (tamper !== null || before === 'told') return undefined;
      const which =
        before === 'accepted' && refused(outcome)
          ? { answer: outcome, what: `attempt ${d.tentativa}` }
          : accepted(outcome) && refused(copy)
            ? { answer: copy, what: `the second copy of attempt ${d.tentativa}` }
            : undefined;
      if (which === undefined) return undefined;
      events.set(key, 'told');
      return {
        message: `The receiver answered ${status(which.answer)} to ${which.what} of event ${d.eventId}, after it had accepted that event: a redelivery must be answered 2xx.`,
        eventIds: [d.eventId],
      };
    },
  }),
] as const;

/** The read that gives the ETag the If-Match of `r` needed, filled with r's parameters; undefined for another operation. */
function freshRead(r: JournalRecord, context: RuleContext): string | undefined {
  const operation = r.operation === null ? undefined : context.operation(r.operation);
  if (operation === undefined) return undefined;
  const read = FRESH_ETAG_READS[`${operation.method} ${operation.path}`];
  const params = read === undefined ? undefined : paramsOf(operation.path, r.path);
  return read === undefined || params === undefined ? undefined : filled(read, params);
}

function status(outcome: TransportOutcome | null): string {
  return outcome !== null && 'status' in outcome ? String(outcome.status) : 'nothing';
}

function seconds(ms: number): string {
  return `${Math.round(ms) / 1000} s`;
}

/** The rules with their memories, judging facts as they come: what the grading of one emulator holds. */
export class Judge {
  readonly #memories = RULES.map((row) => row.memory() as Recent<unknown> | undefined);

  /** The findings `request` makes, as drafts with their rule; undefined (nothing allocated) when it makes none. */
  request(request: JournalRecord, context: RuleContext): Found[] | undefined {
    let found: Found[] | undefined;
    for (let i = 0; i < RULES.length; i++) {
      const row = RULES[i]! as RuleRow;
      if (row.request === undefined) continue;
      const draft = row.request(this.#memories[i], request, context);
      if (draft !== undefined) (found ??= []).push({ rule: row, draft });
    }
    return found;
  }

  /** The findings a routed receiver's answer makes; undefined when it makes none. */
  received(delivery: ReceivedDelivery): Found[] | undefined {
    let found: Found[] | undefined;
    for (let i = 0; i < RULES.length; i++) {
      const row = RULES[i]! as RuleRow;
      if (row.received === undefined) continue;
      const draft = row.received(this.#memories[i], delivery);
      if (draft !== undefined) (found ??= []).push({ rule: row, draft });
    }
    return found;
  }

  /** Forgets what the rules remember of one company, or (null) of every company. */
  forget(companyId: string | null): void {
    for (const memory of this.#memories) memory?.forget(companyId);
  }
}

/** A row as the judge runs it: its memory's type forgotten. */
type RuleRow = Rule<Recent<unknown> | undefined>;
/** A finding the judge made: its rule, and what it says of itself. */
export interface Found {
  readonly rule: RuleRow;
  readonly draft: Draft;
}
