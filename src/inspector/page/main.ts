/**
 * The inspector page (GET /_emulator/ui): one company's virtual timeline, watched live and driven through the
 * emulator's existing controls. Plain TypeScript and the DOM, no framework: the page is a list, a few panels and
 * a dozen buttons, and a framework would be most of its weight and a dependency to keep (see docs/inspector.md).
 *
 * Data: GET /_emulator/inspector/companies/:id/timeline (newest first, in pages, filtered by the journal's filters),
 * …/items/:itemId (the detail), …/records (the company's records now), …/panels (the faults, inbox, routes and
 * report of the side panels), and the live stream GET /_emulator/inspector/stream?companyId= read with fetch (to
 * send the token): its item frames and its clock frames (the instant and the tasks ahead) keep the page current
 * without a read of its own; the panels are read again only after an item arrived. Actions: the clock, fault,
 * reset, inbox and route controls, with `content-type: application/json` and the token.
 */
import type {
  CompanyRecords,
  DemoState,
  DetailSection,
  ItemDetail,
  Panels,
  RecordRow,
  StreamFrame,
  Timeline,
  TimelineItem,
} from '../wire.js';
import { call, ControlFailure, failureOf, hasToken, headers, onUnauthorized, setToken } from './api.js';
import { ahead as aheadOf, shortTime } from './format.js';
import { fill, h, type Child } from './h.js';
import { SseParser } from './sse.js';
import { rowOf, TimelineList } from './timeline-list.js';

interface Company {
  readonly id: string;
  readonly name: string;
  readonly cnpjRoot: string;
}
interface Fault {
  readonly id: string;
  readonly target: string;
  readonly match?: Record<string, unknown>;
  readonly effect: Record<string, unknown>;
  readonly times: number | null;
  readonly hits: number;
}
/** An inbox entry, the fields shown (its headers and body stay on the server: GET /_emulator/inbox has them). */
interface InboxEntry {
  readonly at: string;
  readonly url: string;
  readonly eventId: string;
  readonly tipo: string;
  readonly tentativa: number;
  readonly answer: { readonly status: number };
}
interface NetworkRoute {
  readonly from: string;
  readonly to: string;
}
/** The report of a company (GET /_emulator/report?companyId=), the fields shown. */
interface Report {
  readonly findings: readonly {
    readonly at: string;
    readonly rule: string;
    readonly statements: readonly string[];
    readonly message: string;
    readonly fix: string;
  }[];
  readonly findingsDropped: number;
  readonly coverage: {
    readonly score: { readonly exercised: number; readonly listed: number };
    readonly behaviours: readonly { readonly id: string; readonly what: string; readonly seen: number }[];
    readonly gaps: readonly string[];
    readonly operations: readonly {
      readonly method: string;
      readonly path: string;
      readonly calls: number;
      readonly statuses: readonly { readonly status: number; readonly count: number }[];
      readonly unreceived: readonly number[];
    }[];
  };
  /** The last exploration told to the emulator (catalog-emulator explore --url, explore() with tell). */
  readonly exploration?: Exploration;
}
/** An exploration as GET /_emulator/report holds it, the fields shown. */
interface Exploration {
  readonly state: 'running' | 'passed' | 'failed' | 'incomplete';
  readonly seed: number;
  readonly runsAsked: number;
  readonly command: string | null;
  readonly told: number;
  readonly recent: readonly {
    readonly n: number;
    readonly phase: string;
    readonly description: string;
    readonly reasons: readonly { readonly kind: string; readonly message: string }[];
  }[];
  readonly verdict: {
    readonly runs: number;
    readonly passed: number;
    readonly incomplete: string | null;
    readonly failure: {
      readonly plan: readonly unknown[];
      readonly reasons: readonly { readonly kind: string; readonly message: string }[];
      readonly replay: string;
      readonly faultFree: boolean;
    } | null;
  } | null;
}

const PAGE_SIZE = 200;
const PICKER_SHOWN = 50;
const enc = encodeURIComponent;

// ---- state -----------------------------------------------------------------------------------------------------

let companies: Company[] = [];
let companyId: string | undefined;
let now = '';
let clockKind: Timeline['clock'] = 'shared';
let aheadItems: TimelineItem[] = [];
let nextBefore: string | null = null;
let selectedId: string | undefined;
let stream: AbortController | undefined;
let busy = false;

// ---- layout ----------------------------------------------------------------------------------------------------

const errors = h('div', { class: 'errors', role: 'alert', 'aria-live': 'assertive' });
const tokenBox = h('form', { class: 'token', hidden: true });
const pickerInput = h('input', {
  type: 'search',
  id: 'company-filter',
  placeholder: 'Filter companies (name, CNPJ root, id)',
  autocomplete: 'off',
  'aria-label': 'Company',
});
const pickerList = h('ul', { class: 'picker-list', role: 'listbox', hidden: true });
const companyLabel = h('span', { class: 'company-label' });
const clockText = h('span', { class: 'clock-now', 'data-testid': 'now' });
const clockKindText = h('span', { class: 'clock-kind' });
const streamState = h('span', { class: 'stream-state' });
const nextTaskButton = h(
  'button',
  { type: 'button', 'data-action': 'next-task', onclick: () => void advanceToNext() },
  'Next task',
);
const driveButtons = h(
  'div',
  { class: 'drive' },
  (
    [
      ['+5 s', '5s'],
      ['+5 min', '5m'],
      ['+1 h', '1h'],
      ['+1 day', '1d'],
    ] as const
  ).map(([label, by]) =>
    h('button', { type: 'button', 'data-advance': by, onclick: () => void drive(clockPath('advance'), { by }) }, label),
  ),
  nextTaskButton,
  h(
    'button',
    { type: 'button', 'data-action': 'run-until-idle', onclick: () => void drive(clockPath('run-until-idle'), {}) },
    'Run until idle',
  ),
  h(
    'button',
    { type: 'button', class: 'danger', 'data-action': 'reset-company', onclick: () => void resetCompany() },
    'Reset company',
  ),
);
const aheadBox = h('div', { class: 'ahead', 'aria-label': 'Ahead: pending tasks and deadlines' });
const nowLine = h('div', { class: 'now-line' });
const list = new TimelineList((item) => void showDetail(item));
const olderButton = h(
  'button',
  { type: 'button', class: 'older', hidden: true, onclick: () => void loadOlder() },
  'Older items',
);
const countText = h('span', { class: 'count' });
const detailBox = h(
  'section',
  { class: 'detail', 'aria-label': 'Detail' },
  h('p', { class: 'hint' }, 'Click an item to see its detail.'),
);
const demoBox = h('section', { class: 'panel demo', hidden: true, 'aria-label': 'Demo' });
const historyNote = h('span', { class: 'history-note', 'data-testid': 'history' });
const recordsButton = h(
  'button',
  { type: 'button', 'data-action': 'records', 'aria-pressed': 'false', onclick: () => void showRecords() },
  'Records',
);
/** The timeline's filters, the journal's (GET /_emulator/journal takes the same): their query string, '' for none. */
let filterQuery = '';
const faultsBox = h('div', { class: 'faults' });
const inboxBox = h('div', { class: 'inbox' });
const routesBox = h('div', { class: 'routes' });
const reportBox = h('div', { class: 'report' });
/** The open company's last report, and whether the detail column shows it (it then follows each refresh). */
let report: Report | undefined;
let reportShown = false;

