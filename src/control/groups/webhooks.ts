/**
 * Webhook events on demand (emu.webhooks.raise, POST /_emulator/companies/{companyId}/events): an event of any kind
 * raised for a company as the service would raise it. emu.webhooks also holds the receiver check's controls
 * (receiver-checks.ts).
 */
import * as z from 'zod';
import { EVENT_KINDS, raiseEvent, type EventData } from '../../core/webhooks/events.js';
import type { ControlContext } from '../context.js';
import { ControlError } from '../control-error.js';
import { BAD_BODY, control, NO_COMPANY, type Control } from '../row.js';
import { lazy } from '../schemas.js';
import { receiverCheckControls } from './receiver-checks.js';

/** emu.webhooks. */
export function webhooksControls(context: ControlContext) {
  return {
    /**
     * Raises an event for a company as the service would (the envelope built, signed and delivered on the
     * clock): to exercise a receiver with any of the eight kinds before the feature that raises it exists.
     * Refused (404 destino_nao_encontrado) for a company without a webhook destination: the service records
     * no event there (an event always names its destination: spec CONV-09, WH-EVT-01), and a control that
     * made one up would show what the service never does.
     */
    raise: (companyId: string, dados: EventData): { eventId: string } => {
      const world = context.worldWith(companyId);
      if (!EVENT_KINDS.includes(dados.tipo)) {
        throw new ControlError(
          422,
          'valor_invalido',
          `dados.tipo must be one of ${EVENT_KINDS.join(', ')}.`,
          'body.dados.tipo',
        );
      }
      const event = world.apply((state, ctx) => raiseEvent(state, companyId, dados, ctx));
      if (event === undefined) {
        throw new ControlError(
          404,
          'destino_nao_encontrado',
          `Company ${companyId} has no webhook destination: the service records and delivers events only for a ` +
            'company that has a destination (active, or revoked and kept for resends). Configure one with PUT ' +
            '/v1/webhook (If-None-Match: *) first.',
        );
      }
      return { eventId: event.id };
    },
    ...receiverCheckControls(context),
  };
}

export type WebhooksControls = ReturnType<typeof webhooksControls>;

const raisedEvent = z.strictObject({
  dados: z
    .looseObject({ tipo: z.enum(EVENT_KINDS) })
    .meta({ description: "The event's data, as the service's own events carry it." }),
});
const eventId = lazy(() => z.strictObject({ eventId: z.string() }));

export const ROWS = [
  control({
    method: 'POST',
    path: '/companies/:companyId/events',
    id: 'raiseEvent',
    summary: 'Raise a webhook event of any kind, delivered like the service’s own',
    tag: 'Inbox',
    scope: 'company',
    body: { schema: raisedEvent },
    success: { 201: { description: 'The event raised.', body: eventId } },
    errors: { 404: `${NO_COMPANY} destino_nao_encontrado: the company has no webhook destination.`, 422: BAD_BODY },
    run: ({ emu, params, body }) => emu.webhooks.raise(params.companyId, body.dados as EventData),
    describe: (answer) => ({ detail: `event ${answer.eventId}` }),
    sample: (w) => ({ path: `/companies/${w.companyId}/events`, body: { dados: { tipo: 'webhook.teste' } } }),
  }),
] as const satisfies readonly Control[];
