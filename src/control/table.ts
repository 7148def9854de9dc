/**
 * The /_emulator controls, one row each (row.ts says what a row holds): method and path, what it acts on, its body
 * and query, its answers and errors, and what it does, a call of the in-process control API (api.ts) or of the
 * inspector's entry. Each row is its route (routes.ts), its operation in openapi.controls.json and on the docs page
 * (src/openapi/controls.ts), and its name and notes in the activity stream (activity-log.ts). The order is the
 * routes' (a path that could match two routes goes to the first) and the document's within a path.
 */
import * as z from 'zod';
import type { FaultInput } from '../engine/faults.js';
import type { EventData } from '../core/webhooks/events.js';
import { activityAnswer, assetAnswer, demoAnswer, itemAnswer, nextDemoAnswer, pageAnswer, recordsAnswer, streamAnswer, timelineAnswer } from '../inspector/server/routes.js';
import type { ClockControls, Controls } from './api.js';
import { ControlError } from './control-error.js';
import { docsAsset, docsPage } from './docs.js';
import { control, NO_CONTENT, type Control, type ControlCall, type Notes } from './row.js';
import { advance, companyFlags, destinationCheck, newCompany, newCredential, noInput, raisedEvent, receiverCheck, route, runUntilIdle, snapshotChange } from './schemas.js';
import type { ReceiverCheck } from '../grading/receiver-check.js';
import type { ControlSettings } from '../engine/config.js';
import { JOURNAL_FILTER_FIELDS, type JournalFilter } from '../engine/journal.js';

const NO_COMPANY = 'empresa_nao_encontrada: no company has this id.';
const BAD_FILTER = 'valor_invalido: an unknown parameter, companyId twice, or not a company id (caminho names it).';
const BAD_BODY = 'valor_invalido: a field of the body (caminho names it).';
const NO_OWN_CLOCK = 'relogio_proprio_inexistente: the company is on the shared clock (move /_emulator/clock).';
const CLOCK_ERRORS = { 409: 'limite_de_tarefas: more tasks than the limit.', 422: 'valor_invalido: a duration or instant the clock cannot take (caminho names it).', 503: 'servico_indisponivel: a reset, restore or close replaced the clock while it moved.' };
const NO_DEMO = 'demo_ausente: no demo runs on this emulator.';
const COMPANY_FILTER = { name: 'companyId', description: "Only this company's entries (once; any other parameter is refused, 422 at query.<name>)." } as const;
/** Near-misses whose fault's path glob would take more steps than a query may: refused, as a journal query. */
const NEAR_MISSES_OVER_BUDGET =
  "consulta_excede_orcamento: matching the fault's glob against the requests (or delivery URLs) since it was armed " +
  'would take more steps than a query may.';
/** A query whose path glob would take more steps than its budget (docs/journal.md): refused, never run partly. */
const OVER_BUDGET =
  'consulta_excede_orcamento: matching the path glob would take more steps than a query may (caminho: query.path).';
const BAD_JOURNAL_FILTER =
  'valor_invalido: an unknown parameter, one given twice, or a value its filter does not accept (caminho names it). ' +
  OVER_BUDGET;

/** The journal's filters (JournalFilter) as query parameters: each once, all of them holding. */
const JOURNAL_QUERY = JOURNAL_FILTER_FIELDS.map((f) => ({ name: f.name, description: `Only ${f.means}: ${f.accepts}.` }));
/** The same, of one company's journal: its company is the path's. */
const COMPANY_JOURNAL_QUERY = JOURNAL_QUERY.filter((q) => q.name !== 'companyId');

/** The journal's filters on the inspector's timeline: a company's, but its `limit` (the timeline's is a page's size). */
const TIMELINE_FILTER_QUERY = COMPANY_JOURNAL_QUERY.filter((q) => q.name !== 'limit').map((q) => ({ name: q.name, description: `${q.description} Method, path, status, codigo, replayed and faultId keep the requests and control calls they match, and nothing else; from and to keep every item in range.` }));
const timelineFilterOf = (query: Readonly<Record<string, string | undefined>>): JournalFilter => ({ ...journalFilterOf(query), limit: undefined });

/**
 * A query of the journal's controls as the JournalFilter the in-process control takes: the digits of a field read as
 * a number, and `true` or `false` of one read as a boolean, become that; any other text stays text, which the
 * filter refuses with what the field accepts, as it refuses the same in process.
 */
function journalFilterOf(query: Readonly<Record<string, string | undefined>>): JournalFilter {
  const filter: Record<string, unknown> = {};
  for (const { name, text } of JOURNAL_FILTER_FIELDS) {
    const given = query[name];
    if (given === undefined) continue;
    filter[name] = text === 'number' && /^\d{1,15}$/.test(given) ? Number(given) : text === 'boolean' && (given === 'true' || given === 'false') ? given === 'true' : given;
  }
  return filter as JournalFilter;
}

/** A whole snapshot is read up to the emulator's own limit, not the 1 MiB of the other controls. */
const SNAPSHOT_LIMIT = {
  bytes: (settings: ControlSettings) => settings.maxSnapshotBytes,
  shown: 'maxSnapshotBytes (createEmulator option; 256 MiB by default)',
  tooLarge: (bytes: number) => `The snapshot exceeds this emulator's limit of ${bytes} bytes (createEmulator({ maxSnapshotBytes }) sets it).`,
};

