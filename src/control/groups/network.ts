/**
 * Where webhook deliveries go (emu.network, /_emulator/network/routes): routes from public URL prefixes to local
 * URLs, or in process to a handler.
 */
import * as z from 'zod';
import type { NetworkRoute, ReceiverHandler } from '../../network/routes.js';
import type { ControlContext } from '../context.js';
import { ControlError } from '../control-error.js';
import { BAD_BODY, control, NO_CONTENT, type Control } from '../row.js';
import { items, lazy, named, none } from '../schemas.js';

/** emu.network. */
export function networkControls({ engine }: ControlContext) {
  return {
    /**
     * Sends deliveries for URLs under `from` (https) to the local URL `to`, or to an in-process handler that
     * takes a Fetch Request and returns a Response (throwing, or never answering, simulates a dead peer).
     */
    route: (from: string, to: string | ReceiverHandler): NetworkRoute => engine.routes.add(from, to),
    routes: (): NetworkRoute[] => engine.routes.list(),
    unroute: (from: string): boolean => engine.routes.remove(from),
    clear: (): void => engine.routes.clear(),
  };
}

export type NetworkControls = ReturnType<typeof networkControls>;

/** The routes as they travel over HTTP: an in-process handler shows as "(in-process handler)", only URLs travel. */
export const routesShown = (routes: readonly NetworkRoute[]) =>
  routes.map((r) => ({ from: r.from, to: typeof r.to === 'function' ? '(in-process handler)' : r.to }));

const route = z.strictObject({
  from: z.string().meta({ description: 'A public https URL prefix the webhook destination may name.' }),
  to: z.string().meta({ description: 'The local URL (http://127.0.0.1:…) that gets those deliveries.' }),
});

export const networkRoute = named('NetworkRoute', () =>
  z.strictObject({
    from: z.string(),
    to: z.string().meta({ description: 'A local URL; "(in-process handler)" for a handler given in process.' }),
  }),
);
const networkRoutes = lazy(() => items(networkRoute()));

export const ROWS = [
  control({
    method: 'GET',
    path: '/network/routes',
    id: 'listNetworkRoutes',
    summary: 'The delivery routes',
    tag: 'Network',
    scope: 'emulator',
    success: { 200: { description: 'The routes.', body: networkRoutes } },
    errors: {},
    run: ({ emu }) => ({ items: routesShown(emu.network.routes()) }),
    sample: () => ({ path: '/network/routes' }),
  }),
  control({
    method: 'POST',
    path: '/network/routes',
    id: 'addNetworkRoute',
    summary: 'Send deliveries for a public webhook URL prefix to a local URL',
    tag: 'Network',
    scope: 'emulator',
    body: { schema: route },
    success: { 201: { description: 'The route, normalized.', body: networkRoute } },
    errors: { 422: BAD_BODY },
    run: ({ emu, body }) => emu.network.route(body.from, body.to),
    describe: (answer) => ({ detail: `${answer.from} → ${String(answer.to)}` }),
    sample: () => ({
      path: '/network/routes',
      body: { from: 'https://hooks.example.com', to: 'http://127.0.0.1:9/x' },
    }),
  }),
  control({
    method: 'DELETE',
    path: '/network/routes',
    id: 'removeNetworkRoutes',
    summary: 'Remove the route from a prefix, or every route',
    tag: 'Network',
    scope: 'emulator',
    query: [{ name: 'from', description: 'The prefix of the route to remove (204); absent: every route (200).' }],
    success: {
      200: { description: 'Without from: every route removed, none left.', body: none },
      204: { description: 'With from: that route removed.' },
    },
    errors: { 404: 'rota_nao_encontrada: no route from this prefix.' },
    run: ({ emu, query }) => {
      if (query.from === undefined) {
        emu.network.clear();
        return { items: [] };
      }
      if (!emu.network.unroute(query.from)) {
        throw new ControlError(404, 'rota_nao_encontrada', `No route from ${query.from}.`, 'query.from');
      }
      return NO_CONTENT;
    },
    sample: () => ({ path: '/network/routes' }),
  }),
] as const satisfies readonly Control[];