function layout(): HTMLElement {
  return h(
    'div',
    { class: 'app' },
    h(
      'header',
      { class: 'top' },
      h('h1', null, 'catalog-emulator inspector'),
      h('div', { class: 'picker' }, pickerInput, pickerList),
      companyLabel,
      h('div', { class: 'clock' }, clockKindText, clockText),
      streamState,
    ),
    driveButtons,
    errors,
    tokenBox,
    h(
      'main',
      null,
      h(
        'section',
        { class: 'timeline-column', 'aria-label': 'Timeline' },
        buildFilterForm(),
        h('h2', null, 'Ahead'),
        aheadBox,
        nowLine,
        list.element,
        h('div', { class: 'list-foot' }, countText, historyNote, olderButton),
      ),
      h('div', { class: 'centre' }, demoBox, h('div', { class: 'tabs' }, recordsButton), detailBox),
      h(
        'aside',
        null,
        h('section', { class: 'panel', 'aria-label': 'Report' }, h('h2', null, 'Report'), reportBox),
        h('section', { class: 'panel' }, h('h2', null, 'Faults'), faultsBox, buildFaultForm()),
        h('section', { class: 'panel' }, h('h2', null, 'Inbox'), inboxBox),
        h('section', { class: 'panel' }, h('h2', null, 'Routes'), routesBox),
      ),
    ),
  );
}

// ---- errors and the token ----------------------------------------------------------------------------------------

/** Shows a refusal: the control's code and its own message, never swallowed. */
function showError(error: unknown): void {
  const text =
    error instanceof ControlFailure
      ? `${error.status === 0 ? '' : `${error.status} `}${error.codigo}: ${error.message}`
      : String(error);
  const line = h(
    'div',
    { class: 'error' },
    h('span', null, text),
    h('button', { type: 'button', 'aria-label': 'Dismiss', onclick: () => line.remove() }, '×'),
  );
  errors.appendChild(line);
  while (errors.childElementCount > 5) errors.firstElementChild?.remove();
}

/** The data calls answered 401: ask for the control token (kept in a variable only, see api.ts). */
function askForToken(failure: ControlFailure): void {
  if (!tokenBox.hidden) return;
  stopStream();
  const input = h('input', {
    type: 'password',
    name: 'control-token',
    autocomplete: 'off',
    'aria-label': 'Control token',
    placeholder: 'control token',
  });
  fill(
    tokenBox,
    h(
      'label',
      null,
      failure.codigo === 'token_de_controle_invalido' && hasToken()
        ? 'That is not the control token. Control token:'
        : 'This emulator has a control token. Control token:',
      input,
    ),
    h('button', { type: 'submit' }, 'Open'),
  );
  tokenBox.onsubmit = (event) => {
    event.preventDefault();
    setToken(input.value);
    input.value = '';
    tokenBox.hidden = true;
    tokenBox.replaceChildren();
    errors.replaceChildren();
    void start();
  };
  tokenBox.hidden = false;
  input.focus();
}

// ---- companies -------------------------------------------------------------------------------------------------

function renderPicker(): void {
  const filter = pickerInput.value.trim().toLowerCase();
  const matches =
    filter === ''
      ? companies
      : companies.filter(
          (c) =>
            c.name.toLowerCase().includes(filter) || c.cnpjRoot.includes(filter) || c.id.toLowerCase().includes(filter),
        );
  fill(
    pickerList,
    matches.slice(0, PICKER_SHOWN).map((c) =>
      h(
        'li',
        {
          role: 'option',
          'data-company': c.id,
          'aria-selected': c.id === companyId ? 'true' : 'false',
          onmousedown: (event: Event) => (event.preventDefault(), void pick(c.id)),
        },
        h('b', null, c.name),
        ` ${c.cnpjRoot} `,
        h('small', null, c.id),
      ),
    ),
    matches.length > PICKER_SHOWN
      ? h('li', { class: 'more' }, `${matches.length - PICKER_SHOWN} more: keep typing`)
      : null,
    matches.length === 0 ? h('li', { class: 'more' }, 'No company matches.') : null,
  );
  pickerList.hidden = false;
}

pickerInput.addEventListener('focus', () => {
  renderPicker();
  // Companies made since the page opened: read the list again, and show it as it arrives.
  void loadCompanies().then((ok) => ok && document.activeElement === pickerInput && renderPicker());
});
pickerInput.addEventListener('input', renderPicker);
pickerInput.addEventListener('blur', () => (pickerList.hidden = true));
pickerInput.addEventListener('keydown', (event) => {
  if (event.key === 'Enter') {
    const first = pickerList.querySelector<HTMLElement>('li[data-company]');
    if (first?.dataset.company) void pick(first.dataset.company);
  } else if (event.key === 'Escape') pickerInput.blur();
});

