/**
 * The controls' table (table.ts), row by row: each row's sample call (beside the row, in its group's module) is
 * answered by the row's own route (the activity stream names the row the route tagged the request with), with a
 * success status and a body its answer schema accepts (strict schemas: an unlisted field fails too); and the
 * controls' document has its operation. A row without a sample call does not compile, so a control added to a group
 * is tested here with no other file to change. Every group's rows are in the table.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../emulator.js';
import { DemoGate } from '../inspector/server/demo-gate.js';
import type { ControlActivity } from '../engine/activity.js';
import { controlsDocument } from '../openapi/controls.js';
import type { Control, SampleWorld } from './row.js';
import { CONTROLS } from './table.js';

type Document = { paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>> };

/**
 * The world every sample call is made in (see SampleWorld): a company with a webhook destination, a delivery in the
 * inbox, a journal entry, a route and a receiver check made; a fault; and a company on a clock of its own with a
 * fault of its own (so that every list has an item to check).
 */
async function sampleWorld(): Promise<SampleWorld & { readonly emu: Emulator }> {
  const emu = createEmulator({ seed: 7 });
  const acme = emu.companies.create({ cnpjRoot: '11222333' });
  const own = emu.companies.create({ clock: 'own' });
  const destination = await emu.fetch('/v1/webhook', {
    method: 'PUT',
    headers: {
      authorization: `Bearer ${acme.token}`,
      'content-type': 'application/json',
      'idempotency-key': 'destination-0001',
      'if-none-match': '*',
    },
    body: JSON.stringify({ url: 'https://hooks.acme.example/eventos' }),
  });
  expect(destination.status).toBe(201);
  emu.webhooks.raise(acme.companyId, { tipo: 'webhook.teste' } as never);
  await emu.clock.runUntilIdle();
  expect(emu.inbox.list()).toHaveLength(1);
  // The company's receiver, in process, and a check of it already made.
  emu.network.route('https://hooks.acme.example', () => new Response(null, { status: 204 }));
  await emu.webhooks.checkDestination(acme.companyId);
  emu.network.route('https://hooks.partner.example/in', 'http://127.0.0.1:9/in');
  const fault = emu.faults.add({ target: 'job', match: { kind: 'analise' }, effect: { fail: true } } as never);
  const ownFault = emu.companies.scope(own.companyId).faults.add({ target: 'api', effect: { loseResponse: true } });
  return {
    emu,
    companyId: acme.companyId,
    ownId: own.companyId,
    faultId: fault.id,
    ownFaultId: ownFault.id,
    paceDemo: () => paceOneStep(emu),
  };
}

/** A one-step scenario on `emu`, paced by a gate: it waits at its step until POST /_emulator/inspector/demo/next. */
function paceOneStep(emu: object): void {
  const gate = new DemoGate({ name: 'one-step', summary: 'a step that prints a line' });
  gate.begin(emu);
  void gate.step(1, '1. One step.').then(() => {
    gate.line('  done');
    gate.finish();
  });
}

const WRITES = new Set(['POST', 'PUT', 'PATCH']);
const openApiPath = (path: string) => `/_emulator${path === '/' ? '' : path.replace(/:(\w+)/g, '{$1}')}`;

/**
 * The body as read: the whole of it, or of a live stream (which never ends by itself) what it sent up to its first
 * frame, after which the call is aborted, as a reader that leaves.
 */
async function bodyText(response: Response, call: AbortController): Promise<string> {
  if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) return response.text();
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!text.includes('\n\n')) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  call.abort();
  await reader.cancel();
  return text;
}

/**
 * What is wrong with `row` as its sample call on a fresh sample world shows it: the route that answered is not the
 * row's, the status is none of its successes, the body is not what that success declares, or `document` lacks its
 * operation or that status. Nothing, for a row as it should be.
 */
async function problemsOf(row: Control, document: Document): Promise<string[]> {
  const w = await sampleWorld();
  const told: ControlActivity[] = [];
  w.emu.activity.subscribe((entry) => void (entry.kind === 'control' && told.push(entry)));
  const sample = row.sample(w);
  const path = `/_emulator${sample.path === '/' ? '' : sample.path}`;
  const call = new AbortController();
  const init: RequestInit = { method: row.method, signal: call.signal };
  if (WRITES.has(row.method)) {
    init.headers = { 'content-type': 'application/json' };
    if (sample.body !== undefined) init.body = JSON.stringify(sample.body);
  }
  const response = await w.emu.fetch(path, init);
  const text = await bodyText(response, call);
  const problems: string[] = [];
  const said = `${response.status}: ${text.slice(0, 300)}`;
  const last = told.at(-1);
  const own = last?.operation === row.id && last.method === row.method && last.scope === row.scope;
  if (!own || last.path !== path.split('?')[0]) {
    // Another row's answer: what it says is not this row's to judge.
    return [`answered by ${last?.operation ?? 'no control'} (${last?.scope ?? 'no scope'}), not ${row.id}: ${said}`];
  }
  if (last.status !== response.status) problems.push(`the activity says ${last.status}, the answer ${said}`);
  const answer = row.success[response.status];
  if (answer === undefined) problems.push(`status ${said}`);
  else if (answer.body === undefined) {
    if (text !== '') problems.push(`a body where none is declared: ${said}`);
  } else if (typeof answer.body === 'function') {
    const type = response.headers.get('content-type') ?? '';
    if (!type.startsWith('application/json')) problems.push(`content-type ${type}, not application/json`);
    else {
      const parsed = answer.body().safeParse(JSON.parse(text));
      if (!parsed.success) problems.push(`not its answer schema: ${JSON.stringify(parsed.error.issues[0])}: ${said}`);
    }
  } else {
    const { mediaType } = answer.body;
    const type = response.headers.get('content-type') ?? '';
    if (mediaType !== '*/*' && !type.startsWith(mediaType)) problems.push(`content-type ${type}, not ${mediaType}`);
    if (text.length === 0) problems.push(`no body: ${said}`);
  }
  const operation = document.paths[openApiPath(row.path)]?.[row.method.toLowerCase()];
  if (operation?.operationId !== row.id) problems.push(`the document has no operation ${row.id}`);
  else if (!Object.keys(operation.responses).includes(String(response.status))) {
    problems.push(`the document has no ${response.status} of ${row.id}`);
  }
  return problems;
}