const jsonText = (text: string) => new Response(text, { headers: { 'content-type': 'application/json' } });
const ran = (result: { now: Date; ran: number }) => ({ now: result.now.toISOString(), ran: result.ran });
const ranWords = (answer: { now: string; ran: number }): Notes => ({ detail: `now ${answer.now}, ran ${answer.ran} task${answer.ran === 1 ? '' : 's'}` });
const companyWords = (answer: { companyId: string; cnpjRoot: string }): Notes => ({ detail: `company ${answer.companyId} (${answer.cnpjRoot})` });

/** A fault just added, as `fault flt_1: api path=/v1/empresa → status=503, once`, and the company its match keeps it to. */
function faultWords(id: string, emu: Controls): Notes {
  const fault = emu.faults.list().find((f) => f.id === id);
  if (fault === undefined) return { detail: `fault ${id}`, faultId: id };
  const pairs = (object: object) => Object.entries(object).map(([name, value]) => `${name}=${typeof value === 'string' ? value : JSON.stringify(value)}`).join(' ');
  const times = fault.times === null ? 'until removed' : fault.times === 1 ? 'once' : `${fault.times} times`;
  const chance = fault.probability === undefined ? '' : `, probability ${fault.probability}`;
  return { detail: `fault ${id}: ${fault.target} ${pairs(fault.match) || 'any'} → ${pairs(fault.effect)}, ${times}${chance}`, faultId: id, companyId: fault.match.companyId ?? null };
}

/** The three controls of a clock: the shared one under /clock, a company's own under /companies/:companyId/clock. */
function clockControls<const Get extends string, const Advance extends string, const Run extends string>(
  prefix: string,
  ids: { readonly get: Get; readonly advance: Advance; readonly runUntilIdle: Run },
  clockOf: (call: ControlCall) => ClockControls,
) {
  const own = prefix !== '/clock';
  const whose = own ? "the company's own clock" : 'the shared clock';
  const scope = own ? 'company' : 'shared clock';
  const missing: Record<number, string> = own ? { 404: `${NO_COMPANY} ${NO_OWN_CLOCK}` } : {};
  return [
    control({
      method: 'GET',
      path: prefix,
      id: ids.get,
      summary: `Now, mode, pending work and deadlines of ${whose}`,
      tag: 'Clock',
      scope,
      success: { 200: { description: 'The clock.', body: 'clockInfo' } },
      errors: missing,
      run: (call) => {
        const info = clockOf(call).info();
        return { now: info.now.toISOString(), mode: info.mode, pending: info.pending, deadlines: info.deadlines };
      },
    }),
    control({
      method: 'POST',
      path: `${prefix}/advance`,
      id: ids.advance,
      summary: `Move ${whose} forward, running every task due, each at its own virtual time`,
      tag: 'Clock',
      scope,
      body: { schema: advance },
      success: { 200: { description: 'Where the clock is now and how many tasks ran.', body: 'clockRun' } },
      errors: { ...missing, ...CLOCK_ERRORS },
      run: async (call) => {
        const clock = clockOf(call);
        return ran('by' in call.body ? await clock.advance(call.body.by) : await clock.advanceTo(call.body.to));
      },
      describe: ranWords,
    }),
    control({
      method: 'POST',
      path: `${prefix}/run-until-idle`,
      id: ids.runUntilIdle,
      summary: `Run the service's work on ${whose} until none is left (never a deadline)`,
      tag: 'Clock',
      scope,
      body: { schema: runUntilIdle },
      success: { 200: { description: 'Where the clock is now and how many tasks ran.', body: 'clockRun' } },
      errors: { ...missing, ...CLOCK_ERRORS },
      run: async (call) => ran(await clockOf(call).runUntilIdle(call.body)),
      describe: ranWords,
    }),
  ] as const;
}

/** A check's options as the in-process control takes them: `now` as Unix ms. */
function checkOptions<B extends { readonly now?: string | undefined }>(body: B): Omit<B, 'now'> & { now?: number } {
  const { now, ...rest } = body;
  return now === undefined ? rest : { ...rest, now: Date.parse(now) };
}

const checkWords = (answer: ReceiverCheck): Notes => ({ detail: `receiver ${answer.receiver.url}: ${answer.passed} passed, ${answer.failed} failed${answer.reachable ? '' : ', unreachable'}` });

/** The company a path names (the routes of a company-scoped row have it). */
const companyOf = (call: ControlCall): string => (call.params as { readonly companyId?: string }).companyId ?? '';