async function pick(id: string): Promise<void> {
  pickerInput.value = '';
  pickerInput.blur();
  history.replaceState(null, '', `#company=${enc(id)}`);
  await openCompany(id);
}

// ---- the timeline ----------------------------------------------------------------------------------------------

const timelinePath = (before?: string) =>
  `/_emulator/inspector/companies/${enc(companyId ?? '')}/timeline?limit=${PAGE_SIZE}${before === undefined ? '' : `&before=${enc(before)}`}${filterQuery === '' ? '' : `&${filterQuery}`}`;

async function openCompany(id: string): Promise<void> {
  companyId = id;
  selectedId = undefined;
  report = undefined;
  reportShown = false;
  labelCompany();
  fill(detailBox, h('p', { class: 'hint' }, 'Click an item to see its detail.'));
  stopStream();
  try {
    if (!(await loadTimeline(id))) return;
    performance.mark('inspector:timeline-rendered');
    document.body.dataset.ready = 'true';
  } catch (error) {
    if (!(error instanceof ControlFailure && error.status === 401)) showError(error);
    return;
  }
  openStream(id);
  void refreshPanels();
}

/** The newest page of the company's timeline in place of the list; false when the company changed meanwhile. */
async function loadTimeline(id: string): Promise<boolean> {
  const timeline = await call<Timeline>('GET', timelinePath());
  if (companyId !== id) return false;
  applyHead(timeline);
  list.replace(timeline.items);
  nextBefore = timeline.nextBefore;
  renderFoot();
  return true;
}

/** The open company's name and CNPJ root (its id until the company list has arrived). */
function labelCompany(): void {
  const company = companies.find((c) => c.id === companyId);
  companyLabel.textContent = company === undefined ? (companyId ?? '') : `${company.name} · ${company.cnpjRoot}`;
}

/** The clock and the items ahead, from a timeline answer. */
function applyHead(timeline: Timeline): void {
  clockKind = timeline.clock;
  setNow(timeline.now);
  aheadItems = timeline.ahead;
  renderAhead();
  renderHistory(timeline.history);
}

