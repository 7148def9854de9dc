/**
 * The /_emulator controls as a table (DESIGN §6): each route's method and path, what it does, the zod schema of
 * its body (the very schema routes.ts parses it with), its query parameters, its success answer and the errors it
 * answers. routes.ts registers the handlers; src/openapi/controls.ts generates the controls' OpenAPI document from
 * this table; a test proves the table and the routes hono registers are the same list, so neither can drift.
 */
import * as z from 'zod';
import { PERMISSIONS } from '../core/companies.js';
import { EVENT_KINDS } from '../core/webhooks/events.js';
import { faultInputSchema, faultViewSchema } from '../engine/faults.js';
import { companySnapshotSchema, snapshotSchema } from './snapshot-schema.js';

// The bodies routes.ts parses with.
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
export const raisedEvent = z.strictObject({ dados: z.looseObject({ tipo: z.enum(EVENT_KINDS) }).meta({ description: "The event's data, as the service's own events carry it." }) });

type ControlMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type ControlTag = 'Emulator' | 'Companies' | 'Clock' | 'Faults' | 'Network' | 'Regulatory' | 'Inbox' | 'Journal' | 'State' | 'Documents' | 'Inspector';

interface ControlQuery {
  readonly name: string;
  readonly description: string;
}

interface ControlAnswer {
  readonly description: string;
  /** JSON by this schema; a media type for a non-JSON answer; nothing for a 204. */
  readonly body?: z.ZodType | { readonly mediaType: string };
}

export interface ControlRoute {
  readonly method: ControlMethod;
  /** Under /_emulator, as hono writes it (`:companyId`). */
  readonly path: string;
  /** operationId. */
  readonly id: string;
  readonly summary: string;
  readonly tag: ControlTag;
  /** The body's schema; absent: the control takes none (`{}` or no body). */
  readonly body?: z.ZodType;
  /** The body's byte limit when it is not the 1 MiB of every control. */
  readonly bodyLimit?: string;
  readonly query?: readonly ControlQuery[];
  /** The success answers by status (one but for DELETE /network/routes). */
  readonly success: Readonly<Record<number, ControlAnswer>>;
  /** The errors of this control beyond those of every one (401 with a control token, the writes' 400/413/415), each with its codes. */
  readonly errors: Readonly<Record<number, string>>;
}

const COMPANY_FILTER: ControlQuery = { name: 'companyId', description: "Only this company's entries (once; any other parameter is refused, 422 at query.<name>)." };
const NO_COMPANY = 'empresa_nao_encontrada: no company has this id.';
const BAD_FILTER = 'valor_invalido: an unknown parameter, companyId twice, or not a company id (caminho names it).';
const BAD_BODY = 'valor_invalido: a field of the body (caminho names it).';
const NO_OWN_CLOCK = 'relogio_proprio_inexistente: the company is on the shared clock (move /_emulator/clock).';
const CLOCK_ERRORS = { 409: 'limite_de_tarefas: more tasks than the limit.', 422: 'valor_invalido: a duration or instant the clock cannot take (caminho names it).', 503: 'servico_indisponivel: a reset, restore or close replaced the clock while it moved.' };
const NO_DEMO = 'demo_ausente: no demo runs on this emulator.';
const SNAPSHOT_LIMIT = 'maxSnapshotBytes (createEmulator option; 256 MiB by default)';

/**
 * The answers' schemas, the schemas the document names and the table of every control, built on first use (the
 * controls' document, and the test that holds the routes to the table): only the bodies above serve a request.
 * Built when the module loaded, they were 2 ms of the CLI's start before its first answer (about 200 ms), and they
 * name the fault schemas, 5 ms more (src/engine/faults.ts).
 */
