/**
 * The controls' table (table.ts), row by row: each row's route answers a call of it as its row (the activity stream
 * names the row the route tagged the request with), with a success status and a body its answer schema accepts
 * (strict schemas: an unlisted field fails too); and the controls' document has its operation. The calls are keyed
 * by the rows' ids: the compiler asks for one for each row.
 */
import { describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../emulator.js';
import { DemoGate } from '../inspector/server/demo-gate.js';
import type { ControlActivity } from '../engine/activity.js';
import { controlsDocument } from '../openapi/controls.js';
import { schemaOf } from './schemas.js';
import { CONTROLS, type ControlId } from './table.js';

interface World {
  readonly emu: Emulator;
  readonly companyId: string;
  readonly ownId: string;
  readonly faultId: string;
  readonly ownFaultId: string;
}

const json = (body?: unknown): RequestInit => ({ headers: { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

/**
 * One successful call of each control (by method and path), on an emulator with a company that has a webhook
 * destination, a delivery in the inbox, a journal entry, a route, a fault and a company on a clock of its own (so
 * that every list has an item to check).
 */
const CALLS: Readonly<Record<ControlId, (w: World) => [string, RequestInit?]>> = {
  getEmulatorInfo: () => ['/_emulator'],
  resetEmulator: () => ['/_emulator/reset', json()],
  getApiDocument: () => ['/_emulator/openapi.json'],
  getControlsDocument: () => ['/_emulator/openapi.controls.json'],
  getDocsPage: () => ['/_emulator/docs'],
  getDocsAsset: () => ['/_emulator/docs/assets/swagger-ui.css'],
  getInspectorPage: () => ['/_emulator/ui'],
  getInspectorAsset: () => ['/_emulator/ui/assets/app.css'],
  listCompanies: () => ['/_emulator/companies'],
  createCompany: () => ['/_emulator/companies', json({ name: 'Outra', cnpjRoot: '99888777' })],
  updateCompany: (w) => [`/_emulator/companies/${w.companyId}`, { ...json({ surveillanceCapacity: 3 }), method: 'PATCH' }],
  addCredential: (w) => [`/_emulator/companies/${w.companyId}/credentials`, json({ permissions: ['catalogo:ler'] })],
  removeCompany: (w) => [`/_emulator/companies/${w.ownId}`, { method: 'DELETE' }],
  resetCompany: (w) => [`/_emulator/companies/${w.ownId}/reset`, json()],
  getCompanyState: (w) => [`/_emulator/companies/${w.companyId}/state`],
  restoreCompanyState: (w) => [`/_emulator/companies/${w.companyId}/state`, { ...json(w.emu.companies.snapshot(w.companyId)), method: 'PUT' }],
  getClock: () => ['/_emulator/clock'],
  advanceClock: () => ['/_emulator/clock/advance', json({ by: '1h' })],
  runUntilIdle: () => ['/_emulator/clock/run-until-idle', json()],
  getOwnClock: (w) => [`/_emulator/companies/${w.ownId}/clock`],
  advanceOwnClock: (w) => [`/_emulator/companies/${w.ownId}/clock/advance`, json({ to: '2026-01-02T00:00:00Z' })],
  runUntilIdleOwnClock: (w) => [`/_emulator/companies/${w.ownId}/clock/run-until-idle`, json({ limit: 10 })],
  listFaults: () => ['/_emulator/faults'],
  addFault: () => ['/_emulator/faults', json({ target: 'delivery', match: { eventType: 'webhook.teste' }, effect: { tamper: 'body' }, times: null })],
  clearFaults: () => ['/_emulator/faults', { method: 'DELETE' }],
  removeFault: (w) => [`/_emulator/faults/${w.faultId}`, { method: 'DELETE' }],
  getFaultNearMisses: (w) => [`/_emulator/faults/${w.faultId}/near-misses`],
  listNetworkRoutes: () => ['/_emulator/network/routes'],
  addNetworkRoute: () => ['/_emulator/network/routes', json({ from: 'https://hooks.example.com', to: 'http://127.0.0.1:9/x' })],
  removeNetworkRoutes: () => ['/_emulator/network/routes', { method: 'DELETE' }],
  getRegulatoryReference: () => ['/_emulator/regulatory'],
  publishRegulatorySnapshot: () => ['/_emulator/regulatory/snapshots', json({ adicionar: [{ codigo: '01012100', descricao: 'Cavalos reprodutores' }] })],
  listInbox: () => ['/_emulator/inbox'],
  clearInbox: () => ['/_emulator/inbox', { method: 'DELETE' }],
  raiseEvent: (w) => [`/_emulator/companies/${w.companyId}/events`, json({ dados: { tipo: 'webhook.teste' } })],
  checkReceiver: () => ['/_emulator/webhooks/receiver-checks', json({ url: 'https://hooks.acme.example/outro', secret: 'svc_whsec_um-segredo' })],
  checkDestination: (w) => [`/_emulator/companies/${w.companyId}/receiver-checks`, json({ now: '2026-01-01T00:00:00Z' })],
  getLastReceiverCheck: (w) => [`/_emulator/companies/${w.companyId}/receiver-checks/last`],
  listRequests: (w) => [`/_emulator/requests?companyId=${w.companyId}&method=put&path=/v1/*&status=2xx&replayed=false&limit=5`],
  countRequests: () => ['/_emulator/requests/count?status=201'],
  clearRequests: () => ['/_emulator/requests', { method: 'DELETE' }],
  // As the inspector's stream: aborted, it ends cleanly with what it sent (its open frame).
  streamActivity: (w) => [`/_emulator/activity/stream?companyId=${w.companyId}&kinds=request,delivery`, { signal: AbortSignal.timeout(300) }],
  getReport: (w) => [`/_emulator/report?companyId=${w.companyId}`],
  listCompanyFaults: (w) => [`/_emulator/companies/${w.ownId}/faults`],
  addCompanyFault: (w) => [`/_emulator/companies/${w.ownId}/faults`, json({ target: 'api', match: { method: 'get', path: '/v1/empresa' }, effect: { status: 503, retryAfter: 2 } })],
  clearCompanyFaults: (w) => [`/_emulator/companies/${w.ownId}/faults`, { method: 'DELETE' }],
  removeCompanyFault: (w) => [`/_emulator/companies/${w.ownId}/faults/${w.ownFaultId}`, { method: 'DELETE' }],
  getCompanyFaultNearMisses: (w) => [`/_emulator/companies/${w.ownId}/faults/${w.ownFaultId}/near-misses`],
  listCompanyInbox: (w) => [`/_emulator/companies/${w.companyId}/inbox`],
  clearCompanyInbox: (w) => [`/_emulator/companies/${w.companyId}/inbox`, { method: 'DELETE' }],
  listCompanyRequests: (w) => [`/_emulator/companies/${w.companyId}/journal?method=PUT`],
  countCompanyRequests: (w) => [`/_emulator/companies/${w.companyId}/journal/count?from=2026-01-01&to=2026-01-02T00:00:00Z`],
  clearCompanyRequests: (w) => [`/_emulator/companies/${w.companyId}/journal`, { method: 'DELETE' }],
  getDemo: (w) => {
    paceOneStep(w.emu);
    return ['/_emulator/inspector/demo'];
  },
  nextDemoStep: (w) => {
    paceOneStep(w.emu);
    return ['/_emulator/inspector/demo/next', json()];
  },
  getState: () => ['/_emulator/state'],
  restoreState: (w) => ['/_emulator/state', { ...json(w.emu.snapshot()), method: 'PUT' }],
  getInspectorTimeline: (w) => [`/_emulator/inspector/companies/${w.companyId}/timeline?limit=5&status=2xx`],
  getInspectorRecords: (w) => [`/_emulator/inspector/companies/${w.companyId}/records`],
  getInspectorPanels: (w) => [`/_emulator/inspector/companies/${w.companyId}/panels`],
  getInspectorItem: (w) => [`/_emulator/inspector/companies/${w.companyId}/items/att:${w.emu.inbox.list()[0]!.eventId}:1`],
  // The stream never ends by itself: the call aborts it, which ends it cleanly with what it sent (a clock frame).
  streamInspector: (w) => [`/_emulator/inspector/stream?companyId=${w.companyId}`, { signal: AbortSignal.timeout(300) }],
};


async function world(): Promise<World> {
  const emu = createEmulator({ seed: 7 });
  const acme = emu.companies.create({ cnpjRoot: '11222333' });
  const own = emu.companies.create({ clock: 'own' });
  const destination = await emu.fetch('/v1/webhook', {
    method: 'PUT',
    headers: { authorization: `Bearer ${acme.token}`, 'content-type': 'application/json', 'idempotency-key': 'destination-0001', 'if-none-match': '*' },
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
  return { emu, companyId: acme.companyId, ownId: own.companyId, faultId: fault.id, ownFaultId: ownFault.id };
}

/** A one-step scenario on `emu`, paced by a gate: it waits at its step until POST /_emulator/inspector/demo/next. */
function paceOneStep(emu: Emulator): void {
  const gate = new DemoGate({ name: 'one-step', summary: 'a step that prints a line' });
  gate.begin(emu);
  void gate.step(1, '1. One step.').then(() => {
    gate.line('  done');
    gate.finish();
  });
}

const DOCUMENT = controlsDocument() as { paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>> };
const openApiPath = (path: string) => `/_emulator${path === '/' ? '' : path.replace(/:(\w+)/g, '{$1}')}`;

describe('the controls table', () => {
  it('gives every control its own operation id, one route per method and path, and at least one success answer', () => {
    expect(new Set(CONTROLS.map((row) => row.id)).size).toBe(CONTROLS.length);
    expect(new Set(CONTROLS.map((row) => `${row.method} ${row.path}`)).size).toBe(CONTROLS.length);
    for (const row of CONTROLS) expect(Object.keys(row.success).length, row.id).toBeGreaterThan(0);
  });

  it('names a company in the path of every control about one, and in no other but the inspector\'s', () => {
    for (const row of CONTROLS) if (row.scope !== 'inspector') expect(row.path.includes(':companyId'), row.id).toBe(row.scope === 'company');
  });
});

describe('every control answers as its row says, and the document has it', () => {
  for (const row of CONTROLS) {
    it(`${row.id}: ${row.method} ${row.path} → ${Object.keys(row.success).join(' or ')}`, async () => {
      const w = await world();
      const told: ControlActivity[] = [];
      w.emu.activity.subscribe((entry) => void (entry.kind === 'control' && told.push(entry)));
      const [path, init] = CALLS[row.id](w);
      const response = await w.emu.fetch(path, { method: row.method, ...init });
      const text = await response.text();
      // The route that answered is this row's: it tagged the request, and the activity stream names the row.
      expect(told.at(-1), text.slice(0, 300)).toMatchObject({ method: row.method, path: path.split('?')[0], operation: row.id, scope: row.scope, status: response.status });
      const answer = row.success[response.status];
      expect(answer, `status ${response.status}: ${text.slice(0, 300)}`).toBeDefined();
      const body = answer!.body;
      if (body === undefined) expect(text).toBe('');
      else if (typeof body === 'string') {
        expect(response.headers.get('content-type')).toMatch(/^application\/json/);
        const parsed = schemaOf(body).safeParse(JSON.parse(text));
        expect(parsed.success ? [] : parsed.error.issues, text.slice(0, 300)).toEqual([]);
      } else {
        expect(response.headers.get('content-type')).toMatch(body.mediaType === '*/*' ? /./ : new RegExp(`^${body.mediaType.replace('/', '\\/')}`));
        expect(text.length).toBeGreaterThan(0);
      }
      const operation = DOCUMENT.paths[openApiPath(row.path)]?.[row.method.toLowerCase()];
      expect(operation?.operationId).toBe(row.id);
      expect(Object.keys(operation?.responses ?? {})).toContain(String(response.status));
    });
  }
});