/** What the emulator's history holds, and what of this company's it dropped at its bounds (older items then show without their bodies). */
function renderHistory(history: Timeline['history']): void {
  const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(bytes < 1024 * 1024 ? 2 : 1)} MiB`;
  if (history.maxEntries === 0 || history.maxBytes === 0) {
    historyNote.textContent = 'no history kept (inspector option 0)';
  } else {
    historyNote.textContent = `history ${history.entries}/${history.maxEntries} entries, ${mib(history.bytes)}/${mib(history.maxBytes)}${history.dropped > 0 ? `, ${history.dropped} dropped` : ''}`;
  }
  historyNote.className = history.dropped > 0 ? 'history-note dropped' : 'history-note';
  historyNote.title =
    "The emulator keeps every company's activity from its start in one ring, bounded by entries and bytes (createEmulator({ inspector: { historyEntries, historyBytes } }), serve --history-entries / --history-bytes). Past the bounds the oldest go: a request then keeps its journal line, without its headers and bodies.";
}

function setNow(value: string): void {
  now = value;
  clockText.textContent = shortTime(value);
  clockText.title = value;
  clockKindText.textContent = clockKind === 'own' ? 'own clock' : 'shared clock';
  nowLine.textContent = `now ${shortTime(value)}`;
}

function renderAhead(): void {
  // Farthest on top, the soonest just above the now line: the list reads as one time axis, future above past.
  const rows = [...aheadItems].reverse().map((item) => {
    const row = rowOf(item, item.id === selectedId);
    row.classList.add('ahead-row');
    row.querySelector('.tags')?.prepend(h('span', { class: 'tag tag-when' }, aheadOf(item.at, now)));
    row.addEventListener('click', () => void showDetail(item));
    return row;
  });
  fill(aheadBox, rows.length === 0 ? h('p', { class: 'hint' }, 'Nothing pending.') : rows);
  nextTaskButton.disabled = aheadItems.length === 0;
  nextTaskButton.title = aheadItems[0]
    ? `Advance to ${aheadItems[0].at}: ${aheadItems[0].title}`
    : 'Nothing is pending';
}

function renderFoot(): void {
  countText.textContent = `${list.size} item${list.size === 1 ? '' : 's'}${nextBefore === null ? '' : ' (older ones below)'}`;
  olderButton.hidden = nextBefore === null;
}

async function loadOlder(): Promise<void> {
  if (nextBefore === null || companyId === undefined) return;
  const id = companyId;
  try {
    const timeline = await call<Timeline>('GET', timelinePath(nextBefore));
    if (companyId !== id) return;
    list.merge(timeline.items, 'older');
    nextBefore = timeline.nextBefore;
    renderFoot();
  } catch (error) {
    showError(error);
  }
}

/** The newest page again (after an action, a clock frame): merged, so what was loaded further down stays. */
async function refreshHead(): Promise<void> {
  if (companyId === undefined) return;
  const id = companyId;
  try {
    const timeline = await call<Timeline>('GET', timelinePath());
    if (companyId !== id) return;
    applyHead(timeline);
    list.merge(timeline.items);
    renderFoot();
  } catch (error) {
    showError(error);
  }
}

// ---- the detail --------------------------------------------------------------------------------------------------

async function showDetail(item: TimelineItem): Promise<void> {
  reportShown = false;
  recordsButton.setAttribute('aria-pressed', 'false');
  selectedId = item.id;
  list.select(item.id);
  renderAhead();
  const head = h(
    'header',
    null,
    h('h2', null, item.title),
    h(
      'div',
      { class: `row-meta tone-${item.tone}` },
      `${item.kind} · ${item.at}${item.status === null ? '' : ` · ${item.status}`}`,
    ),
    h(
      'div',
      { class: 'tags' },
      item.tags.map((t) => h('span', { class: 'tag' }, t)),
    ),
  );
  if (!item.detail || companyId === undefined) {
    fill(detailBox, head, h('p', { class: 'hint' }, 'Nothing more is recorded for this item.'));
    return;
  }
  fill(detailBox, head, h('p', { class: 'hint' }, 'Loading…'));
  try {
    const detail = await call<ItemDetail>(
      'GET',
      `/_emulator/inspector/companies/${enc(companyId)}/items/${enc(item.id)}`,
    );
    if (selectedId !== item.id) return;
    fill(detailBox, head, detail.sections.map(sectionOf));
  } catch (error) {
    if (selectedId === item.id) fill(detailBox, head);
    showError(error);
  }
}

function sectionOf(section: DetailSection): HTMLElement {
  return h('section', { class: `section section-${section.kind}` }, h('h3', null, section.title), bodyOf(section));
}

function bodyOf(section: DetailSection): Child {
  const value = section.value;
  switch (section.kind) {
    case 'text':
      return h('pre', null, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
    case 'headers': {
      const pairs: [string, unknown][] = Array.isArray(value)
        ? (value as unknown[]).map((p) => (Array.isArray(p) ? [String(p[0]), p[1]] : [JSON.stringify(p), '']))
        : Object.entries((value ?? {}) as object);
      return h(
        'table',
        { class: 'headers' },
        h(
          'tbody',
          null,
          pairs.map(([name, v]) =>
            h('tr', null, h('th', null, name), h('td', null, typeof v === 'string' ? v : JSON.stringify(v))),
          ),
        ),
      );
    }
    case 'table': {
      const rows = Array.isArray(value) ? (value as Record<string, unknown>[]) : [];
      const columns = [...new Set(rows.flatMap((r) => (r && typeof r === 'object' ? Object.keys(r) : [])))];
      return h(
        'table',
        { class: 'grid' },
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            columns.map((c) => h('th', null, c)),
          ),
        ),
        h(
          'tbody',
          null,
          rows.map((r) =>
            h(
              'tr',
              null,
              columns.map((c) => h('td', null, cell(r?.[c]))),
            ),
          ),
        ),
      );
    }
    default:
      return h('pre', null, JSON.stringify(value, null, 2));
  }
}

const cell = (v: unknown): string =>
  v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v);

// ---- live ------------------------------------------------------------------------------------------------------

let headTimer = 0;
let panelTimer = 0;
const soon = (timer: number, run: () => void, ms: number): number => {
  if (timer !== 0) return timer;
  return window.setTimeout(run, ms);
};
const scheduleHead = () => (headTimer = soon(headTimer, () => ((headTimer = 0), void refreshHead()), 100));
const schedulePanels = () => (panelTimer = soon(panelTimer, () => ((panelTimer = 0), void refreshPanels()), 250));

function stopStream(): void {
  stream?.abort();
  stream = undefined;
}

/**
 * Reads the live stream of `id`'s company; on an end or an error, tries again after 1, 2, 4 … 30 s, and then reads
 * the timeline again whole: the server ends a stream whose reader fell behind (a frozen tab), dropping what it had
 * not sent, which may be more than the newest page.
 */
function openStream(id: string): void {
  stopStream();
  const controller = new AbortController();
  stream = controller;
  let delay = 1000;
  let again = false;
  const run = async (): Promise<void> => {
    while (!controller.signal.aborted) {
      streamState.textContent = 'connecting…';
      streamState.className = 'stream-state pending';
      try {
        const response = await fetch(`/_emulator/inspector/stream?companyId=${enc(id)}`, {
          headers: headers(false),
          signal: controller.signal,
          cache: 'no-store',
        });
        if (!response.ok || response.body === null) {
          const failure = await failureOf(response);
          if (response.status === 401) {
            askForToken(failure);
            return;
          }
          if (response.status === 404) {
            // The company is gone (removed, or a restore without it): asking again would not bring it back.
            streamState.textContent = 'stopped';
            streamState.className = 'stream-state down';
            showError(failure);
            return;
          }
          throw failure;
        }
        streamState.textContent = 'live';
        streamState.className = 'stream-state live';
        delay = 1000;
        // Whatever happened while the stream was down: read once the stream is open, so nothing falls between.
        if (again) void loadTimeline(id).catch(showError);
        else scheduleHead();
        again = true;
        const parser = new SseParser();
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          for (const frame of parser.push(value)) onFrame(frame.event, frame.data);
        }
      } catch (error) {
        if (controller.signal.aborted) return;
        if (error instanceof ControlFailure) showError(error);
      }
      if (controller.signal.aborted) return;
      streamState.textContent = `reconnecting in ${delay / 1000} s`;
      streamState.className = 'stream-state down';
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 30_000);
    }
  };
  void run();
}

function onFrame(event: string, data: string): void {
  let frame: StreamFrame;
  try {
    frame = { event, data: JSON.parse(data) } as StreamFrame;
  } catch {
    return;
  }
  switch (frame.event) {
    case 'item':
      // Filtered, the page cannot tell whether the item passes: it reads the filtered head again.
      if (filterQuery === '') list.merge([frame.data]);
      else scheduleHead();
      renderFoot();
      schedulePanels();
      break;
    case 'clock':
      // The instant and the tasks ahead, as the server has them: nothing to read.
      setNow(frame.data.now);
      aheadItems = frame.data.ahead;
      renderAhead();
      break;
    case 'reset':
      if (companyId !== undefined) void openCompany(companyId);
      break;
  }
}

// ---- actions ---------------------------------------------------------------------------------------------------

const clockPath = (action: 'advance' | 'run-until-idle') =>
  clockKind === 'own' ? `/_emulator/companies/${enc(companyId ?? '')}/clock/${action}` : `/_emulator/clock/${action}`;

/** One control call from a button: refusals shown, the timeline and panels read again either way. */
async function drive(path: string, body: unknown, method: 'POST' | 'DELETE' = 'POST'): Promise<boolean> {
  if (busy) return false;
  busy = true;
  document.body.classList.add('busy');
  try {
    const result = await call<{ now?: string }>(method, path, method === 'POST' ? body : undefined);
    if (result && typeof result.now === 'string' && path.includes('/clock/')) setNow(result.now);
    return true;
  } catch (error) {
    showError(error);
    return false;
  } finally {
    busy = false;
    document.body.classList.remove('busy');
    await Promise.all([refreshHead(), refreshPanels()]);
  }
}

async function advanceToNext(): Promise<void> {
  const next = aheadItems[0];
  if (next === undefined) return;
  // A task due now is run by an advance of nothing: advancing "to" the present is allowed.
  await drive(clockPath('advance'), Date.parse(next.at) <= Date.parse(now) ? { by: 0 } : { to: next.at });
}

async function resetCompany(): Promise<void> {
  if (companyId === undefined) return;
  if (
    !window.confirm(
      `Reset company ${companyLabel.textContent ?? companyId}? Its catalogs, products, events and journal are dropped; its id and tokens stay.`,
    )
  )
    return;
  if (await drive(`/_emulator/companies/${enc(companyId)}/reset`, {})) await openCompany(companyId);
}

// ---- the side panels -------------------------------------------------------------------------------------------

async function refreshPanels(): Promise<void> {
  if (companyId === undefined) return;
  const id = companyId;
  // One read for the four panels (the faults that can fire for this company: its own and those of no company).
  try {
    const panels = await call<Panels>('GET', `/_emulator/inspector/companies/${enc(id)}/panels`);
    if (companyId !== id) return;
    renderFaults(panels.faults as Fault[]);
    renderInbox(panels.inbox as InboxEntry[]);
    renderRoutes(panels.routes as NetworkRoute[]);
    renderReport(panels.report as Report);
  } catch (error) {
    if (!(error instanceof ControlFailure && error.status === 401)) showError(error);
  }
  // Asked once at the start; again only while one runs (a demo is started before its page is opened).
  if (!demoBox.hidden) await refreshDemo();
}

const pairs = (object: Record<string, unknown> | undefined) =>
  Object.entries(object ?? {})
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');

function renderFaults(items: readonly Fault[]): void {
  fill(
    faultsBox,
    items.length === 0
      ? h('p', { class: 'hint' }, 'No fault.')
      : h(
          'ul',
          null,
          items.map((f) =>
            h(
              'li',
              { 'data-fault': f.id },
              h('b', null, f.id),
              ` ${f.target} ${pairs(f.match) || 'any'} → ${pairs(f.effect)} `,
              h('span', { class: 'hits' }, `${f.hits} hit${f.hits === 1 ? '' : 's'}`),
              h('span', { class: 'left' }, f.times === null ? ', until removed' : `, ${f.times} left`),
              h(
                'button',
                {
                  type: 'button',
                  class: 'remove',
                  'aria-label': `Remove fault ${f.id}`,
                  onclick: () => void drive(`/_emulator/faults/${enc(f.id)}`, undefined, 'DELETE'),
                },
                'Remove',
              ),
            ),
          ),
        ),
  );
}

function renderInbox(items: readonly InboxEntry[]): void {
  const shown = items.slice(-50).reverse();
  fill(
    inboxBox,
    items.length === 0
      ? h('p', { class: 'hint' }, 'Nothing delivered.')
      : h(
          'ul',
          null,
          shown.map((e) =>
            h(
              'li',
              null,
              h('span', { class: 'time' }, shortTime(e.at)),
              ` ${e.tipo} #${e.tentativa} → ${e.answer.status} `,
              h('small', null, e.url),
            ),
          ),
        ),
    items.length > shown.length ? h('p', { class: 'hint' }, `and ${items.length - shown.length} older`) : null,
  );
}

