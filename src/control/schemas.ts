/**
 * The schemas of the controls' bodies and answers (src/control/table.ts names them in its rows). The bodies are the
 * very schemas the routes parse with. The answers are what the controls' document and the table's test check
 * against, made on first use: only the bodies serve a request, and built when the module loaded the answers were
 * 2 ms of the CLI's start before its first answer (about 200 ms), and they name the fault schemas, 5 ms more
 * (src/engine/faults.ts).
 */
import * as z from 'zod';
import { PERMISSIONS } from '../core/companies.js';
import { EVENT_KINDS } from '../core/webhooks/events.js';
import { faultInputSchema, faultViewSchema } from '../engine/faults.js';
import {
  ACTIVITY_KINDS,
  type ActivityEntry,
  type ControlActivity,
  type DeliveryActivity,
  type FindingActivity,
  type JobActivity,
  type RequestActivity,
} from '../engine/activity.js';
import { RECEIVER_CASE_FAILURES, RECEIVER_CASES, type ReceiverCaseId } from '../grading/receiver-check.js';
import { companySnapshotSchema, schemaOf as ofType, snapshotSchema } from './snapshot-schema.js';

// The bodies the routes parse with.
const permissions = z.array(z.enum(PERMISSIONS));
export const companyFlags = z.strictObject({
  name: z.string().min(1).max(120).optional(),
  subscriptionActive: z.boolean().optional(),
  surveillanceEntitled: z.boolean().optional(),
  surveillanceCapacity: z.number().int().min(0).optional(),
  analysisAllowance: z.number().int().min(0).optional(),
});
export const newCompany = companyFlags.extend({
  cnpjRoot: z.string().optional().meta({ description: '8 digits; a free one when absent.' }),
  permissions: permissions.optional().meta({ description: 'Of its first credential; all six when absent.' }),
  clock: z.enum(['shared', 'own']).optional().meta({ description: '"own": a clock of its own, moved only by /_emulator/companies/{companyId}/clock.' }),
});
export const newCredential = z.strictObject({ permissions: permissions.optional() });
export const advance = z.union(
  [
    z.strictObject({ by: z.union([z.string(), z.number()]).meta({ description: '"90s", "15m", "24h", "31d", "1h30m", or milliseconds.' }) }),
    z.strictObject({ to: z.string().meta({ description: 'An ISO 8601 date-time, not in the past.' }) }),
  ],
  'send {"by": "90s" | "15m" | "24h" | "31d" | <ms>} or {"to": "<ISO date-time>"}',
);
export const runUntilIdle = z.strictObject({ limit: z.number().int().min(1).max(10_000_000).optional().meta({ description: 'Tasks of work to run at most (default 10,000): past it, 409 limite_de_tarefas.' }) });
export const route = z.strictObject({
  from: z.string().meta({ description: 'A public https URL prefix the webhook destination may name.' }),
  to: z.string().meta({ description: 'The local URL (http://127.0.0.1:…) that gets those deliveries.' }),
});
const attributeDefinition = z.strictObject({ codigo: z.string().min(1).max(32), nome: z.string().min(1).max(200), dominio: z.array(z.string().min(1).max(200)).min(1).max(500).optional() });
export const snapshotChange = z.strictObject({
  extinguir: z.array(z.string()).max(10_000).optional(),
  adicionar: z.array(z.strictObject({ codigo: z.string(), descricao: z.string().min(1).max(500), obrigatorios: z.array(z.string()).max(100).optional() })).max(10_000).optional(),
  obrigatorios: z.record(z.string(), z.array(z.string()).max(100)).optional(),
  atributos: z.array(attributeDefinition).max(1_000).optional(),
});
/** The body of a control that takes no input (the demo's next step): none, or `{}`. */
export const noInput = z.strictObject({}, { error: () => 'takes no input (send no body, or {})' });
const checkLimits = {
  now: z.iso.datetime({ offset: true }).optional().meta({ description: "The receiver's clock, ISO 8601: the cases' timestamps are taken from it (default: see the control)." }),
  deadlineMs: z
    .number()
    .int()
    .min(1)
    .max(600_000)
    .optional()
    .meta({
      description:
        "Real time the whole check may take: at least twice the emulator's attempt time-out, which each delivery is " +
        'given (default 60000, or that if longer).',
    }),
};
export const receiverCheck = z.strictObject({
  url: z.string().meta({ description: "The receiver's http or https URL (a network route that covers it is followed)." }),
  secret: z.string().min(1).meta({ description: 'The secret the receiver verifies with.' }),
  previousSecret: z.string().min(1).optional().meta({ description: 'The secret before its last configuration change, for old-secret (a fresh one when absent).' }),
  cnpjRoot: z.string().regex(/^\d{8}$/).optional().meta({ description: "The envelope's empresa (default 00000000)." }),
  ...checkLimits,
});
export const destinationCheck = z.strictObject(checkLimits);
export const raisedEvent = z.strictObject({ dados: z.looseObject({ tipo: z.enum(EVENT_KINDS) }).meta({ description: "The event's data, as the service's own events carry it." }) });

