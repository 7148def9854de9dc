/**
 * The inspector (/_emulator/ui, /_emulator/inspector/…): its page and files, its reads of what the emulator keeps
 * (a company's timeline, an item's detail, its records, the side panels, the timeline live), and the demo a
 * `catalog-emulator demo NAME --ui` runs, paced from the page. Over HTTP only: each row calls the inspector's entry
 * (src/inspector/server/routes.ts), but the panels, which gather other groups' views.
 */
import * as z from 'zod';
import type { JournalFilter } from '../../engine/journal.js';
import {
  assetAnswer,
  demoAnswer,
  itemAnswer,
  nextDemoAnswer,
  pageAnswer,
  recordsAnswer,
  streamAnswer,
  timelineAnswer,
} from '../../inspector/server/routes.js';
import { control, NO_COMPANY, type Control } from '../row.js';
import { lazy } from '../schemas.js';
import { faultView } from './faults.js';
import { inboxEntry } from './inbox.js';
import { COMPANY_JOURNAL_QUERY, journalFilterOf, OVER_BUDGET } from './journal.js';
import { networkRoute, routesShown } from './network.js';
import { report } from './report.js';

/**
 * The journal's filters on the inspector's timeline: a company's, but its `limit` (the timeline's is a page's
 * size).
 */
const TIMELINE_FILTER_QUERY = COMPANY_JOURNAL_QUERY.filter((q) => q.name !== 'limit').map((q) => ({
  name: q.name,
  description:
    `${q.description} Method, path, status, codigo, replayed and faultId keep the requests and control calls they ` +
    'match, and nothing else; from and to keep every item in range.',
}));
const timelineFilterOf = (query: Readonly<Record<string, string | undefined>>): JournalFilter => ({
  ...journalFilterOf(query),
  limit: undefined,
});

const NO_DEMO = 'demo_ausente: no demo runs on this emulator.';
const ANY_QUERY = 'valor_invalido: any query parameter.';

/** The body of a control that takes no input (the demo's next step): none, or `{}`. */
const noInput = z.strictObject({}, { error: () => 'takes no input (send no body, or {})' });

// The inspector's answers (src/inspector/wire.ts holds the same as TypeScript types, for its page).
const demoState = lazy(() => {
  const demoStep = z.strictObject({
    n: z.number().int().meta({ description: 'Its order in the run, from 1.' }),
    title: z.string(),
    lines: z.array(z.string()).meta({ description: 'The narration printed while it ran.' }),
  });
  return z.strictObject({
    name: z.string(),
    summary: z.string(),
    steps: z.array(demoStep).meta({
      description: 'The steps released so far; while the demo waits, the last is the one next releases (no lines yet).',
    }),
    waiting: z.boolean().meta({ description: 'Whether the demo waits for POST /_emulator/inspector/demo/next.' }),
    done: z.boolean(),
  });
});
const timelineItem = lazy(() =>
  z.strictObject({
    id: z.string().meta({
      description: 'Stable: req:<requestId>, evt:<eventId>, att:<eventId>:<n>, job:<n>, ctl:<n>, fnd:<n>, task:<n>.',
    }),
    kind: z.enum(['request', 'event', 'attempt', 'job', 'task', 'deadline', 'control', 'finding']),
    at: z.string().meta({ description: 'Virtual time, ISO 8601.' }),
    title: z.string(),
    status: z.number().int().nullable(),
    tone: z.enum(['ok', 'error', 'warn', 'pending', 'info']),
    tags: z.array(z.string()),
    detail: z
      .boolean()
      .meta({ description: 'Whether the item detail has more than the item (headers, bodies, attempts).' }),
  }),
);
const timeline = lazy(() =>
  z.strictObject({
    companyId: z.string(),
    now: z.string().meta({ description: "The company's clock (its own, or the shared one)." }),
    clock: z.enum(['shared', 'own']),
    items: z.array(timelineItem()).meta({ description: 'Newest first.' }),
    nextBefore: z.string().nullable().meta({ description: 'The `before` of the next (older) page; null at the end.' }),
    ahead: z
      .array(timelineItem())
      .meta({ description: 'Pending tasks and deadlines of the company, soonest first (200 at most).' }),
    history: z
      .strictObject({
        entries: z.number().int().meta({ description: 'Entries the history holds now, for every company.' }),
        bytes: z.number().int().meta({ description: 'Bytes it counts for them.' }),
        maxEntries: z.number().int().meta({
          description: 'Its bound of entries (createEmulator({ inspector: { historyEntries } })); 0: no history.',
        }),
        maxBytes: z.number().int().meta({ description: 'Its bound of bytes (inspector.historyBytes).' }),
        dropped: z.number().int().meta({
          description: "This company's entries dropped at the bounds so far, with those about every company.",
        }),
      })
      .meta({
        description:
          "The emulator's history, one ring for every company: a request it dropped keeps its journal line on the " +
          'timeline.',
      }),
  }),
);
const inspectorRecords = lazy(() => {
  const recordRow = z.strictObject({
    kind: z.enum(['establishment', 'catalog', 'product', 'webhook', 'event']),
    id: z.string(),
    title: z.string(),
    state: z.string().nullable(),
    version: z.number().int().nullable(),
    links: z
      .array(
        z.strictObject({
          kind: z.enum(['establishment', 'catalog', 'product', 'webhook', 'event', 'attempt']),
          id: z.string(),
        }),
      )
      .meta({
        description:
          'catalog → establishment, establishment → catalog, product → catalogs, event → destination and ' +
          'attempts ' +
          '(<eventId>:<n>).',
      }),
    value: z.unknown().meta({ description: 'The record as the API presents it; secrets masked.' }),
  });
  const recordList = z.strictObject({ items: z.array(recordRow), total: z.number().int() });
  return z.strictObject({
    companyId: z.string(),
    establishments: recordList,
    catalogs: recordList,
    products: recordList,
    webhook: recordRow.nullable(),
    events: recordList,
  });
});
const inspectorPanels = lazy(() =>
  z.strictObject({
    faults: z.array(faultView()),
    inbox: z.array(inboxEntry()),
    routes: z.array(networkRoute()),
    report: report(),
  }),
);
const itemDetail = lazy(() =>
  z.strictObject({
    item: timelineItem(),
    sections: z
      .array(
        z.strictObject({ title: z.string(), kind: z.enum(['json', 'headers', 'text', 'table']), value: z.unknown() }),
      )
      .meta({ description: 'Tokens and secrets masked.' }),
  }),
);