function renderRoutes(items: readonly NetworkRoute[]): void {
  fill(
    routesBox,
    items.length === 0
      ? h('p', { class: 'hint' }, 'No route: deliveries go to the destination URL.')
      : h(
          'ul',
          null,
          items.map((r) => h('li', null, r.from, ' → ', r.to)),
        ),
  );
}

/** The report's summary in its panel: the findings (the latest five) and the score, and the button to show it whole. */
function renderReport(value: Report): void {
  report = value;
  const { findings, findingsDropped, coverage } = value;
  const count = findings.length + findingsDropped;
  const latest = findings.slice(-5).reverse();
  fill(
    reportBox,
    h(
      'p',
      { class: 'score' },
      h('b', { class: count === 0 ? 'clean' : 'found' }, `${count} finding${count === 1 ? '' : 's'}`),
      ` · ${coverage.score.exercised} of ${coverage.score.listed} behaviours exercised`,
    ),
    latest.length === 0
      ? null
      : h(
          'ul',
          null,
          latest.map((f) => h('li', { 'data-rule': f.rule }, h('b', null, f.rule), ` ${f.message}`)),
        ),
    value.exploration === undefined ? null : explorationSummary(value.exploration),
    h('button', { type: 'button', 'data-action': 'show-report', onclick: () => showReport() }, 'Show the report'),
  );
  if (reportShown) showReport();
  // An exploration runs on companies of its own, whose items this page does not follow: the panels are read again
  // every second while one runs, and every five otherwise, so that one begun meanwhile shows.
  const every = value.exploration?.state === 'running' ? 1000 : 5000;
  explorationTimer = soon(explorationTimer, () => ((explorationTimer = 0), void refreshPanels()), every);
}

let explorationTimer = 0;