export const CONTROLS = [
  control({
    method: 'GET',
    path: '/',
    id: 'getEmulatorInfo',
    summary: 'Version, now, clock mode and seed',
    tag: 'Emulator',
    scope: 'emulator',
    success: { 200: { description: 'The emulator.', body: 'info' } },
    errors: {},
    run: ({ emu }) => emu.info(),
  }),
  control({
    method: 'POST',
    path: '/reset',
    id: 'resetEmulator',
    summary: 'Back to a fresh emulator: clock at its start, only the initial companies and configured routes, no faults or journal',
    tag: 'Emulator',
    scope: 'emulator',
    success: { 200: { description: 'The emulator after the reset.', body: 'info' } },
    errors: {},
    run: ({ emu }) => {
      emu.reset();
      return emu.info();
    },
    describe: (answer) => ({ detail: `now ${answer.now}` }),
  }),
  control({
    method: 'GET',
    path: '/openapi.json',
    id: 'getApiDocument',
    summary: "The service API's OpenAPI 3.1 document: the package's openapi.json, naming this server as its server",
    tag: 'Documents',
    scope: 'emulator',
    success: { 200: { description: 'The document, generated once per process.', body: { mediaType: 'application/json' } } },
    errors: {},
    run: ({ documents, request }) => jsonText(documents.text('api', new URL(request.url).origin)),
  }),
  control({
    method: 'GET',
    path: '/openapi.controls.json',
    id: 'getControlsDocument',
    summary: "The controls' OpenAPI 3.1 document, this one: the package's openapi.controls.json, naming this server as its server",
    tag: 'Documents',
    scope: 'emulator',
    success: { 200: { description: 'The document, generated once per process.', body: { mediaType: 'application/json' } } },
    errors: {},
    run: ({ documents, request }) => jsonText(documents.text('controls', new URL(request.url).origin)),
  }),
  control({
    method: 'GET',
    path: '/docs',
    id: 'getDocsPage',
    summary: 'A page that renders both documents (Swagger UI, served from the package: no network needed; served without the control token, it asks for it)',
    tag: 'Documents',
    scope: 'emulator',
    open: true,
    success: { 200: { description: 'The HTML page.', body: { mediaType: 'text/html' } } },
    errors: {},
    run: () => docsPage(),
  }),
  control({
    method: 'GET',
    path: '/docs/assets/:name',
    id: 'getDocsAsset',
    summary: "A script, style sheet or icon of the docs page, from the package's swagger-ui-dist",
    tag: 'Documents',
    scope: 'emulator',
    open: true,
    success: { 200: { description: 'The file, with its media type.', body: { mediaType: '*/*' } } },
    errors: { 404: 'rota_nao_encontrada: not a file of the page.' },
    run: async ({ params }) => (await docsAsset(params.name)) ?? notFound(`The docs page has no file ${params.name}.`, 'path.name'),
  }),
  control({
    method: 'GET',
    path: '/ui',
    id: 'getInspectorPage',
    summary: "The inspector: a page to watch and drive the companies' timelines (served without the control token; it asks for it)",
    tag: 'Documents',
    scope: 'inspector',
    open: true,
    success: { 200: { description: 'The HTML page; its data comes from /_emulator/inspector/….', body: { mediaType: 'text/html' } } },
    errors: {},
    run: ({ activity }) => pageAnswer(activity),
  }),
  control({
    method: 'GET',
    path: '/ui/assets/:name',
    id: 'getInspectorAsset',
    summary: "The inspector page's script or style sheet (app.js, app.css), built into the package's dist/inspector",
    tag: 'Documents',
    scope: 'inspector',
    open: true,
    query: [{ name: 'v', description: "The build's hash the page names the file with: asked for by it, the file may be kept for a year." }],
    success: { 200: { description: 'The file, with its media type.', body: { mediaType: '*/*' } } },
    errors: { 404: 'rota_nao_encontrada: not a file of the page.', 503: 'servico_indisponivel: the page is not built (npm run build).' },
    run: ({ params, query }) => assetAnswer(params.name, query.v),
  }),
  control({
    method: 'GET',
    path: '/companies',
    id: 'listCompanies',
    summary: 'The companies and their flags (no tokens)',
    tag: 'Companies',
    scope: 'emulator',
    success: { 200: { description: 'Those on the shared clock, then those on clocks of their own.', body: 'companies' } },
    errors: {},
    run: ({ emu }) => ({ items: emu.companies.list() }),
  }),
  control({
    method: 'POST',
    path: '/companies',
    id: 'createCompany',
    summary: 'Create a company with its head office and a credential',
    tag: 'Companies',
    scope: 'emulator',
    body: { schema: newCompany },
    success: { 201: { description: 'The company, its head office and its first token.', body: 'createdCompany' } },
    errors: { 409: 'raiz_cnpj_duplicada: another company has this CNPJ root.', 422: `raiz_cnpj_invalida: cnpjRoot is not 8 digits. ${BAD_BODY}` },
    run: ({ emu, body }) => emu.companies.create(body),
    describe: companyWords,
  }),
  control({
    method: 'PATCH',
    path: '/companies/:companyId',
    id: 'updateCompany',
    summary: "Change a company's flags (suspend a subscription, cut capacity)",
    tag: 'Companies',
    scope: 'company',
    body: { schema: companyFlags },
    success: { 200: { description: 'The company.', body: 'company' } },
    errors: { 404: NO_COMPANY, 422: BAD_BODY },
    run: ({ emu, params, body }) => emu.companies.update(params.companyId, body),
  }),
  control({
    method: 'POST',
    path: '/companies/:companyId/credentials',
    id: 'addCredential',
    summary: 'Add a credential with these permissions (all six when absent)',
    tag: 'Companies',
    scope: 'company',
    body: { schema: newCredential },
    success: { 201: { description: 'Its bearer token.', body: 'token' } },
    errors: { 404: NO_COMPANY, 422: BAD_BODY },
    run: ({ emu, params, body }) => emu.companies.addCredential(params.companyId, body.permissions),
  }),
  control({
    method: 'DELETE',
    path: '/companies/:companyId',
    id: 'removeCompany',
    summary: 'Remove a company: its records, credentials and scheduled tasks',
    tag: 'Companies',
    scope: 'company',
    success: { 204: { description: 'Removed.' } },
    errors: { 404: NO_COMPANY },
    run: ({ emu, params }) => {
      emu.companies.remove(params.companyId);
      return NO_CONTENT;
    },
  }),
  control({
    method: 'POST',
    path: '/companies/:companyId/reset',
    id: 'resetCompany',
    summary: 'The company back as it was created (same id, CNPJ root, flags, head office and first credential), nothing else',
    tag: 'Companies',
    scope: 'company',
    success: { 200: { description: 'What its creation answered.', body: 'createdCompany' } },
    errors: { 404: NO_COMPANY, 409: 'criacao_desconhecida: restored from a snapshot that predates the company.' },
    run: ({ emu, params }) => emu.companies.reset(params.companyId),
    describe: companyWords,
  }),
  control({
    method: 'GET',
    path: '/companies/:companyId/state',
    id: 'getCompanyState',
    summary: "One company's records and tasks",
    tag: 'State',
    scope: 'company',
    success: { 200: { description: 'A catalog-emulator/company snapshot.', body: 'companySnapshot' } },
    errors: { 404: NO_COMPANY },
    run: ({ emu, params }) => emu.companies.snapshot(params.companyId),
  }),
  control({
    method: 'PUT',
    path: '/companies/:companyId/state',
    id: 'restoreCompanyState',
    summary: "Put a company's snapshot in place of its records and tasks (checked whole first)",
    tag: 'State',
    scope: 'company',
    body: { schema: z.unknown(), shown: 'companySnapshot', limit: SNAPSHOT_LIMIT },
    success: { 200: { description: 'The emulator after the restore.', body: 'info' } },
    errors: { 404: NO_COMPANY, 422: 'valor_invalido: not a snapshot this emulator could serve (caminho names the field).' },
    run: ({ emu, params, body }) => {
      emu.companies.restore(params.companyId, body);
      return emu.info();
    },
    describe: (answer) => ({ detail: `now ${answer.now}` }),
  }),
  ...clockControls('/clock', { get: 'getClock', advance: 'advanceClock', runUntilIdle: 'runUntilIdle' }, ({ emu }) => emu.clock),
  ...clockControls('/companies/:companyId/clock', { get: 'getOwnClock', advance: 'advanceOwnClock', runUntilIdle: 'runUntilIdleOwnClock' }, (call) => call.emu.companies.clock(companyOf(call))),
  control({
    method: 'GET',
    path: '/faults',
    id: 'listFaults',
    summary: 'The faults in force',
    tag: 'Faults',
    scope: 'emulator',
    query: [COMPANY_FILTER],
    success: { 200: { description: 'The faults, each with its hits and the firings left.', body: 'faults' } },
    errors: { 404: NO_COMPANY, 422: BAD_FILTER },
    run: ({ emu, query }) => ({ items: emu.faults.list(query) }),
  }),
  control({
    method: 'POST',
    path: '/faults',
    id: 'addFault',
    summary: 'Inject a fault: an API answer, a webhook delivery or a job run',
    tag: 'Faults',
    scope: 'emulator',
    // The fault registry checks the fault whole, saying what each field accepts.
    body: { schema: z.unknown(), shown: 'faultInput' },
    success: { 201: { description: 'Its id (GET lists it whole).', body: 'faultId' } },
    errors: { 422: 'valor_invalido: not a fault, or one that could never fire (caminho names the field).' },
    run: ({ emu, body }) => emu.faults.add(body as FaultInput),
    describe: (answer, { emu }) => faultWords(answer.id, emu),
  }),
  control({
    method: 'DELETE',
    path: '/faults',
    id: 'clearFaults',
    summary: 'Remove every fault',
    tag: 'Faults',
    scope: 'emulator',
    query: [COMPANY_FILTER],
    success: { 200: { description: 'None left.', body: 'none' } },
    errors: { 404: NO_COMPANY, 422: BAD_FILTER },
    run: ({ emu, query }) => {
      emu.faults.clear(query);
      return { items: [] };
    },
  }),
  control({
    method: 'DELETE',
    path: '/faults/:id',
    id: 'removeFault',
    summary: 'Remove one fault',
    tag: 'Faults',
    scope: 'emulator',
    success: { 204: { description: 'Removed.' } },
    errors: { 404: 'falha_nao_encontrada: no fault has this id.' },
    run: ({ emu, params }) => {
      if (!emu.faults.remove(params.id)) throw new ControlError(404, 'falha_nao_encontrada', `No fault ${params.id}; GET /_emulator/faults lists them.`, 'path.id');
      return NO_CONTENT;
    },
    describe: (_, { params }) => ({ faultId: params.id }),
  }),
  control({
    method: 'GET',
    path: '/faults/:id/near-misses',
    id: 'getFaultNearMisses',
    summary: 'Why an armed fault has not fired (or not as often as asked): the closest requests, deliveries or job runs since it was armed, and which of its conditions each failed',
    tag: 'Faults',
    scope: 'emulator',
    query: [{ name: 'companyId', description: "Only this company's requests, deliveries and job runs (once; any other parameter is refused, 422 at query.<name>)." }],
    success: { 200: { description: 'The fault, how many occurrences it was checked against without firing, the draws that passed over, and the closest ten.', body: 'nearMisses' } },
    errors: {
      404: `falha_nao_encontrada: no fault armed has this id (one that fired its times has left the list). ${NO_COMPANY}`,
      422: `${BAD_FILTER} ${NEAR_MISSES_OVER_BUDGET}`,
    },
    run: ({ emu, params, query }) => emu.faults.nearMisses(params.id, query),
  }),
  control({
    method: 'GET',
    path: '/network/routes',
    id: 'listNetworkRoutes',
    summary: 'The delivery routes',
    tag: 'Network',
    scope: 'emulator',
    success: { 200: { description: 'The routes.', body: 'networkRoutes' } },
    errors: {},
    // In-process handlers show as "(in-process handler)": only URLs travel over HTTP.
    run: ({ emu }) => ({ items: emu.network.routes().map((r) => ({ from: r.from, to: typeof r.to === 'function' ? '(in-process handler)' : r.to })) }),
  }),
  control({
    method: 'POST',
    path: '/network/routes',
    id: 'addNetworkRoute',
    summary: 'Send deliveries for a public webhook URL prefix to a local URL',
    tag: 'Network',
    scope: 'emulator',
    body: { schema: route },
    success: { 201: { description: 'The route, normalized.', body: 'networkRoute' } },
    errors: { 422: BAD_BODY },
    run: ({ emu, body }) => emu.network.route(body.from, body.to),
    describe: (answer) => ({ detail: `${answer.from} → ${String(answer.to)}` }),
  }),
  control({
    method: 'DELETE',
    path: '/network/routes',
    id: 'removeNetworkRoutes',
    summary: 'Remove the route from a prefix, or every route',
    tag: 'Network',
    scope: 'emulator',
    query: [{ name: 'from', description: 'The prefix of the route to remove (204); absent: every route (200).' }],
    success: { 200: { description: 'Without from: every route removed, none left.', body: 'none' }, 204: { description: 'With from: that route removed.' } },
    errors: { 404: 'rota_nao_encontrada: no route from this prefix.' },
    run: ({ emu, query }) => {
      if (query.from === undefined) {
        emu.network.clear();
        return { items: [] };
      }
      if (!emu.network.unroute(query.from)) throw new ControlError(404, 'rota_nao_encontrada', `No route from ${query.from}.`, 'query.from');
      return NO_CONTENT;
    },
  }),
  control({
    method: 'GET',
    path: '/regulatory',
    id: 'getRegulatoryReference',
    summary: 'The regulatory snapshot in force: every NCM and attribute definition',
    tag: 'Regulatory',
    scope: 'emulator',
    success: { 200: { description: 'The snapshot.', body: 'regulatoryView' } },
    errors: {},
    run: ({ emu }) => emu.regulatory.current(),
  }),
  control({
    method: 'POST',
    path: '/regulatory/snapshots',
    id: 'publishRegulatorySnapshot',
    summary: 'Publish a new regulatory snapshot (extinguish or add NCMs, change required attributes), triggering the surveillance executions it affects',
    tag: 'Regulatory',
    scope: 'emulator',
    body: { schema: snapshotChange },
    success: { 201: { description: 'The snapshot published and what it affects.', body: 'published' } },
    errors: { 422: BAD_BODY },
    run: ({ emu, body }) => emu.regulatory.publish(body),
  }),
  control({
    method: 'GET',
    path: '/inbox',
    id: 'listInbox',
    summary: 'Deliveries to URLs no route covers, as the built-in receiver got them',
    tag: 'Inbox',
    scope: 'emulator',
    query: [COMPANY_FILTER],
    success: { 200: { description: 'Oldest first.', body: 'inbox' } },
    errors: { 404: NO_COMPANY, 422: BAD_FILTER },
    run: ({ emu, query }) => ({ items: emu.inbox.list(query) }),
  }),
  control({
    method: 'DELETE',
    path: '/inbox',
    id: 'clearInbox',
    summary: 'Drop the deliveries received',
    tag: 'Inbox',
    scope: 'emulator',
    query: [COMPANY_FILTER],
    success: { 200: { description: 'None left.', body: 'none' } },
    errors: { 404: NO_COMPANY, 422: BAD_FILTER },
    run: ({ emu, query }) => {
      emu.inbox.clear(query);
      return { items: [] };
    },
  }),
  control({
    method: 'POST',
    path: '/companies/:companyId/events',
    id: 'raiseEvent',
    summary: 'Raise a webhook event of any kind, delivered like the service’s own',
    tag: 'Inbox',
    scope: 'company',
    body: { schema: raisedEvent },
    success: { 201: { description: 'The event raised.', body: 'eventId' } },
    errors: { 404: `${NO_COMPANY} destino_nao_encontrado: the company has no webhook destination.`, 422: BAD_BODY },
    run: ({ emu, params, body }) => emu.webhooks.raise(params.companyId, body.dados as EventData),
    describe: (answer) => ({ detail: `event ${answer.eventId}` }),
  }),
  control({
    method: 'POST',
    path: '/webhooks/receiver-checks',
    id: 'checkReceiver',
    summary: 'Check a webhook receiver: send it signed deliveries it must accept or refuse, and judge each answer',
    tag: 'Grading',
    scope: 'emulator',
    body: { schema: receiverCheck },
    success: { 200: { description: 'Each case with its answer and verdict (a receiver that answered nothing: reachable false).', body: 'receiverCheck' } },
    errors: { 422: `${BAD_BODY} Not an http or https url.` },
    run: ({ emu, body }) => emu.webhooks.checkReceiver(checkOptions(body)),
    describe: checkWords,
  }),
  control({
    method: 'POST',
    path: '/companies/:companyId/receiver-checks',
    id: 'checkDestination',
    summary: "Check the company's webhook receiver: its destination's URL through the network routes, signed with its secret",
    tag: 'Grading',
    scope: 'company',
    body: { schema: destinationCheck },
    success: { 200: { description: "Each case with its answer and verdict; kept as the company's last check.", body: 'receiverCheck' } },
    errors: {
      404: `${NO_COMPANY} destino_nao_encontrado: the company has no webhook destination.`,
      409: 'destino_sem_rota: no network route covers the destination URL (the built-in inbox, which accepts everything, would get the cases).',
      422: BAD_BODY,
    },
    run: ({ emu, params, body }) => emu.webhooks.checkDestination(params.companyId, checkOptions(body)),
    describe: checkWords,
  }),
  control({
    method: 'GET',
    path: '/companies/:companyId/receiver-checks/last',
    id: 'getLastReceiverCheck',
    summary: "The company's last receiver check",
    tag: 'Grading',
    scope: 'company',
    success: { 200: { description: 'As POST answered it.', body: 'receiverCheck' } },
    errors: { 404: `${NO_COMPANY} verificacao_inexistente: no check of this company's receiver since it was created or reset.` },
    run: ({ emu, params }) => {
      const last = emu.webhooks.lastReceiverCheck(params.companyId);
      if (last === undefined) throw new ControlError(404, 'verificacao_inexistente', `No receiver check of company ${params.companyId} yet: POST /_emulator/companies/${params.companyId}/receiver-checks runs one.`);
      return last;
    },
  }),
  control({
    method: 'GET',
    path: '/requests',
    id: 'listRequests',
    summary: 'The last 10,000 API requests (never a token), or those the filters keep',
    tag: 'Journal',
    scope: 'emulator',
    query: JOURNAL_QUERY,
    success: { 200: { description: 'Oldest first.', body: 'journal' } },
    errors: { 404: NO_COMPANY, 422: BAD_JOURNAL_FILTER },
    run: ({ emu, query }) => ({ items: emu.journal.find(journalFilterOf(query)) }),
  }),
  control({
    method: 'GET',
    path: '/requests/count',
    id: 'countRequests',
    summary: 'How many of the last 10,000 API requests the filters keep: "exactly 2 PATCH /v1/produtos/* answered 412"',
    tag: 'Journal',
    scope: 'emulator',
    query: JOURNAL_QUERY,
    success: { 200: { description: 'The count.', body: 'journalCount' } },
    errors: { 404: NO_COMPANY, 422: BAD_JOURNAL_FILTER },
    run: ({ emu, query }) => ({ count: emu.journal.count(journalFilterOf(query)) }),
  }),
  control({
    method: 'DELETE',
    path: '/requests',
    id: 'clearRequests',
    summary: 'Drop the journal',
    tag: 'Journal',
    scope: 'emulator',
    query: [COMPANY_FILTER],
    success: { 200: { description: 'None left.', body: 'none' } },
    errors: { 404: NO_COMPANY, 422: BAD_FILTER },
    run: ({ emu, query }) => {
      emu.journal.clear(query);
      return { items: [] };
    },
  }),
  control({
    method: 'GET',
    path: '/activity/stream',
    id: 'streamActivity',
    summary: "The emulator's activity live, as server-sent events: each API request, control call, webhook delivery attempt, job step and finding on the client, as the CLI's JSON log writes it",
    tag: 'Journal',
    scope: 'emulator',
    query: [
      { name: 'companyId', description: "Only this company's entries (a call of the whole emulator, such as a reset or the shared clock's advance, names none)." },
      { name: 'kinds', description: 'Only entries of these kinds, comma-separated: request, control, delivery, job, finding (default: all five).' },
    ],
    success: {
      200: {
        description:
          'text/event-stream: an `open` frame (the filters), then an `activity` frame per entry (data: the entry), a comment every 15 s, and an `end` frame before the server ends it: `{"reason": "closed"}` when the emulator closes, `{"reason": "behind"}` when the reader fell 1 MiB behind (what it had not read is dropped). The call that opened it is not in it.',
        body: {
          mediaType: 'text/event-stream',
          frames: { open: 'activityOpen', activity: 'activityEntry', end: 'activityEnd' },
        },
      },
    },
    errors: { 404: NO_COMPANY, 422: 'valor_invalido: a kind that is none of the five, an unknown parameter, or one given twice (caminho names it).' },
    run: ({ activity, query, request }) => activityAnswer(activity, query, request),
  }),
  control({
    method: 'GET',
    path: '/report',
    id: 'getReport',
    summary: "What the emulator saw the integration do, judged: findings on the client's behaviour and the coverage of the service",
    tag: 'Grading',
    scope: 'emulator',
    query: [COMPANY_FILTER],
    success: { 200: { description: "Every company's part, or with companyId that company's alone; over the emulator's whole life, resets included.", body: 'report' } },
    errors: { 404: NO_COMPANY, 422: BAD_FILTER },
    run: ({ emu, query }) => emu.report(query),
  }),
  // One company's faults, inbox and journal (emu.companies.scope(id)): the views above kept to that company.
  control({
    method: 'GET',
    path: '/companies/:companyId/faults',
    id: 'listCompanyFaults',
    summary: "One company's faults",
    tag: 'Faults',
    scope: 'company',
    success: { 200: { description: 'The faults whose match.companyId is this company.', body: 'faults' } },
    errors: { 404: NO_COMPANY },
    run: ({ emu, params }) => ({ items: emu.companies.scope(params.companyId).faults.list() }),
  }),
  control({
    method: 'POST',
    path: '/companies/:companyId/faults',
    id: 'addCompanyFault',
    summary: 'Inject a fault that matches only this company',
    tag: 'Faults',
    scope: 'company',
    body: { schema: z.unknown(), shown: 'faultInput' },
    success: { 201: { description: 'Its id (GET lists it whole).', body: 'faultId' } },
    errors: { 404: NO_COMPANY, 422: 'valor_invalido: not a fault, one that could never fire, or one naming another company (caminho names the field).' },
    run: ({ emu, params, body }) => emu.companies.scope(params.companyId).faults.add(body as FaultInput),
    describe: (answer, { emu }) => faultWords(answer.id, emu),
  }),
  control({
    method: 'DELETE',
    path: '/companies/:companyId/faults',
    id: 'clearCompanyFaults',
    summary: "Remove one company's faults",
    tag: 'Faults',
    scope: 'company',
    success: { 200: { description: 'None left.', body: 'none' } },
    errors: { 404: NO_COMPANY },
    run: ({ emu, params }) => {
      emu.companies.scope(params.companyId).faults.clear();
      return { items: [] };
    },
  }),
  control({
    method: 'DELETE',
    path: '/companies/:companyId/faults/:id',
    id: 'removeCompanyFault',
    summary: 'Remove one of its faults',
    tag: 'Faults',
    scope: 'company',
    success: { 204: { description: 'Removed.' } },
    errors: { 404: `${NO_COMPANY} falha_nao_encontrada: the company has no fault with this id.` },
    run: ({ emu, params }) => {
      const { companyId, id } = params;
      if (!emu.companies.scope(companyId).faults.remove(id)) {
        throw new ControlError(404, 'falha_nao_encontrada', `Company ${companyId} has no fault ${id}; GET /_emulator/companies/${companyId}/faults lists its faults.`, 'path.id');
      }
      return NO_CONTENT;
    },
    describe: (_, { params }) => ({ faultId: params.id }),
  }),
  control({
    method: 'GET',
    path: '/companies/:companyId/faults/:id/near-misses',
    id: 'getCompanyFaultNearMisses',
    summary: "Why one of its faults has not fired: the closest of the company's own requests, deliveries or job runs",
    tag: 'Faults',
    scope: 'company',
    success: { 200: { description: 'As GET /_emulator/faults/{id}/near-misses, among its own occurrences.', body: 'nearMisses' } },
    errors: {
      404: `${NO_COMPANY} falha_nao_encontrada: the company has no fault armed with this id.`,
      422: NEAR_MISSES_OVER_BUDGET,
    },
    run: ({ emu, params }) => emu.companies.scope(params.companyId).faults.nearMisses(params.id),
  }),
  control({
    method: 'GET',
    path: '/companies/:companyId/inbox',
    id: 'listCompanyInbox',
    summary: "Deliveries of one company's events",
    tag: 'Inbox',
    scope: 'company',
    success: { 200: { description: 'Oldest first.', body: 'inbox' } },
    errors: { 404: NO_COMPANY },
    run: ({ emu, params }) => ({ items: emu.companies.scope(params.companyId).inbox.list() }),
  }),
  control({
    method: 'DELETE',
    path: '/companies/:companyId/inbox',
    id: 'clearCompanyInbox',
    summary: "Drop one company's deliveries",
    tag: 'Inbox',
    scope: 'company',
    success: { 200: { description: 'None left.', body: 'none' } },
    errors: { 404: NO_COMPANY },
    run: ({ emu, params }) => {
      emu.companies.scope(params.companyId).inbox.clear();
      return { items: [] };
    },
  }),
  control({
    method: 'GET',
    path: '/companies/:companyId/journal',
    id: 'listCompanyRequests',
    summary: "The requests made with one company's credentials, or those the filters keep",
    tag: 'Journal',
    scope: 'company',
    query: COMPANY_JOURNAL_QUERY,
    success: { 200: { description: 'Oldest first.', body: 'journal' } },
    errors: { 404: NO_COMPANY, 422: BAD_JOURNAL_FILTER },
    run: ({ emu, params, query }) => ({ items: emu.companies.scope(params.companyId).journal.find(journalFilterOf(query)) }),
  }),
  control({
    method: 'GET',
    path: '/companies/:companyId/journal/count',
    id: 'countCompanyRequests',
    summary: "How many of one company's requests the filters keep",
    tag: 'Journal',
    scope: 'company',
    query: COMPANY_JOURNAL_QUERY,
    success: { 200: { description: 'The count.', body: 'journalCount' } },
    errors: { 404: NO_COMPANY, 422: BAD_JOURNAL_FILTER },
    run: ({ emu, params, query }) => ({ count: emu.companies.scope(params.companyId).journal.count(journalFilterOf(query)) }),
  }),
  control({
    method: 'DELETE',
    path: '/companies/:companyId/journal',
    id: 'clearCompanyRequests',
    summary: "Drop one company's journal entries",
    tag: 'Journal',
    scope: 'company',
    success: { 200: { description: 'None left.', body: 'none' } },
    errors: { 404: NO_COMPANY },
    run: ({ emu, params }) => {
      emu.companies.scope(params.companyId).journal.clear();
      return { items: [] };
    },
  }),
  // The demo a `catalog-emulator demo NAME --ui` runs on this emulator, paced from the inspector page.
  control({
    method: 'GET',
    path: '/inspector/demo',
    id: 'getDemo',
    summary: 'The demo running on this emulator (catalog-emulator demo NAME --ui): its steps so far and whether it waits',
    tag: 'Inspector',
    scope: 'inspector',
    success: { 200: { description: 'The run.', body: 'demoState' } },
    errors: { 404: NO_DEMO },
    run: ({ emu }) => demoAnswer(emu),
  }),
  control({
    method: 'POST',
    path: '/inspector/demo/next',
    id: 'nextDemoStep',
    summary: 'Release the step the demo waits at; answers once that step has run',
    tag: 'Inspector',
    scope: 'inspector',
    body: { schema: noInput, limit: { bytes: () => 1024, shown: '1 KiB' } },
    success: { 200: { description: 'The run after the step (waiting at the next one, or done).', body: 'demoState' } },
    errors: { 404: NO_DEMO, 409: 'demo_nao_aguardando: the demo waits at no step (a step is running, or it has ended).', 422: 'valor_invalido: next takes no input (no body, or {}).' },
    run: ({ emu }) => nextDemoAnswer(emu),
  }),
  control({
    method: 'GET',
    path: '/state',
    id: 'getState',
    summary: 'The whole service state: records, idempotency store, clock, tasks, random sources',
    tag: 'State',
    scope: 'emulator',
    success: { 200: { description: 'A catalog-emulator/state snapshot.', body: 'snapshot' } },
    errors: {},
    run: ({ emu }) => emu.snapshot(),
  }),
  control({
    method: 'PUT',
    path: '/state',
    id: 'restoreState',
    summary: 'Put a snapshot in place of the whole state (checked whole first; a refused one changes nothing)',
    tag: 'State',
    scope: 'emulator',
    body: { schema: z.unknown(), shown: 'snapshot', limit: SNAPSHOT_LIMIT },
    success: { 200: { description: 'The emulator after the restore.', body: 'info' } },
    errors: { 422: 'valor_invalido: not a snapshot this emulator could serve (caminho names the field).' },
    run: ({ emu, body }) => {
      emu.restore(body);
      return emu.info();
    },
    describe: (answer) => ({ detail: `now ${answer.now}` }),
  }),
  // The inspector's data: reads of what the emulator keeps, behind the same guard.
  control({
    method: 'GET',
    path: '/inspector/companies/:companyId/timeline',
    id: 'getInspectorTimeline',
    summary: "One page of a company's timeline: requests, webhook events and attempts, job runs and control calls, newest first, and the tasks ahead",
    tag: 'Inspector',
    scope: 'inspector',
    query: [
      { name: 'limit', description: `Items per page: 1 to 1000 (default 200).` },
      { name: 'before', description: 'The nextBefore of the previous page: the page after it.' },
      { name: 'touches', description: 'Only the items that touched the record with this id: requests whose path or kept bodies name it, control calls whose path does, its events and their attempts, job runs on it.' },
      // The journal's filters but its limit (a page has its own): method, path, status, codigo, replayed and faultId
      // keep the API's requests and the control calls they match, and nothing else; from and to every item in range.
      ...TIMELINE_FILTER_QUERY,
    ],
    success: { 200: { description: 'The page.', body: 'timeline' } },
    errors: {
      404: NO_COMPANY,
      422:
        'valor_invalido: a limit out of range, a cursor no page gave, a value a filter does not accept, an unknown or ' +
        `repeated parameter (caminho names it). ${OVER_BUDGET}`,
    },
    run: ({ activity, params, query }) => timelineAnswer(activity, params.companyId, query, timelineFilterOf(query)),
  }),
  control({
    method: 'GET',
    path: '/inspector/companies/:companyId/items/:itemId',
    id: 'getInspectorItem',
    summary: 'One timeline item with its detail: request and answer (headers, bodies), event envelope, attempts and signature headers; tokens and secrets masked',
    tag: 'Inspector',
    scope: 'inspector',
    query: [],
    success: { 200: { description: 'The item and its sections.', body: 'itemDetail' } },
    errors: { 404: `${NO_COMPANY} item_nao_encontrado: no item of the company has this id.`, 422: 'valor_invalido: any query parameter.' },
    run: ({ activity, params }) => itemAnswer(activity, params.companyId, params.itemId),
  }),
  control({
    method: 'GET',
    path: '/inspector/companies/:companyId/records',
    id: 'getInspectorRecords',
    summary: "A company's records now: establishments, catalogs, products, webhook destination and events, with their state, version and links",
    tag: 'Inspector',
    scope: 'inspector',
    query: [],
    success: { 200: { description: "Each kind's first 500 in the API's order, and its total; the fields as the API presents them, secrets masked.", body: 'inspectorRecords' } },
    errors: { 404: NO_COMPANY, 422: 'valor_invalido: any query parameter.' },
    run: ({ activity, params }) => recordsAnswer(activity, params.companyId),
  }),
  control({
    method: 'GET',
    path: '/inspector/companies/:companyId/panels',
    id: 'getInspectorPanels',
    summary: "The inspector page's side panels of a company in one read: the faults that can fire for it, its inbox, the routes and its report",
    tag: 'Inspector',
    scope: 'inspector',
    query: [],
    success: { 200: { description: 'As GET /_emulator/faults (its own and those of no company), /_emulator/companies/{id}/inbox, /_emulator/network/routes and /_emulator/report?companyId= answer.', body: 'inspectorPanels' } },
    errors: { 404: NO_COMPANY, 422: 'valor_invalido: any query parameter.' },
    run: ({ emu, params }) => {
      const { companyId } = params;
      const inbox = emu.companies.scope(companyId).inbox.list();
      return {
        faults: emu.faults.list().filter((f) => f.match?.companyId === undefined || f.match.companyId === companyId),
        inbox,
        routes: emu.network.routes().map((r) => ({ from: r.from, to: typeof r.to === 'function' ? '(in-process handler)' : r.to })),
        report: emu.report({ companyId }),
      };
    },
  }),
  control({
    method: 'GET',
    path: '/inspector/stream',
    id: 'streamInspector',
    summary: "A company's timeline live, as server-sent events: item, clock and reset frames",
    tag: 'Inspector',
    scope: 'inspector',
    query: [{ name: 'companyId', description: 'The company to follow (required).' }],
    success: { 200: { description: 'text/event-stream: `event: item|clock|reset` and `data: <JSON>` frames (a clock frame first), and a comment every 15 s.', body: { mediaType: 'text/event-stream' } } },
    errors: { 404: NO_COMPANY, 422: 'valor_invalido: companyId missing, repeated, or another parameter.' },
    run: ({ activity, query, request }) => streamAnswer(activity, query.companyId, request),
  }),
] as const satisfies readonly Control[];

/** The operation id of every control. */
export type ControlId = (typeof CONTROLS)[number]['id'];

function notFound(message: string, caminho: string): never {
  throw new ControlError(404, 'rota_nao_encontrada', message, caminho);
}
