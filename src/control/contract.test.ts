/**
 * The control table (contract.ts) is the routes hono registers, no more and no less, and each control answers as the
 * table says: its documented success status, with a body its answer schema accepts (strict schemas: an unlisted
 * field fails too).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createEmulator, DemoGate, type Emulator } from '../emulator.js';
import { controlRoutes } from './contract.js';
import { buildControlApp } from './routes.js';

const CONTROL_ROUTES = controlRoutes();

const key = (method: string, path: string) => `${method} ${path}`;

describe('the control table', () => {
  it('lists exactly the routes the control app registers, in their order', () => {
    const registered = buildControlApp({ text: () => '{}' })
      .routes.filter((r) => r.method !== 'ALL') // the guard middleware and the 404 catch-all
      .map((r) => key(r.method, r.path));
    expect(new Set(registered).size).toBe(registered.length);
    expect(CONTROL_ROUTES.map((r) => key(r.method, r.path))).toEqual(registered);
  });

  it('gives every control its own operationId and at least one success answer', () => {
    const ids = CONTROL_ROUTES.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const route of CONTROL_ROUTES) expect(Object.keys(route.success).length, route.id).toBeGreaterThan(0);
  });
});

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
const CALLS: Record<string, (w: World) => [string, RequestInit?]> = {
  'GET /': () => ['/_emulator'],
  'POST /reset': () => ['/_emulator/reset', json()],
  'GET /openapi.json': () => ['/_emulator/openapi.json'],
  'GET /openapi.controls.json': () => ['/_emulator/openapi.controls.json'],
  'GET /docs': () => ['/_emulator/docs'],
  'GET /docs/assets/:name': () => ['/_emulator/docs/assets/swagger-ui.css'],
  'GET /ui': () => ['/_emulator/ui'],
  'GET /ui/assets/:name': () => ['/_emulator/ui/assets/app.css'],
  'GET /companies': () => ['/_emulator/companies'],
  'POST /companies': () => ['/_emulator/companies', json({ name: 'Outra', cnpjRoot: '99888777' })],
  'PATCH /companies/:companyId': (w) => [`/_emulator/companies/${w.companyId}`, { ...json({ surveillanceCapacity: 3 }), method: 'PATCH' }],
  'POST /companies/:companyId/credentials': (w) => [`/_emulator/companies/${w.companyId}/credentials`, json({ permissions: ['catalogo:ler'] })],
  'DELETE /companies/:companyId': (w) => [`/_emulator/companies/${w.ownId}`, { method: 'DELETE' }],
  'POST /companies/:companyId/reset': (w) => [`/_emulator/companies/${w.ownId}/reset`, json()],
  'GET /companies/:companyId/state': (w) => [`/_emulator/companies/${w.companyId}/state`],
  'PUT /companies/:companyId/state': (w) => [`/_emulator/companies/${w.companyId}/state`, { ...json(w.emu.companies.snapshot(w.companyId)), method: 'PUT' }],
  'GET /clock': () => ['/_emulator/clock'],
  'POST /clock/advance': () => ['/_emulator/clock/advance', json({ by: '1h' })],
  'POST /clock/run-until-idle': () => ['/_emulator/clock/run-until-idle', json()],
  'GET /companies/:companyId/clock': (w) => [`/_emulator/companies/${w.ownId}/clock`],
  'POST /companies/:companyId/clock/advance': (w) => [`/_emulator/companies/${w.ownId}/clock/advance`, json({ to: '2026-01-02T00:00:00Z' })],
  'POST /companies/:companyId/clock/run-until-idle': (w) => [`/_emulator/companies/${w.ownId}/clock/run-until-idle`, json({ limit: 10 })],
  'GET /faults': () => ['/_emulator/faults'],
  'POST /faults': () => ['/_emulator/faults', json({ target: 'delivery', match: { eventType: 'webhook.teste' }, effect: { tamper: 'body' }, times: null })],
  'DELETE /faults': () => ['/_emulator/faults', { method: 'DELETE' }],
  'DELETE /faults/:id': (w) => [`/_emulator/faults/${w.faultId}`, { method: 'DELETE' }],
  'GET /network/routes': () => ['/_emulator/network/routes'],
  'POST /network/routes': () => ['/_emulator/network/routes', json({ from: 'https://hooks.example.com', to: 'http://127.0.0.1:9/x' })],
  'DELETE /network/routes': () => ['/_emulator/network/routes', { method: 'DELETE' }],
  'GET /regulatory': () => ['/_emulator/regulatory'],
  'POST /regulatory/snapshots': () => ['/_emulator/regulatory/snapshots', json({ adicionar: [{ codigo: '01012100', descricao: 'Cavalos reprodutores' }] })],
  'GET /inbox': () => ['/_emulator/inbox'],
  'DELETE /inbox': () => ['/_emulator/inbox', { method: 'DELETE' }],
  'POST /companies/:companyId/events': (w) => [`/_emulator/companies/${w.companyId}/events`, json({ dados: { tipo: 'webhook.teste' } })],
  'GET /requests': () => ['/_emulator/requests'],
  'DELETE /requests': () => ['/_emulator/requests', { method: 'DELETE' }],
  'GET /companies/:companyId/faults': (w) => [`/_emulator/companies/${w.ownId}/faults`],
  'POST /companies/:companyId/faults': (w) => [`/_emulator/companies/${w.ownId}/faults`, json({ target: 'api', match: { method: 'get', path: '/v1/empresa' }, effect: { status: 503, retryAfter: 2 } })],
  'DELETE /companies/:companyId/faults': (w) => [`/_emulator/companies/${w.ownId}/faults`, { method: 'DELETE' }],
  'DELETE /companies/:companyId/faults/:id': (w) => [`/_emulator/companies/${w.ownId}/faults/${w.ownFaultId}`, { method: 'DELETE' }],
  'GET /companies/:companyId/inbox': (w) => [`/_emulator/companies/${w.companyId}/inbox`],
  'DELETE /companies/:companyId/inbox': (w) => [`/_emulator/companies/${w.companyId}/inbox`, { method: 'DELETE' }],
  'GET /companies/:companyId/journal': (w) => [`/_emulator/companies/${w.companyId}/journal`],
  'DELETE /companies/:companyId/journal': (w) => [`/_emulator/companies/${w.companyId}/journal`, { method: 'DELETE' }],
  'GET /inspector/demo': (w) => {
    paceOneStep(w.emu);
    return ['/_emulator/inspector/demo'];
  },
  'POST /inspector/demo/next': (w) => {
    paceOneStep(w.emu);
    return ['/_emulator/inspector/demo/next', json()];
  },
  'GET /state': () => ['/_emulator/state'],
  'PUT /state': (w) => ['/_emulator/state', { ...json(w.emu.snapshot()), method: 'PUT' }],
  'GET /inspector/companies/:companyId/timeline': (w) => [`/_emulator/inspector/companies/${w.companyId}/timeline?limit=5`],
  'GET /inspector/companies/:companyId/items/:itemId': (w) => [`/_emulator/inspector/companies/${w.companyId}/items/att:${w.emu.inbox.list()[0]!.eventId}:1`],
  // The stream never ends by itself: the call aborts it, which ends it cleanly with what it sent (a clock frame).
  'GET /inspector/stream': (w) => [`/_emulator/inspector/stream?companyId=${w.companyId}`, { signal: AbortSignal.timeout(300) }],
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

describe('every control answers as its table row says', () => {
  it('has one call for each row', () => {
    expect(Object.keys(CALLS).sort()).toEqual(CONTROL_ROUTES.map((r) => key(r.method, r.path)).sort());
  });

  for (const route of CONTROL_ROUTES) {
    it(`${route.method} ${route.path}: ${Object.keys(route.success).join(' or ')}`, async () => {
      const w = await world();
      const call = CALLS[key(route.method, route.path)];
      expect(call, 'a call in CALLS').toBeDefined();
      const [path, init] = call!(w);
      const response = await w.emu.fetch(path, { method: route.method, ...init });
      const text = await response.text();
      const answer = route.success[response.status];
      expect(answer, `status ${response.status}: ${text.slice(0, 300)}`).toBeDefined();
      const body = answer!.body;
      if (body === undefined) expect(text).toBe('');
      else if (body instanceof z.ZodType) {
        expect(response.headers.get('content-type')).toMatch(/^application\/json/);
        const parsed = body.safeParse(JSON.parse(text));
        expect(parsed.success ? [] : parsed.error.issues, text.slice(0, 300)).toEqual([]);
      } else {
        expect(response.headers.get('content-type')).toMatch(body.mediaType === '*/*' ? /./ : new RegExp(`^${body.mediaType.replace('/', '\\/')}`));
        expect(text.length).toBeGreaterThan(0);
      }
    });
  }
});