/** Where an exploration is (its last run), or how it ended (the minimal plan and why it fails). */
function explorationSummary(exploration: Exploration): HTMLElement {
  const { state, verdict, recent } = exploration;
  const last = recent.at(-1);
  const lastLine = (run: Exploration['recent'][number]) =>
    `run ${run.n} (${run.phase}): ${run.description} → ${run.reasons.length === 0 ? 'passed' : `failed (${[...new Set(run.reasons.map((r) => r.kind))].join(', ')})`}`;
  const failure = verdict?.failure ?? null;
  const head =
    verdict === null
      ? `running: ${exploration.told} runs told, ${exploration.runsAsked} plans asked`
      : failure !== null
        ? failure.faultFree
          ? 'failed: the fault-free run itself fails'
          : `failed after ${verdict.runs} plans`
        : verdict.incomplete !== null
          ? `incomplete: ${verdict.incomplete}`
          : `passed: ${verdict.passed} of ${verdict.runs} plans`;
  return h(
    'div',
    { class: 'exploration', 'data-state': state },
    h('p', null, h('b', null, 'Exploration'), ` (seed ${exploration.seed}) ${head}`),
    verdict === null && last !== undefined ? h('p', { class: 'last-run' }, lastLine(last)) : null,
    failure === null || failure.faultFree
      ? null
      : h('p', { class: 'minimal-plan' }, 'Minimal plan: ', h('code', null, JSON.stringify(failure.plan))),
    failure === null
      ? null
      : h(
          'ul',
          null,
          failure.reasons.map((r) => h('li', { 'data-kind': r.kind }, h('b', null, r.kind), ` ${r.message}`)),
        ),
  );
}

/** The whole report in the detail column: the findings with their fixes, the behaviours, the gaps, the operations. */
function showReport(): void {
  if (report === undefined) return;
  reportShown = true;
  recordsButton.setAttribute('aria-pressed', 'false');
  selectedId = undefined;
  list.select(undefined);
  renderAhead();
  const { findings, findingsDropped, coverage } = report;
  fill(
    detailBox,
    h(
      'header',
      null,
      h('h2', null, 'Report'),
      h(
        'div',
        { class: 'row-meta' },
        `${findings.length + findingsDropped} findings · ${coverage.score.exercised} of ${coverage.score.listed} behaviours exercised`,
      ),
    ),
    h(
      'section',
      { class: 'section report-findings' },
      h('h3', null, 'Findings on your client'),
      findings.length === 0 ? h('p', { class: 'hint' }, 'None: no rule was broken.') : null,
      findings.map((f) =>
        h(
          'div',
          { class: 'finding', 'data-rule': f.rule },
          h('b', null, f.rule),
          h('span', { class: 'tag' }, f.statements.join(', ')),
          h('small', null, ` ${shortTime(f.at)}`),
          h('p', null, f.message),
          h('p', { class: 'fix' }, `Fix: ${f.fix}`),
        ),
      ),
      findingsDropped > 0 ? h('p', { class: 'hint' }, `and ${findingsDropped} earlier, no longer kept`) : null,
    ),
    h(
      'section',
      { class: 'section' },
      h('h3', null, 'What your tests exercised'),
      h(
        'ul',
        { class: 'behaviours' },
        coverage.behaviours.map((b) =>
          h(
            'li',
            { class: b.seen > 0 ? 'seen' : 'unseen' },
            `${b.seen > 0 ? '✓' : '·'} ${b.id}: ${b.what}${b.seen > 0 ? ` (${b.seen}×)` : ''}`,
          ),
        ),
      ),
    ),
    coverage.gaps.length === 0
      ? null
      : h(
          'section',
          { class: 'section' },
          h('h3', null, 'Not exercised, and how to'),
          h(
            'ul',
            { class: 'gaps' },
            coverage.gaps.map((g) => h('li', null, g)),
          ),
        ),
    h(
      'section',
      { class: 'section section-table' },
      h('h3', null, 'Operations called'),
      coverage.operations.length === 0
        ? h('p', { class: 'hint' }, 'None.')
        : h(
            'table',
            { class: 'grid' },
            h(
              'thead',
              null,
              h(
                'tr',
                null,
                ['Operation', 'Calls', 'Statuses', 'Documented, never received'].map((c) => h('th', null, c)),
              ),
            ),
            h(
              'tbody',
              null,
              coverage.operations.map((o) =>
                h(
                  'tr',
                  null,
                  h('td', null, `${o.method} ${o.path}`),
                  h('td', null, o.calls),
                  h('td', null, o.statuses.map((x) => `${x.status}×${x.count}`).join(', ')),
                  h('td', null, o.unreceived.join(', ')),
                ),
              ),
            ),
          ),
    ),
  );
}

/** The match fields and effects each target takes (the fault schema's; the server checks them again). */
const FAULT_SHAPES = {
  api: {
    match: ['method', 'path'],
    effects: { status: 'status (400–599)', loseResponse: 'lose the answer', delayMs: 'delay (ms)' },
  },
  delivery: {
    match: ['url', 'eventType'],
    effects: {
      status: 'status (100–599)',
      timeout: 'time out',
      refuse: 'refuse the connection',
      reset: 'reset the connection',
      latencyMs: 'latency (ms)',
      duplicate: 'duplicate',
      tamper: 'tamper (signature|body|timestamp)',
    },
  },
  job: { match: ['kind'], effects: { fail: 'fail', delayMs: 'delay (ms)' } },
} as const satisfies Record<string, { match: readonly string[]; effects: Record<string, string> }>;
type Target = keyof typeof FAULT_SHAPES;
/** Effects whose value is `true` (no input); the others take a number, but tamper a word. */
const FLAG_EFFECTS = new Set(['loseResponse', 'timeout', 'refuse', 'reset', 'duplicate', 'fail']);

