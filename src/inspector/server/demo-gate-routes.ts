/**
 * The demo gate's two controls, under the control app (so the Host check, the control token and the JSON content
 * type of writes apply): GET /inspector/demo, the run as the page shows it, and POST /inspector/demo/next, which
 * releases the step the scenario waits at and answers once that step has run.
 */
import type { Context, Hono } from 'hono';
import { apiError, CONTROL_REQUEST_ID, errorResponse } from '../../http/errors.js';
import { readJsonBody, requestBody } from '../../http/pipeline.js';
import type { BodySource } from '../../http/runtime.js';
import { demoGateOf, type DemoGate } from './demo-gate.js';

type GateEnv = { Bindings: { controls: object; body?: BodySource } };

/** `next` takes no input: no body, or an empty JSON object. */
const NEXT_BODY_LIMIT = 1024;

function gateOf(c: Context<GateEnv>): DemoGate | Response {
  return (
    demoGateOf(c.env.controls) ??
    errorResponse(apiError(404, 'demo_ausente', 'No demo runs on this emulator: start one with "catalog-emulator demo NAME --ui".'), CONTROL_REQUEST_ID)
  );
}

/** Registers the gate's controls on the control app (called once by src/control/routes.ts). */
export function registerDemoGate<E extends GateEnv>(app: Hono<E>): void {
  const routes = app as unknown as Hono<GateEnv>;
  routes.get('/inspector/demo', (c) => {
    const gate = gateOf(c);
    return gate instanceof Response ? gate : Response.json(gate.state());
  });
  routes.post('/inspector/demo/next', async (c) => {
    const read = await readJsonBody(c.req.raw, c.env.body ?? requestBody(c.req.raw), NEXT_BODY_LIMIT, true);
    if ('status' in read) return errorResponse(read, CONTROL_REQUEST_ID);
    const input = read.value;
    if (typeof input !== 'object' || input === null || Array.isArray(input) || Object.keys(input).length > 0) {
      const [field] = typeof input === 'object' && input !== null && !Array.isArray(input) ? Object.keys(input) : [];
      const caminho = field === undefined ? 'body' : `body.${field}`;
      return errorResponse(apiError(422, 'valor_invalido', `${caminho}: next takes no input (send no body, or {}).`, caminho), CONTROL_REQUEST_ID);
    }
    const gate = gateOf(c);
    if (gate instanceof Response) return gate;
    if (!gate.next()) {
      const why = gate.done ? 'the demo has ended' : 'a step is still running';
      return errorResponse(apiError(409, 'demo_nao_aguardando', `The demo waits at no step: ${why} (GET /_emulator/inspector/demo shows it).`), CONTROL_REQUEST_ID);
    }
    await gate.settled();
    return Response.json(gate.state());
  });
}