function controlTable() {
  // What the controls answer (their types live in src/control/api.ts, src/engine and src/network).
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
    companyId: z.string().nullable(),
    idempotencyKey: z.string().nullable(),
    replayed: z.boolean(),
    requestId: z.string(),
    faultId: z.string().nullable(),
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
    id: z.string().meta({ description: 'Stable: req:<requestId>, evt:<eventId>, att:<eventId>:<n>, job:<n>, ctl:<n>, task:<n>.' }),
    kind: z.enum(['request', 'event', 'attempt', 'job', 'task', 'deadline', 'control']),
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
  });
  const itemDetail = z.strictObject({
    item: timelineItem,
    sections: z.array(z.strictObject({ title: z.string(), kind: z.enum(['json', 'headers', 'text', 'table']), value: z.unknown() })).meta({ description: 'Tokens and secrets masked.' }),
  });
  const schemas: Readonly<Record<string, z.ZodType>> = {
    EmulatorInfo: info,
    CreatedCompany: createdCompany,
    CompanyFlags: company,
    ClockInfo: clockInfo,
    ClockRun: clockRun,
    FaultInput: faultInputSchema(),
    Fault: faultViewSchema(),
    InboxEntry: inboxEntry,
    JournalEntry: journalEntry,
    NetworkRoute: networkRoute,
    Snapshot: snapshotSchema,
    CompanySnapshot: companySnapshotSchema,
  };

  /** The clock controls, the shared clock's under /clock and a company's own under /companies/:companyId/clock. */
  function clockRoutes(prefix: string, own: boolean): ControlRoute[] {
    const name = own ? 'OwnClock' : 'Clock';
    const whose = own ? "the company's own clock" : 'the shared clock';
    const missing: Record<number, string> = own ? { 404: `${NO_COMPANY} ${NO_OWN_CLOCK}` } : {};
    return [
      { method: 'GET', path: prefix, id: `get${name}`, summary: `Now, mode, pending work and deadlines of ${whose}`, tag: 'Clock', success: { 200: { description: 'The clock.', body: clockInfo } }, errors: missing },
      {
        method: 'POST',
        path: `${prefix}/advance`,
        id: `advance${name}`,
        summary: `Move ${whose} forward, running every task due, each at its own virtual time`,
        tag: 'Clock',
        body: advance,
        success: { 200: { description: 'Where the clock is now and how many tasks ran.', body: clockRun } },
        errors: { ...missing, ...CLOCK_ERRORS },
      },
      {
        method: 'POST',
        path: `${prefix}/run-until-idle`,
        id: `runUntilIdle${own ? 'OwnClock' : ''}`,
        summary: `Run the service's work on ${whose} until none is left (never a deadline)`,
        tag: 'Clock',
        body: runUntilIdle,
        success: { 200: { description: 'Where the clock is now and how many tasks ran.', body: clockRun } },
        errors: { ...missing, ...CLOCK_ERRORS },
      },
    ];
  }

  const routes: readonly ControlRoute[] = [
    { method: 'GET', path: '/', id: 'getEmulatorInfo', summary: 'Version, now, clock mode and seed', tag: 'Emulator', success: { 200: { description: 'The emulator.', body: info } }, errors: {} },
    {
      method: 'POST',
      path: '/reset',
      id: 'resetEmulator',
      summary: 'Back to a fresh emulator: clock at its start, only the initial companies and configured routes, no faults or journal',
      tag: 'Emulator',
      success: { 200: { description: 'The emulator after the reset.', body: info } },
      errors: {},
    },
    {
      method: 'GET',
      path: '/openapi.json',
      id: 'getApiDocument',
      summary: "The service API's OpenAPI 3.1 document (the package's openapi.json)",
      tag: 'Documents',
      success: { 200: { description: 'The document, generated once per process.', body: { mediaType: 'application/json' } } },
      errors: {},
    },
    {
      method: 'GET',
      path: '/openapi.controls.json',
      id: 'getControlsDocument',
      summary: "The controls' OpenAPI 3.1 document: this one (the package's openapi.controls.json)",
      tag: 'Documents',
      success: { 200: { description: 'The document, generated once per process.', body: { mediaType: 'application/json' } } },
      errors: {},
    },
    {
      method: 'GET',
      path: '/docs',
      id: 'getDocsPage',
      summary: 'A page that renders both documents (Swagger UI, served from the package: no network needed)',
      tag: 'Documents',
      success: { 200: { description: 'The HTML page.', body: { mediaType: 'text/html' } } },
      errors: {},
    },
    {
      method: 'GET',
      path: '/docs/assets/:name',
      id: 'getDocsAsset',
      summary: "A script, style sheet or icon of the docs page, from the package's swagger-ui-dist",
      tag: 'Documents',
      success: { 200: { description: 'The file, with its media type.', body: { mediaType: '*/*' } } },
      errors: { 404: 'rota_nao_encontrada: not a file of the page.' },
    },
    {
      method: 'GET',
      path: '/ui',
      id: 'getInspectorPage',
      summary: "The inspector: a page to watch and drive the companies' timelines (served without the control token; it asks for it)",
      tag: 'Documents',
      success: { 200: { description: 'The HTML page; its data comes from /_emulator/inspector/….', body: { mediaType: 'text/html' } } },
      errors: {},
    },
    {
      method: 'GET',
      path: '/ui/assets/:name',
      id: 'getInspectorAsset',
      summary: "The inspector page's script or style sheet (app.js, app.css), built into the package's dist/inspector",
      tag: 'Documents',
      success: { 200: { description: 'The file, with its media type.', body: { mediaType: '*/*' } } },
      errors: { 404: 'rota_nao_encontrada: not a file of the page.', 503: 'servico_indisponivel: the page is not built (npm run build).' },
    },
    { method: 'GET', path: '/companies', id: 'listCompanies', summary: 'The companies and their flags (no tokens)', tag: 'Companies', success: { 200: { description: 'Those on the shared clock, then those on clocks of their own.', body: items(company) } }, errors: {} },
    {
      method: 'POST',
      path: '/companies',
      id: 'createCompany',
      summary: 'Create a company with its head office and a credential',
      tag: 'Companies',
      body: newCompany,
      success: { 201: { description: 'The company, its head office and its first token.', body: createdCompany } },
      errors: { 409: 'raiz_cnpj_duplicada: another company has this CNPJ root.', 422: `raiz_cnpj_invalida: cnpjRoot is not 8 digits. ${BAD_BODY}` },
    },
    {
      method: 'PATCH',
      path: '/companies/:companyId',
      id: 'updateCompany',
      summary: "Change a company's flags (suspend a subscription, cut capacity)",
      tag: 'Companies',
      body: companyFlags,
      success: { 200: { description: 'The company.', body: company } },
      errors: { 404: NO_COMPANY, 422: BAD_BODY },
    },
    {
      method: 'POST',
      path: '/companies/:companyId/credentials',
      id: 'addCredential',
      summary: 'Add a credential with these permissions (all six when absent)',
      tag: 'Companies',
      body: newCredential,
      success: { 201: { description: 'Its bearer token.', body: z.strictObject({ token: z.string() }) } },
      errors: { 404: NO_COMPANY, 422: BAD_BODY },
    },
    {
      method: 'DELETE',
      path: '/companies/:companyId',
      id: 'removeCompany',
      summary: 'Remove a company: its records, credentials and scheduled tasks',
      tag: 'Companies',
      success: { 204: { description: 'Removed.' } },
      errors: { 404: NO_COMPANY },
    },
    {
      method: 'POST',
      path: '/companies/:companyId/reset',
      id: 'resetCompany',
      summary: 'The company back as it was created (same id, CNPJ root, flags, head office and first credential), nothing else',
      tag: 'Companies',
      success: { 200: { description: 'What its creation answered.', body: createdCompany } },
      errors: { 404: NO_COMPANY, 409: 'criacao_desconhecida: restored from a snapshot that predates the company.' },
    },
    {
      method: 'GET',
      path: '/companies/:companyId/state',
      id: 'getCompanyState',
      summary: "One company's records and tasks",
      tag: 'State',
      success: { 200: { description: 'A catalog-emulator/company snapshot.', body: companySnapshotSchema } },
      errors: { 404: NO_COMPANY },
    },
    {
      method: 'PUT',
      path: '/companies/:companyId/state',
      id: 'restoreCompanyState',
      summary: "Put a company's snapshot in place of its records and tasks (checked whole first)",
      tag: 'State',
      body: companySnapshotSchema,
      bodyLimit: SNAPSHOT_LIMIT,
      success: { 200: { description: 'The emulator after the restore.', body: info } },
      errors: { 404: NO_COMPANY, 422: 'valor_invalido: not a snapshot this emulator could serve (caminho names the field).' },
    },
    ...clockRoutes('/clock', false),
    ...clockRoutes('/companies/:companyId/clock', true),
    { method: 'GET', path: '/faults', id: 'listFaults', summary: 'The faults in force', tag: 'Faults', query: [COMPANY_FILTER], success: { 200: { description: 'The faults, each with its hits and the firings left.', body: items(faultViewSchema()) } }, errors: { 404: NO_COMPANY, 422: BAD_FILTER } },
    {
      method: 'POST',
      path: '/faults',
      id: 'addFault',
      summary: 'Inject a fault: an API answer, a webhook delivery or a job run',
      tag: 'Faults',
      body: faultInputSchema(),
      success: { 201: { description: 'Its id (GET lists it whole).', body: faultId } },
      errors: { 422: 'valor_invalido: not a fault, or one that could never fire (caminho names the field).' },
    },
    { method: 'DELETE', path: '/faults', id: 'clearFaults', summary: 'Remove every fault', tag: 'Faults', query: [COMPANY_FILTER], success: { 200: { description: 'None left.', body: none } }, errors: { 404: NO_COMPANY, 422: BAD_FILTER } },
    { method: 'DELETE', path: '/faults/:id', id: 'removeFault', summary: 'Remove one fault', tag: 'Faults', success: { 204: { description: 'Removed.' } }, errors: { 404: 'falha_nao_encontrada: no fault has this id.' } },
    { method: 'GET', path: '/network/routes', id: 'listNetworkRoutes', summary: 'The delivery routes', tag: 'Network', success: { 200: { description: 'The routes.', body: items(networkRoute) } }, errors: {} },
    {
      method: 'POST',
      path: '/network/routes',
      id: 'addNetworkRoute',
      summary: 'Send deliveries for a public webhook URL prefix to a local URL',
      tag: 'Network',
      body: route,
      success: { 201: { description: 'The route, normalized.', body: networkRoute } },
      errors: { 422: BAD_BODY },
    },
    {
      method: 'DELETE',
      path: '/network/routes',
      id: 'removeNetworkRoutes',
      summary: 'Remove the route from a prefix, or every route',
      tag: 'Network',
      query: [{ name: 'from', description: 'The prefix of the route to remove (204); absent: every route (200).' }],
      success: { 200: { description: 'Without from: every route removed, none left.', body: none }, 204: { description: 'With from: that route removed.' } },
      errors: { 404: 'rota_nao_encontrada: no route from this prefix.' },
    },
    { method: 'GET', path: '/regulatory', id: 'getRegulatoryReference', summary: 'The regulatory snapshot in force: every NCM and attribute definition', tag: 'Regulatory', success: { 200: { description: 'The snapshot.', body: regulatoryView } }, errors: {} },
    {
      method: 'POST',
      path: '/regulatory/snapshots',
      id: 'publishRegulatorySnapshot',
      summary: 'Publish a new regulatory snapshot (extinguish or add NCMs, change required attributes), triggering the surveillance executions it affects',
      tag: 'Regulatory',
      body: snapshotChange,
      success: { 201: { description: 'The snapshot published and what it affects.', body: published } },
      errors: { 422: BAD_BODY },
    },
    { method: 'GET', path: '/inbox', id: 'listInbox', summary: 'Deliveries to URLs no route covers, as the built-in receiver got them', tag: 'Inbox', query: [COMPANY_FILTER], success: { 200: { description: 'Oldest first.', body: items(inboxEntry) } }, errors: { 404: NO_COMPANY, 422: BAD_FILTER } },
    { method: 'DELETE', path: '/inbox', id: 'clearInbox', summary: 'Drop the deliveries received', tag: 'Inbox', query: [COMPANY_FILTER], success: { 200: { description: 'None left.', body: none } }, errors: { 404: NO_COMPANY, 422: BAD_FILTER } },
    {
      method: 'POST',
      path: '/companies/:companyId/events',
      id: 'raiseEvent',
      summary: 'Raise a webhook event of any kind, delivered like the service’s own',
      tag: 'Inbox',
      body: raisedEvent,
      success: { 201: { description: 'The event raised.', body: z.strictObject({ eventId: z.string() }) } },
      errors: { 404: `${NO_COMPANY} destino_nao_encontrado: the company has no webhook destination.`, 422: BAD_BODY },
    },
    { method: 'GET', path: '/requests', id: 'listRequests', summary: 'The last 10,000 API requests (never a token)', tag: 'Journal', query: [COMPANY_FILTER], success: { 200: { description: 'Oldest first.', body: items(journalEntry) } }, errors: { 404: NO_COMPANY, 422: BAD_FILTER } },
    { method: 'DELETE', path: '/requests', id: 'clearRequests', summary: 'Drop the journal', tag: 'Journal', query: [COMPANY_FILTER], success: { 200: { description: 'None left.', body: none } }, errors: { 404: NO_COMPANY, 422: BAD_FILTER } },
    { method: 'GET', path: '/companies/:companyId/faults', id: 'listCompanyFaults', summary: "One company's faults", tag: 'Faults', success: { 200: { description: 'The faults whose match.companyId is this company.', body: items(faultViewSchema()) } }, errors: { 404: NO_COMPANY } },
    {
      method: 'POST',
      path: '/companies/:companyId/faults',
      id: 'addCompanyFault',
      summary: 'Inject a fault that matches only this company',
      tag: 'Faults',
      body: faultInputSchema(),
      success: { 201: { description: 'Its id (GET lists it whole).', body: faultId } },
      errors: { 404: NO_COMPANY, 422: 'valor_invalido: not a fault, one that could never fire, or one naming another company (caminho names the field).' },
    },
    { method: 'DELETE', path: '/companies/:companyId/faults', id: 'clearCompanyFaults', summary: "Remove one company's faults", tag: 'Faults', success: { 200: { description: 'None left.', body: none } }, errors: { 404: NO_COMPANY } },
    { method: 'DELETE', path: '/companies/:companyId/faults/:id', id: 'removeCompanyFault', summary: 'Remove one of its faults', tag: 'Faults', success: { 204: { description: 'Removed.' } }, errors: { 404: `${NO_COMPANY} falha_nao_encontrada: the company has no fault with this id.` } },
    { method: 'GET', path: '/companies/:companyId/inbox', id: 'listCompanyInbox', summary: "Deliveries of one company's events", tag: 'Inbox', success: { 200: { description: 'Oldest first.', body: items(inboxEntry) } }, errors: { 404: NO_COMPANY } },
    { method: 'DELETE', path: '/companies/:companyId/inbox', id: 'clearCompanyInbox', summary: "Drop one company's deliveries", tag: 'Inbox', success: { 200: { description: 'None left.', body: none } }, errors: { 404: NO_COMPANY } },
    { method: 'GET', path: '/companies/:companyId/journal', id: 'listCompanyRequests', summary: "The requests made with one company's credentials", tag: 'Journal', success: { 200: { description: 'Oldest first.', body: items(journalEntry) } }, errors: { 404: NO_COMPANY } },
    { method: 'DELETE', path: '/companies/:companyId/journal', id: 'clearCompanyRequests', summary: "Drop one company's journal entries", tag: 'Journal', success: { 200: { description: 'None left.', body: none } }, errors: { 404: NO_COMPANY } },
    { method: 'GET', path: '/inspector/demo', id: 'getDemo', summary: 'The demo running on this emulator (catalog-emulator demo NAME --ui): its steps so far and whether it waits', tag: 'Inspector', success: { 200: { description: 'The run.', body: demoState } }, errors: { 404: NO_DEMO } },
    {
      method: 'POST',
      path: '/inspector/demo/next',
      id: 'nextDemoStep',
      summary: 'Release the step the demo waits at; answers once that step has run',
      tag: 'Inspector',
      body: z.strictObject({}),
      bodyLimit: '1 KiB',
      success: { 200: { description: 'The run after the step (waiting at the next one, or done).', body: demoState } },
      errors: { 404: NO_DEMO, 409: 'demo_nao_aguardando: the demo waits at no step (a step is running, or it has ended).', 422: 'valor_invalido: next takes no input (no body, or {}).' },
    },
    { method: 'GET', path: '/state', id: 'getState', summary: 'The whole service state: records, idempotency store, clock, tasks, random sources', tag: 'State', success: { 200: { description: 'A catalog-emulator/state snapshot.', body: snapshotSchema } }, errors: {} },
    {
      method: 'PUT',
      path: '/state',
      id: 'restoreState',
      summary: 'Put a snapshot in place of the whole state (checked whole first; a refused one changes nothing)',
      tag: 'State',
      body: snapshotSchema,
      bodyLimit: SNAPSHOT_LIMIT,
      success: { 200: { description: 'The emulator after the restore.', body: info } },
      errors: { 422: 'valor_invalido: not a snapshot this emulator could serve (caminho names the field).' },
    },
    {
      method: 'GET',
      path: '/inspector/companies/:companyId/timeline',
      id: 'getInspectorTimeline',
      summary: "One page of a company's timeline: requests, webhook events and attempts, job runs and control calls, newest first, and the tasks ahead",
      tag: 'Inspector',
      query: [
        { name: 'limit', description: `Items per page: 1 to 1000 (default 200).` },
        { name: 'before', description: 'The nextBefore of the previous page: the page after it.' },
      ],
      success: { 200: { description: 'The page.', body: timeline } },
      errors: { 404: NO_COMPANY, 422: 'valor_invalido: a limit out of range, a cursor no page gave, an unknown or repeated parameter (caminho names it).' },
    },
    {
      method: 'GET',
      path: '/inspector/companies/:companyId/items/:itemId',
      id: 'getInspectorItem',
      summary: 'One timeline item with its detail: request and answer (headers, bodies), event envelope, attempts and signature headers; tokens and secrets masked',
      tag: 'Inspector',
      success: { 200: { description: 'The item and its sections.', body: itemDetail } },
      errors: { 404: `${NO_COMPANY} item_nao_encontrado: no item of the company has this id.`, 422: 'valor_invalido: any query parameter.' },
    },
    {
      method: 'GET',
      path: '/inspector/stream',
      id: 'streamInspector',
      summary: "A company's timeline live, as server-sent events: item, clock and reset frames",
      tag: 'Inspector',
      query: [{ name: 'companyId', description: 'The company to follow (required).' }],
      success: { 200: { description: 'text/event-stream: `event: item|clock|reset` and `data: <JSON>` frames (a clock frame first), and a comment every 15 s.', body: { mediaType: 'text/event-stream' } } },
      errors: { 404: NO_COMPANY, 422: 'valor_invalido: companyId missing, repeated, or another parameter.' },
    },
  ];
  return { schemas, routes };
}

let table: ReturnType<typeof controlTable> | undefined;

/**
 * The schemas the controls' document names (`#/components/schemas/<name>`): each is used by more than one control.
 * The others are written in place.
 */
export const controlSchemas = (): Readonly<Record<string, z.ZodType>> => (table ??= controlTable()).schemas;
/** Every control, in the order routes.ts registers them. */
export const controlRoutes = (): readonly ControlRoute[] => (table ??= controlTable()).routes;