export const ROWS = [
  control({
    method: 'GET',
    path: '/ui',
    id: 'getInspectorPage',
    summary:
      "The inspector: a page to watch and drive the companies' timelines (served without the control token; it asks " +
      'for it)',
    tag: 'Documents',
    scope: 'inspector',
    open: true,
    success: {
      200: {
        description: 'The HTML page; its data comes from /_emulator/inspector/….',
        body: { mediaType: 'text/html' },
      },
    },
    errors: {},
    run: ({ activity }) => pageAnswer(activity),
    sample: () => ({ path: '/ui' }),
  }),
  control({
    method: 'GET',
    path: '/ui/assets/:name',
    id: 'getInspectorAsset',
    summary: "The inspector page's script or style sheet (app.js, app.css), built into the package's dist/inspector",
    tag: 'Documents',
    scope: 'inspector',
    open: true,
    query: [
      {
        name: 'v',
        description: "The build's hash the page names the file with: asked for by it, the file may be kept for a year.",
      },
    ],
    success: { 200: { description: 'The file, with its media type.', body: { mediaType: '*/*' } } },
    errors: {
      404: 'rota_nao_encontrada: not a file of the page.',
      503: 'servico_indisponivel: the page is not built (npm run build).',
    },
    run: ({ params, query }) => assetAnswer(params.name, query.v),
    sample: () => ({ path: '/ui/assets/app.css' }),
  }),
  // The demo a `catalog-emulator demo NAME --ui` runs on this emulator, paced from the inspector page.
  control({
    method: 'GET',
    path: '/inspector/demo',
    id: 'getDemo',
    summary:
      'The demo running on this emulator (catalog-emulator demo NAME --ui): its steps so far and whether it waits',
    tag: 'Inspector',
    scope: 'inspector',
    success: { 200: { description: 'The run.', body: demoState } },
    errors: { 404: NO_DEMO },
    run: ({ emu }) => demoAnswer(emu),
    sample: (w) => {
      w.paceDemo();
      return { path: '/inspector/demo' };
    },
  }),
  control({
    method: 'POST',
    path: '/inspector/demo/next',
    id: 'nextDemoStep',
    summary: 'Release the step the demo waits at; answers once that step has run',
    tag: 'Inspector',
    scope: 'inspector',
    body: { schema: noInput, limit: { bytes: () => 1024, shown: '1 KiB' } },
    success: { 200: { description: 'The run after the step (waiting at the next one, or done).', body: demoState } },
    errors: {
      404: NO_DEMO,
      409: 'demo_nao_aguardando: the demo waits at no step (a step is running, or it has ended).',
      422: 'valor_invalido: next takes no input (no body, or {}).',
    },
    run: ({ emu }) => nextDemoAnswer(emu),
    sample: (w) => {
      w.paceDemo();
      return { path: '/inspector/demo/next' };
    },
  }),
  // The inspector's data: reads of what the emulator keeps, behind the same guard.
  control({
    method: 'GET',
    path: '/inspector/companies/:companyId/timeline',
    id: 'getInspectorTimeline',
    summary:
      "One page of a company's timeline: requests, webhook events and attempts, job runs and control calls, newest " +
      'first, and the tasks ahead',
    tag: 'Inspector',
    scope: 'inspector',
    query: [
      { name: 'limit', description: `Items per page: 1 to 1000 (default 200).` },
      { name: 'before', description: 'The nextBefore of the previous page: the page after it.' },
      {
        name: 'touches',
        description:
          'Only the items that touched the record with this id: requests whose path or kept bodies name it, control ' +
          'calls whose path does, its events and their attempts, job runs on it.',
      },
      // The journal's filters but its limit (a page has its own): method, path, status, codigo, replayed and faultId
      // keep the API's requests and the control calls they match, and nothing else; from and to every item in range.
      ...TIMELINE_FILTER_QUERY,
    ],
    success: { 200: { description: 'The page.', body: timeline } },
    errors: {
      404: NO_COMPANY,
      422:
        'valor_invalido: a limit out of range, a cursor no page gave, a value a filter does not accept, an unknown ' +
        'or ' +
        `repeated parameter (caminho names it). ${OVER_BUDGET}`,
    },
    run: ({ activity, params, query }) => timelineAnswer(activity, params.companyId, query, timelineFilterOf(query)),
    sample: (w) => ({ path: `/inspector/companies/${w.companyId}/timeline?limit=5&status=2xx` }),
  }),
  control({
    method: 'GET',
    path: '/inspector/companies/:companyId/items/:itemId',
    id: 'getInspectorItem',
    summary:
      'One timeline item with its detail: request and answer (headers, bodies), event envelope, attempts and ' +
      'signature headers; tokens and secrets masked',
    tag: 'Inspector',
    scope: 'inspector',
    query: [],
    success: { 200: { description: 'The item and its sections.', body: itemDetail } },
    errors: { 404: `${NO_COMPANY} item_nao_encontrado: no item of the company has this id.`, 422: ANY_QUERY },
    run: ({ activity, params }) => itemAnswer(activity, params.companyId, params.itemId),
    sample: (w) => ({ path: `/inspector/companies/${w.companyId}/items/att:${w.emu.inbox.list()[0]!.eventId}:1` }),
  }),
  control({
    method: 'GET',
    path: '/inspector/companies/:companyId/records',
    id: 'getInspectorRecords',
    summary:
      "A company's records now: establishments, catalogs, products, webhook destination and events, with their " +
      'state, version and links',
    tag: 'Inspector',
    scope: 'inspector',
    query: [],
    success: {
      200: {
        description:
          "Each kind's first 500 in the API's order, and its total; the fields as the API presents them, secrets " +
          'masked.',
        body: inspectorRecords,
      },
    },
    errors: { 404: NO_COMPANY, 422: ANY_QUERY },
    run: ({ activity, params }) => recordsAnswer(activity, params.companyId),
    sample: (w) => ({ path: `/inspector/companies/${w.companyId}/records` }),
  }),
  control({
    method: 'GET',
    path: '/inspector/companies/:companyId/panels',
    id: 'getInspectorPanels',
    summary:
      "The inspector page's side panels of a company in one read: the faults that can fire for it, its inbox, the " +
      'routes and its report',
    tag: 'Inspector',
    scope: 'inspector',
    query: [],
    success: {
      200: {
        description:
          'As GET /_emulator/faults (its own and those of no company), /_emulator/companies/{id}/inbox, ' +
          '/_emulator/network/routes and /_emulator/report?companyId= answer.',
        body: inspectorPanels,
      },
    },
    errors: { 404: NO_COMPANY, 422: ANY_QUERY },
    run: ({ emu, params }) => {
      const { companyId } = params;
      const inbox = emu.companies.scope(companyId).inbox.list();
      return {
        faults: emu.faults.list().filter((f) => f.match?.companyId === undefined || f.match.companyId === companyId),
        inbox,
        routes: routesShown(emu.network.routes()),
        report: emu.report({ companyId }),
      };
    },
    sample: (w) => ({ path: `/inspector/companies/${w.companyId}/panels` }),
  }),
  control({
    method: 'GET',
    path: '/inspector/stream',
    id: 'streamInspector',
    summary: "A company's timeline live, as server-sent events: item, clock and reset frames",
    tag: 'Inspector',
    scope: 'inspector',
    query: [{ name: 'companyId', description: 'The company to follow (required).' }],
    success: {
      200: {
        description:
          'text/event-stream: `event: item|clock|reset` and `data: <JSON>` frames (a clock frame first), and a ' +
          'comment ' +
          'every 15 s.',
        body: { mediaType: 'text/event-stream' },
      },
    },
    errors: { 404: NO_COMPANY, 422: 'valor_invalido: companyId missing, repeated, or another parameter.' },
    run: ({ activity, query, request }) => streamAnswer(activity, query.companyId, request),
    sample: (w) => ({ path: `/inspector/stream?companyId=${w.companyId}` }),
  }),
] as const satisfies readonly Control[];