/** What the controls answer (their types live in src/control/api.ts, src/engine and src/network), by a name the rows use. */
function answerSchemas() {
  const info = z.strictObject({ name: z.literal('catalog-emulator'), version: z.string(), now: z.string(), clockMode: z.enum(['manual', 'real']), seed: z.union([z.number(), z.string()]) });
  const createdCompany = z.strictObject({ companyId: z.string(), cnpjRoot: z.string(), token: z.string(), headOffice: z.strictObject({ id: z.string(), cnpj: z.string() }) });
  const company = z.strictObject({
    id: z.string(),
    cnpjRoot: z.string(),
    name: z.string(),
    subscriptionActive: z.boolean(),
    surveillanceEntitled: z.boolean(),
    surveillanceCapacity: z.number().int(),
    analysisAllowance: z.number().int(),
    headOfficeId: z.string(),
    createdAt: z.number().int().meta({ description: 'Virtual time of its creation, in Unix milliseconds.' }),
  });
  const clockInfo = z.strictObject({ now: z.string(), mode: z.enum(['manual', 'real']), pending: z.number().int(), deadlines: z.number().int() });
  const clockRun = z.strictObject({ now: z.string(), ran: z.number().int().meta({ description: 'Tasks run.' }) });
  const demoStep = z.strictObject({ n: z.number().int().meta({ description: 'Its order in the run, from 1.' }), title: z.string(), lines: z.array(z.string()).meta({ description: 'The narration printed while it ran.' }) });
  const demoState = z.strictObject({
    name: z.string(),
    summary: z.string(),
    steps: z.array(demoStep).meta({ description: 'The steps released so far; while the demo waits, the last is the one next releases (no lines yet).' }),
    waiting: z.boolean().meta({ description: 'Whether the demo waits for POST /_emulator/inspector/demo/next.' }),
    done: z.boolean(),
  });
  const items = <T extends z.ZodType>(item: T) => z.strictObject({ items: z.array(item) });
  const faultId = z.strictObject({ id: z.string() });
  // An empty list: z.tuple([]) would be written `prefixItems: []`, which JSON Schema 2020-12 refuses (one item at least).
  const none = z.strictObject({ items: z.array(z.never()).max(0) });
  const networkRoute = z.strictObject({ from: z.string(), to: z.string().meta({ description: 'A local URL; "(in-process handler)" for a handler given in process.' }) });
  const inboxEntry = z.strictObject({
    at: z.string(),
    companyId: z.string(),
    url: z.string(),
    headers: z.record(z.string(), z.string()),
    body: z.string().meta({ description: 'The exact bytes sent, as text.' }),
    eventId: z.string(),
    tipo: z.string(),
    tentativa: z.number().int(),
    answer: z.strictObject({ status: z.number().int() }),
  });
  const journalEntry = z.strictObject({
    at: z.string(),
    method: z.string(),
    path: z.string(),
    status: z.number().int(),
    codigo: z.string().nullable().meta({ description: "The error answer's code; null for a success." }),
    companyId: z.string().nullable(),
    idempotencyKey: z.string().nullable(),
    replayed: z.boolean(),
    requestId: z.string(),
    faultId: z.string().nullable(),
  });
  // The frames of the activity stream (src/inspector/server/activity-stream.ts): each entry's schema is checked
  // against its type (src/engine/activity.ts) by the compiler, both ways.
  const activityError = z.strictObject({ codigo: z.string(), caminho: z.string().nullable() }).nullable();
  const virtualMs = z.number().int().min(0);
  const activityEntry = ofType<ActivityEntry>()(
    z.discriminatedUnion('kind', [
      ofType<RequestActivity>()(
        journalEntry.omit({ codigo: true }).extend({ kind: z.literal('request'), error: activityError, durationMs: virtualMs }),
      ),
      ofType<ControlActivity>()(
        z.strictObject({
          kind: z.literal('control'),
          at: z.string(),
          method: z.string(),
          path: z.string(),
          status: z.number().int(),
          operation: z.string().nullable(),
          detail: z.string().nullable(),
          error: activityError,
          scope: z.enum(['company', 'shared clock', 'emulator', 'inspector']).nullable(),
          companyId: z.string().nullable(),
          faultId: z.string().nullable(),
        }),
      ),
      ofType<DeliveryActivity>()(
        z.strictObject({
          kind: z.literal('delivery'),
          at: z.string(),
          companyId: z.string(),
          eventId: z.string(),
          eventType: z.string(),
          attempt: z.number().int().min(1),
          cycle: z.number().int().min(1),
          attemptInCycle: z.number().int().min(1),
          attemptsPerCycle: z.number().int().min(1),
          url: z.string(),
          outcome: z.enum(['entregue', 'falhou', 'incerta']),
          failure: z.string().nullable(),
          status: z.number().int().nullable(),
          durationMs: virtualMs,
          nextAttemptAt: z.string().nullable(),
          eventState: z.string(),
        }),
      ),
      ofType<JobActivity>()(
        z.strictObject({
          kind: z.literal('job'),
          at: z.string(),
          task: z.string(),
          companyId: z.string().nullable(),
          subjectId: z.string().nullable(),
          fault: z.enum(['delayed', 'failed']).nullable(),
        }),
      ),
      ofType<FindingActivity>()(
        z.strictObject({
          kind: z.literal('finding'),
          at: z.string(),
          rule: z.string(),
          companyId: z.string().nullable(),
          statements: z.array(z.string()),
          message: z.string(),
          requestIds: z.array(z.string()),
          eventIds: z.array(z.string()),
          fix: z.string(),
        }),
      ),
    ]),
  );
  // A fault's near-misses (src/engine/near-misses.ts holds their TypeScript types).
  const conditions = {
    failed: z.array(z.string()).meta({ description: 'The conditions it failed, each a sentence: "method: PATCH ≠ POST".' }),
    matched: z.array(z.string()).meta({ description: 'The conditions it met.' }),
  };
  const nearMiss = z.union([
    z.strictObject({ requestId: z.string(), at: z.string(), method: z.string(), path: z.string(), status: z.number().int(), companyId: z.string().nullable(), ...conditions }).meta({ description: 'A request (an api fault).' }),
    z.strictObject({ eventId: z.string().nullable(), attempt: z.number().int().nullable(), url: z.string(), eventType: z.string(), companyId: z.string(), ...conditions }).meta({ description: 'A delivery attempt (a delivery fault).' }),
    z.strictObject({ at: z.string().nullable(), kind: z.string(), subjectId: z.string().nullable(), companyId: z.string().nullable(), ...conditions }).meta({ description: 'A run of a background job (a job fault).' }),
  ]);
  const nearMisses = z.strictObject({
    fault: faultViewSchema(),
    examined: z.number().int().min(0).meta({ description: "The occurrences since it was armed that it did not fire on, of those kept (the journal's last 10,000 requests; the last 1,000 deliveries or job runs checked while a fault of that target was armed)." }),
    passedOver: z.number().int().min(0).meta({ description: 'The matching occurrences its probability draw passed over.' }),
    candidates: z.array(nearMiss).meta({ description: 'The closest ten: the most conditions met first, then the most recent.' }),
  });
  // The report (src/grading/report.ts holds its TypeScript types).
  const finding = z.strictObject({
    at: z.string().meta({ description: 'Virtual time of what broke the rule.' }),
    rule: z.string().meta({ description: 'The rule (the README lists them).' }),
    companyId: z.string().nullable(),
    statements: z.array(z.string()).meta({ description: 'The spec statements or header rules it comes from.' }),
    message: z.string(),
    requestIds: z.array(z.string()),
    eventIds: z.array(z.string()),
    fix: z.string(),
  });
  const count = z.number().int().min(0);
  const coverage = z.strictObject({
    score: z.strictObject({ exercised: count, listed: count }).meta({ description: 'Behaviours of the table seen, out of those it lists.' }),
    behaviours: z.array(z.strictObject({ id: z.string(), area: z.enum(['requests', 'deliveries', 'clock']), what: z.string(), statements: z.array(z.string()), seen: count, control: z.string().meta({ description: 'The control that produces it.' }) })),
    gaps: z.array(z.string()).meta({ description: 'What was never exercised, each with the control that produces it.' }),
    operations: z.array(
      z.strictObject({
        id: z.string(),
        method: z.string(),
        path: z.string(),
        calls: count,
        statuses: z.array(z.strictObject({ status: z.number().int(), count })),
        codes: z.array(z.strictObject({ codigo: z.string(), count })),
        unreceived: z.array(z.number().int()).meta({ description: 'Statuses openapi.json documents for it, never received.' }),
      }),
    ),
    notCalled: z.array(z.string()),
    unrouted: count,
    faults: z.array(z.strictObject({ target: z.string(), effect: z.string(), fired: count })),
    inboxAttempts: count,
  });
  const report = z.strictObject({
    findings: z.array(finding),
    findingsDropped: count,
    coverage,
    receiver: z.strictObject({ target: z.string(), passed: count, failed: count, failing: z.array(z.string()) }).optional(),
  });
  const regulatoryView = z.strictObject({
    id: z.string(),
    publicadoEm: z.string(),
    ncms: z.array(z.strictObject({ codigo: z.string(), descricao: z.string(), extinta: z.boolean(), extintaDesde: z.string().nullable(), obrigatorios: z.array(z.string()) })),
    atributos: z.array(z.strictObject({ codigo: z.string(), nome: z.string(), dominio: z.array(z.string()).nullable() })),
  });
  const published = z.strictObject({ id: z.string(), publicadoEm: z.string(), afetadas: z.array(z.string()), atributosAlterados: z.array(z.string()) });
  // The inspector's answers (src/inspector/wire.ts holds the same as TypeScript types, for its page).
  const timelineItem = z.strictObject({
    id: z.string().meta({ description: 'Stable: req:<requestId>, evt:<eventId>, att:<eventId>:<n>, job:<n>, ctl:<n>, fnd:<n>, task:<n>.' }),
    kind: z.enum(['request', 'event', 'attempt', 'job', 'task', 'deadline', 'control', 'finding']),
    at: z.string().meta({ description: 'Virtual time, ISO 8601.' }),
    title: z.string(),
    status: z.number().int().nullable(),
    tone: z.enum(['ok', 'error', 'warn', 'pending', 'info']),
    tags: z.array(z.string()),
    detail: z.boolean().meta({ description: 'Whether the item detail has more than the item (headers, bodies, attempts).' }),
  });
  const timeline = z.strictObject({
    companyId: z.string(),
    now: z.string().meta({ description: "The company's clock (its own, or the shared one)." }),
    clock: z.enum(['shared', 'own']),
    items: z.array(timelineItem).meta({ description: 'Newest first.' }),
    nextBefore: z.string().nullable().meta({ description: 'The `before` of the next (older) page; null at the end.' }),
    ahead: z.array(timelineItem).meta({ description: 'Pending tasks and deadlines of the company, soonest first (200 at most).' }),
    history: z
      .strictObject({
        entries: z.number().int().meta({ description: 'Entries the history holds now, for every company.' }),
        bytes: z.number().int().meta({ description: 'Bytes it counts for them.' }),
        maxEntries: z.number().int().meta({ description: 'Its bound of entries (createEmulator({ inspector: { historyEntries } })); 0: no history.' }),
        maxBytes: z.number().int().meta({ description: 'Its bound of bytes (inspector.historyBytes).' }),
        dropped: z.number().int().meta({ description: "This company's entries dropped at the bounds so far, with those about every company." }),
      })
      .meta({ description: "The emulator's history, one ring for every company: a request it dropped keeps its journal line on the timeline." }),
  });
  const recordRow = z.strictObject({
    kind: z.enum(['establishment', 'catalog', 'product', 'webhook', 'event']),
    id: z.string(),
    title: z.string(),
    state: z.string().nullable(),
    version: z.number().int().nullable(),
    links: z.array(z.strictObject({ kind: z.enum(['establishment', 'catalog', 'product', 'webhook', 'event', 'attempt']), id: z.string() })).meta({ description: 'catalog → establishment, establishment → catalog, product → catalogs, event → destination and attempts (<eventId>:<n>).' }),
    value: z.unknown().meta({ description: 'The record as the API presents it; secrets masked.' }),
  });
  const recordList = z.strictObject({ items: z.array(recordRow), total: z.number().int() });
  const inspectorRecords = z.strictObject({ companyId: z.string(), establishments: recordList, catalogs: recordList, products: recordList, webhook: recordRow.nullable(), events: recordList });
  const inspectorPanels = z.strictObject({ faults: z.array(faultViewSchema()), inbox: z.array(inboxEntry), routes: z.array(networkRoute), report });
  const itemDetail = z.strictObject({
    item: timelineItem,
    sections: z.array(z.strictObject({ title: z.string(), kind: z.enum(['json', 'headers', 'text', 'table']), value: z.unknown() })).meta({ description: 'Tokens and secrets masked.' }),
  });
  const receiverCase = z.strictObject({
    id: z.enum(RECEIVER_CASES.map((c) => c.id) as [ReceiverCaseId, ...ReceiverCaseId[]]),
    expect: z.enum(['accept', 'reject']),
    statement: z.string(),
    sent: z.strictObject({ headers: z.record(z.string(), z.string()).meta({ description: 'As sent, names in lower case.' }), bodyBytes: z.number().int(), bodySha256: z.string() }),
    status: z.number().int().nullable().meta({ description: 'The answer\'s status; null when no status line came.' }),
    failure: z
      .enum(RECEIVER_CASE_FAILURES)
      .nullable()
      .meta({ description: 'Null for a complete answer; not-sent, deadline: not judged, the deadline passed first.' }),
    cause: z.string().nullable(),
    answer: z.string().meta({ description: "The first bytes of the answer's body (at most 2 KiB)." }),
    accepted: z.boolean().meta({ description: 'A completed 2xx.' }),
    ms: z.number().int(),
    verdict: z.enum(['pass', 'fail']),
    fix: z.string().nullable(),
  });
  const receiverCheckResult = z.strictObject({
    receiver: z.strictObject({ url: z.string(), via: z.string().nullable() }),
    clock: z.string(),
    oldSecret: z.enum(['previous', 'given', 'fresh']),
    timeoutMs: z
      .number()
      .int()
      .meta({ description: "The attempt time-out each delivery was given (the emulator's webhooks.attemptTimeout)." }),
    cases: z.array(receiverCase),
    passed: z.number().int(),
    failed: z.number().int(),
    reachable: z.boolean().meta({ description: 'False when no case got an answer.' }),
    judged: z.boolean().meta({ description: 'False when the deadline passed before a case was judged (it fails).' }),
    notChecked: z.array(z.strictObject({ statement: z.string(), reason: z.string() })),
  });
  return {
    info,
    createdCompany,
    company,
    companies: items(company),
    token: z.strictObject({ token: z.string() }),
    clockInfo,
    clockRun,
    faultInput: faultInputSchema(),
    faults: items(faultViewSchema()),
    faultId,
    none,
    networkRoute,
    networkRoutes: items(networkRoute),
    regulatoryView,
    published,
    inbox: items(inboxEntry),
    eventId: z.strictObject({ eventId: z.string() }),
    journal: items(journalEntry),
    journalCount: z.strictObject({ count: z.number().int().min(0) }),
    nearMisses,
    report,
    demoState,
    snapshot: snapshotSchema,
    companySnapshot: companySnapshotSchema,
    timeline,
    itemDetail,
    inspectorRecords,
    inspectorPanels,
    receiverCheck: receiverCheckResult,
    // The frames of the activity stream, by the event that carries them.
    activityOpen: z.strictObject({ companyId: z.string().nullable(), kinds: z.array(z.enum(ACTIVITY_KINDS)) }),
    activityEntry,
    activityEnd: z.strictObject({ reason: z.enum(['closed', 'behind']) }),
    // Named schemas the answers above hold: the document names them too.
    faultView: faultViewSchema(),
    inboxEntry,
    journalEntry,
  };
}

type Schemas = ReturnType<typeof answerSchemas>;
/** A schema of an answer or a documented body, by its name in the rows. */
export type SchemaName = keyof Schemas;

let schemas: Schemas | undefined;
/** The schema `name` names, made on first use. */
export const schemaOf = (name: SchemaName): z.ZodType => (schemas ??= answerSchemas())[name];

/**
 * The schemas the controls' document names (`#/components/schemas/<name>`), each used by more than one control; the
 * others are written in place.
 */
export const namedSchemas = (): Readonly<Record<string, z.ZodType>> => {
  const all = (schemas ??= answerSchemas());
  return {
    EmulatorInfo: all.info,
    CreatedCompany: all.createdCompany,
    CompanyFlags: all.company,
    ClockInfo: all.clockInfo,
    ClockRun: all.clockRun,
    FaultInput: all.faultInput,
    Fault: all.faultView,
    InboxEntry: all.inboxEntry,
    JournalEntry: all.journalEntry,
    NetworkRoute: all.networkRoute,
    Snapshot: all.snapshot,
    CompanySnapshot: all.companySnapshot,
    ReceiverCheck: all.receiverCheck,
  };
};