function buildFaultForm(): HTMLFormElement {
  const target = h(
    'select',
    { name: 'target', 'aria-label': 'Target' },
    Object.keys(FAULT_SHAPES).map((t) => h('option', { value: t }, t)),
  );
  const matchBox = h('div', { class: 'match' });
  const effect = h('select', { name: 'effect', 'aria-label': 'Effect' });
  const effectValue = h('input', { name: 'effectValue', 'aria-label': 'Effect value', placeholder: 'value', size: 8 });
  const times = h('input', {
    name: 'times',
    type: 'number',
    min: 1,
    'aria-label': 'Times',
    placeholder: 'times (empty: until removed)',
    value: '1',
  });
  const shape = () => FAULT_SHAPES[target.value as Target];
  const refresh = () => {
    fill(
      matchBox,
      shape().match.map((field) =>
        h('input', {
          name: `match.${field}`,
          'aria-label': `Match ${field}`,
          placeholder: field === 'path' ? 'path glob, /v1/…' : field,
        }),
      ),
    );
    fill(
      effect,
      Object.entries(shape().effects).map(([name, label]) => h('option', { value: name }, label)),
    );
    effectChanged();
  };
  const effectChanged = () => {
    effectValue.hidden = FLAG_EFFECTS.has(effect.value);
  };
  target.addEventListener('change', refresh);
  effect.addEventListener('change', effectChanged);
  const form = h(
    'form',
    { class: 'fault-form', 'aria-label': 'Add a fault' },
    h('h3', null, 'Add a fault'),
    target,
    matchBox,
    effect,
    effectValue,
    times,
    h('button', { type: 'submit' }, 'Add fault'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (companyId === undefined) return;
    const match: Record<string, string> = {};
    for (const input of matchBox.querySelectorAll('input')) {
      const value = input.value.trim();
      if (value !== '') match[input.name.slice('match.'.length)] = value;
    }
    const name = effect.value;
    const raw = effectValue.value.trim();
    const effectBody: Record<string, unknown> = {
      [name]: FLAG_EFFECTS.has(name)
        ? true
        : name === 'tamper' || Number.isNaN(Number(raw)) || raw === ''
          ? raw
          : Number(raw),
    };
    const body = {
      target: target.value,
      match,
      effect: effectBody,
      times: times.value.trim() === '' ? null : Number(times.value),
    };
    // The company's own fault list: it fires for this company only.
    void drive(`/_emulator/companies/${enc(companyId)}/faults`, body).then((ok) => {
      if (ok) for (const input of matchBox.querySelectorAll('input')) input.value = '';
    });
  });
  refresh();
  return form;
}

// ---- the timeline's filters --------------------------------------------------------------------------------------

/** The journal's filters (JournalFilter) as the timeline route takes them; the server checks each and says why not. */
const FILTERS = [
  ['method', 'method', 'GET, PATCH…'],
  ['path', 'path glob', '/v1/produtos/*'],
  ['status', 'status', '404 or 4xx'],
  ['codigo', 'error code', 'precondicao_falhou'],
  ['faultId', 'fault id', 'flt_1'],
  ['from', 'from', '2026-01-01T00:00:00Z'],
  ['to', 'to', '2026-01-02'],
] as const;

function buildFilterForm(): HTMLFormElement {
  const inputs = FILTERS.map(([name, label, example]) =>
    h('input', {
      name,
      'aria-label': `Filter: ${label}`,
      placeholder: label,
      title: `${label}, e.g. ${example}`,
      autocomplete: 'off',
    }),
  );
  const state = h('span', { class: 'filter-state' });
  const form = h(
    'form',
    { class: 'filters', 'aria-label': 'Filter the timeline' },
    inputs,
    h('button', { type: 'submit' }, 'Filter'),
    h('button', { type: 'reset' }, 'Clear'),
    state,
  );
  const apply = async () => {
    const query = new URLSearchParams();
    for (const input of inputs) if (input.value.trim() !== '') query.set(input.name, input.value.trim());
    const before = filterQuery;
    filterQuery = query.toString();
    state.textContent = filterQuery === '' ? '' : 'filtered';
    state.className = filterQuery === '' ? 'filter-state' : 'filter-state active';
    if (companyId === undefined) return;
    try {
      await loadTimeline(companyId);
    } catch (error) {
      // A filter the server refused: shown, and the timeline stays as it was filtered before.
      filterQuery = before;
      state.textContent = before === '' ? '' : 'filtered';
      showError(error);
    }
  };
  form.addEventListener('submit', (event) => (event.preventDefault(), void apply()));
  form.addEventListener('reset', () => setTimeout(() => void apply(), 0));
  return form;
}

// ---- the records -------------------------------------------------------------------------------------------------

const RECORD_KINDS = [
  ['establishments', 'Establishments'],
  ['catalogs', 'Catalogs'],
  ['products', 'Products'],
  ['events', 'Webhook events'],
] as const;

/** The company's records now, in the centre column: each with its state, version and links. */
async function showRecords(focus?: string): Promise<void> {
  if (companyId === undefined) return;
  const id = companyId;
  reportShown = false;
  selectedId = undefined;
  list.select(undefined);
  recordsButton.setAttribute('aria-pressed', 'true');
  let records: CompanyRecords;
  try {
    records = await call<CompanyRecords>('GET', `/_emulator/inspector/companies/${enc(id)}/records`);
  } catch (error) {
    showError(error);
    return;
  }
  if (companyId !== id) return;
  const all = [
    ...(records.webhook === null ? [] : [records.webhook]),
    ...RECORD_KINDS.flatMap(([key]) => records[key].items),
  ];
  const rowOfRecord = (r: RecordRow) =>
    h(
      'li',
      { 'data-record': r.id, title: r.id, onclick: () => void showRecord(r, all) },
      h('b', null, r.title),
      r.state === null ? null : h('span', { class: 'state' }, r.state),
      r.version === null ? null : h('span', { class: 'version' }, `v${r.version}`),
      h('small', null, ` ${r.id}`),
    );
  fill(
    detailBox,
    h(
      'header',
      null,
      h('h2', null, 'Records'),
      h(
        'div',
        { class: 'row-meta' },
        'As they are now. Click one for its fields, its links and the timeline items that touched it.',
      ),
    ),
    h(
      'div',
      { class: 'records' },
      h('h3', null, 'Webhook destination'),
      records.webhook === null
        ? h('p', { class: 'hint' }, 'None configured.')
        : h('ul', null, rowOfRecord(records.webhook)),
      RECORD_KINDS.map(([key, title]) => {
        const { items, total } = records[key];
        return [
          h('h3', null, `${title} (${total})`),
          items.length === 0
            ? h('p', { class: 'hint' }, 'None.')
            : h('ul', { 'data-kind': key }, items.map(rowOfRecord)),
          total > items.length
            ? h(
                'p',
                { class: 'hint' },
                `and ${total - items.length} more (GET /_emulator/state/companies/${id} has them all)`,
              )
            : null,
        ];
      }),
    ),
  );
  const focused = focus === undefined ? undefined : all.find((r) => r.id === focus);
  if (focused) await showRecord(focused, all);
}