const DOCUMENT = controlsDocument() as Document;
const rowOf = (id: string): Control => CONTROLS.find((row) => row.id === id)!;

/** The rows of the groups' modules (their ROWS) the table does not hold, by module. */
function missing(modules: Readonly<Record<string, { readonly ROWS?: readonly Control[] }>>): string[] {
  return Object.entries(modules).flatMap(([name, module]) =>
    module.ROWS === undefined
      ? [`${name}: no ROWS`]
      : module.ROWS.filter((row) => !(CONTROLS as readonly Control[]).includes(row)).map((row) => `${name}: ${row.id}`),
  );
}

describe('the controls table', () => {
  it('gives every control its own operation id, one route per method and path, and at least one success answer', () => {
    expect(new Set(CONTROLS.map((row) => row.id)).size).toBe(CONTROLS.length);
    expect(new Set(CONTROLS.map((row) => `${row.method} ${row.path}`)).size).toBe(CONTROLS.length);
    for (const row of CONTROLS) expect(Object.keys(row.success).length, row.id).toBeGreaterThan(0);
  });

  it("names a company in the path of every control about one, and in no other but the inspector's", () => {
    for (const row of CONTROLS)
      if (row.scope !== 'inspector') expect(row.path.includes(':companyId'), row.id).toBe(row.scope === 'company');
  });

  it("holds every row of every group's module, and a module's row it does not hold is told", async () => {
    const dir = new URL('./groups/', import.meta.url);
    const files = readdirSync(dir).filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'));
    expect(files.length).toBeGreaterThan(10);
    const modules = Object.fromEntries(
      await Promise.all(files.map(async (file) => [file, await import(new URL(file, dir).href)] as const)),
    );
    expect(missing(modules)).toEqual([]);
    // A group written but not listed in the table, and a module that is no group: both told.
    const forgotten = { ...rowOf('getClock'), id: 'getCalendar', path: '/calendar' } as Control;
    expect(missing({ 'calendar.ts': { ROWS: [forgotten] }, 'notes.ts': {} })).toEqual([
      'calendar.ts: getCalendar',
      'notes.ts: no ROWS',
    ]);
  });
});

describe('every control answers its sample call as its row says, and the document has it', () => {
  for (const row of CONTROLS) {
    it(`${row.id}: ${row.method} ${row.path} → ${Object.keys(row.success).join(' or ')}`, async () => {
      expect(await problemsOf(row, DOCUMENT)).toEqual([]);
    });
  }
});

describe('the check of a row catches a row that is wrong', () => {
  it('a sample call another row answers', async () => {
    const listFaults = rowOf('listFaults');
    const problems = await problemsOf({ ...listFaults, sample: () => ({ path: '/inbox' }) }, DOCUMENT);
    expect(problems).toEqual([expect.stringMatching(/^answered by listInbox \(emulator\), not listFaults: 200: /)]);
  });

  it('an answer schema that does not take the answer', async () => {
    const getClock = rowOf('getClock');
    const runAnswer = rowOf('advanceClock').success[200]!;
    const problems = await problemsOf(
      { ...getClock, success: { 200: { description: 'The clock.', body: runAnswer.body! } } },
      DOCUMENT,
    );
    expect(problems).toEqual([expect.stringMatching(/^not its answer schema: .*"ran"/)]);
  });

  it('an answer with a body where the row declares none, and a status it does not declare', async () => {
    const clearFaults = rowOf('clearFaults');
    expect(await problemsOf({ ...clearFaults, success: { 200: { description: 'None left.' } } }, DOCUMENT)).toEqual([
      'a body where none is declared: 200: {"items":[]}',
    ]);
    expect(await problemsOf({ ...clearFaults, success: { 204: { description: 'Removed.' } } }, DOCUMENT)).toEqual([
      'status 200: {"items":[]}',
    ]);
  });

  it('a document without the operation', async () => {
    const getReport = rowOf('getReport');
    const paths = { ...DOCUMENT.paths, '/_emulator/report': {} };
    expect(await problemsOf(getReport, { paths })).toEqual(['the document has no operation getReport']);
  });
});