/** One record: its fields, its links (to the records they name) and the timeline items that touched it. */
async function showRecord(record: RecordRow, all: readonly RecordRow[]): Promise<void> {
  if (companyId === undefined) return;
  const id = companyId;
  const links = record.links.map((link) => {
    const target = all.find((r) => r.id === link.id || (link.kind === 'webhook' && r.kind === 'webhook'));
    if (link.kind === 'attempt') {
      const [eventId, n] = [link.id.slice(0, link.id.lastIndexOf(':')), link.id.slice(link.id.lastIndexOf(':') + 1)];
      return h(
        'a',
        {
          'data-link': `att:${link.id}`,
          onclick: () =>
            void showDetail({
              id: `att:${eventId}:${n}`,
              kind: 'attempt',
              at: '',
              title: `attempt ${n} of ${eventId}`,
              status: null,
              tone: 'info',
              tags: [],
              detail: true,
            }),
        },
        `attempt ${n}`,
      );
    }
    return target === undefined
      ? h('span', null, `${link.kind} ${link.id} `)
      : h('a', { 'data-link': link.id, onclick: () => void showRecord(target, all) }, `${link.kind} ${target.title}`);
  });
  const touching = h('div', { class: 'touching' }, h('p', { class: 'hint' }, 'Loading…'));
  fill(
    detailBox,
    h(
      'header',
      null,
      h('h2', null, `${record.kind} ${record.title}`),
      h(
        'div',
        { class: 'row-meta' },
        `${record.id}${record.state === null ? '' : ` · ${record.state}`}${record.version === null ? '' : ` · versao ${record.version}`}`,
      ),
    ),
    h('p', null, h('a', { onclick: () => void showRecords() }, '← all records')),
    links.length === 0
      ? null
      : h('section', { class: 'section' }, h('h3', null, 'Links'), h('div', { class: 'record-links' }, links)),
    h('section', { class: 'section' }, h('h3', null, 'Fields'), h('pre', null, JSON.stringify(record.value, null, 2))),
    h('section', { class: 'section' }, h('h3', null, 'Timeline items that touched it'), touching),
  );
  try {
    const timeline = await call<Timeline>(
      'GET',
      `/_emulator/inspector/companies/${enc(id)}/timeline?limit=${PAGE_SIZE}&touches=${enc(record.id)}`,
    );
    fill(
      touching,
      timeline.items.length === 0
        ? h('p', { class: 'hint' }, 'None kept.')
        : timeline.items.map((item) => {
            const row = rowOf(item);
            row.addEventListener('click', () => void showDetail(item));
            return row;
          }),
    );
  } catch (error) {
    fill(touching);
    showError(error);
  }
}

// ---- the demo ----------------------------------------------------------------------------------------------------

async function refreshDemo(): Promise<void> {
  let demo: DemoState;
  try {
    demo = await call<DemoState>('GET', '/_emulator/inspector/demo');
  } catch (error) {
    // 404: no demo runs (the panel is for `catalog-emulator demo NAME --ui`).
    demoBox.hidden = true;
    if (error instanceof ControlFailure && error.status !== 404 && error.status !== 401) showError(error);
    return;
  }
  renderDemo(demo);
}

function renderDemo(demo: DemoState): void {
  demoBox.hidden = false;
  const next = h(
    'button',
    { type: 'button', 'data-action': 'demo-next', disabled: !demo.waiting, onclick: () => void demoNext() },
    demo.done ? 'Demo finished' : 'Next step',
  );
  fill(
    demoBox,
    h('h2', null, `Demo: ${demo.name}`),
    h('p', null, demo.summary),
    h(
      'ol',
      { class: 'steps' },
      demo.steps.map((s) =>
        h(
          'li',
          { value: s.n },
          h('b', null, s.title),
          s.lines.length === 0 ? null : h('pre', null, s.lines.join('\n')),
        ),
      ),
    ),
    next,
  );
}

async function demoNext(): Promise<void> {
  try {
    renderDemo(await call<DemoState>('POST', '/_emulator/inspector/demo/next', {}));
  } catch (error) {
    showError(error);
  }
  await refreshHead();
}

// ---- start -------------------------------------------------------------------------------------------------------

/** The company list, for the picker; false (the refusal shown) when it could not be read. */
async function loadCompanies(): Promise<boolean> {
  try {
    const answer = await call<{ items: { id: string; name: string; cnpjRoot: string }[] }>(
      'GET',
      '/_emulator/companies',
    );
    companies = answer.items.map(({ id, name, cnpjRoot }) => ({ id, name, cnpjRoot }));
    return true;
  } catch (error) {
    if (!(error instanceof ControlFailure && error.status === 401)) showError(error);
    return false;
  }
}

async function start(): Promise<void> {
  // The company the URL names is opened before the company list is read: the first paint waits for one answer.
  const wanted = new URLSearchParams(location.hash.slice(1)).get('company');
  if (wanted !== null) {
    // The timeline first (the company's id labels it meanwhile): the server answers one request at a time.
    await openCompany(wanted);
    if (!(await loadCompanies())) return;
    labelCompany();
  } else {
    if (!(await loadCompanies())) return;
    const first = companies[0];
    if (first === undefined) {
      fill(
        detailBox,
        h('p', { class: 'hint' }, 'No company yet: create one (POST /_emulator/companies), then reload.'),
      );
      return;
    }
    await openCompany(first.id);
  }
  await refreshDemo();
}

onUnauthorized(askForToken);
fill(document.getElementById('app') ?? document.body, layout());
void start();
