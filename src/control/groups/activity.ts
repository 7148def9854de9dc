/**
 * What the emulator does, as it happens (emu.activity, GET /_emulator/activity/stream): each API request, control
 * call, webhook delivery attempt, job step and finding on the client. Over HTTP the inspector's entry streams it
 * (src/inspector/server/activity-stream.ts).
 */
import * as z from 'zod';
import {
  ACTIVITY_KINDS,
  type Activity,
  type ActivityEntry,
  type ControlActivity,
  type DeliveryActivity,
  type FindingActivity,
  type JobActivity,
  type RequestActivity,
} from '../../engine/activity.js';
import { activityAnswer } from '../../inspector/server/routes.js';
import type { ControlContext } from '../context.js';
import { control, NO_COMPANY, type Control } from '../row.js';
import { schemaOf as ofType } from '../snapshot-schema.js';
import { lazy } from '../schemas.js';
import { journalEntry } from './journal.js';

/** emu.activity. */
export const activityOf = ({ engine }: ControlContext): Activity => ({
  subscribe: (listener) => engine.activity.subscribe(listener),
});

// The frames of the stream: each entry's schema is checked against its type (src/engine/activity.ts) by the
// compiler, both ways.
const activityOpen = lazy(() =>
  z.strictObject({ companyId: z.string().nullable(), kinds: z.array(z.enum(ACTIVITY_KINDS)) }),
);
const activityEntry = lazy(() => {
  const activityError = z.strictObject({ codigo: z.string(), caminho: z.string().nullable() }).nullable();
  const virtualMs = z.number().int().min(0);
  return ofType<ActivityEntry>()(
    z.discriminatedUnion('kind', [
      ofType<RequestActivity>()(
        journalEntry()
          .omit({ codigo: true })
          .extend({ kind: z.literal('request'), error: activityError, durationMs: virtualMs }),
      ),
      ofType<ControlActivity>()(
        z.strictObject({
          kind: z.literal('control'),
          at: z.string(),
          method: z.string(),
          path: z.string(),
          status: z.number().int(),
          operation: z.string().nullable(),
          detail: z.string().nullable(),
          error: activityError,
          scope: z.enum(['company', 'shared clock', 'emulator', 'inspector']).nullable(),
          companyId: z.string().nullable(),
          faultId: z.string().nullable(),
        }),
      ),
      ofType<DeliveryActivity>()(
        z.strictObject({
          kind: z.literal('delivery'),
          at: z.string(),
          companyId: z.string(),
          eventId: z.string(),
          eventType: z.string(),
          attempt: z.number().int().min(1),
          cycle: z.number().int().min(1),
          attemptInCycle: z.number().int().min(1),
          attemptsPerCycle: z.number().int().min(1),
          url: z.string(),
          outcome: z.enum(['entregue', 'falhou', 'incerta']),
          failure: z.string().nullable(),
          status: z.number().int().nullable(),
          durationMs: virtualMs,
          nextAttemptAt: z.string().nullable(),
          eventState: z.string(),
        }),
      ),
      ofType<JobActivity>()(
        z.strictObject({
          kind: z.literal('job'),
          at: z.string(),
          task: z.string(),
          companyId: z.string().nullable(),
          subjectId: z.string().nullable(),
          fault: z.enum(['delayed', 'failed']).nullable(),
        }),
      ),
      ofType<FindingActivity>()(
        z.strictObject({
          kind: z.literal('finding'),
          at: z.string(),
          rule: z.string(),
          companyId: z.string().nullable(),
          statements: z.array(z.string()),
          message: z.string(),
          requestIds: z.array(z.string()),
          eventIds: z.array(z.string()),
          fix: z.string(),
        }),
      ),
    ]),
  );
});
const activityEnd = lazy(() => z.strictObject({ reason: z.enum(['closed', 'behind']) }));

export const ROWS = [
  control({
    method: 'GET',
    path: '/activity/stream',
    id: 'streamActivity',
    summary:
      "The emulator's activity live, as server-sent events: each API request, control call, webhook delivery " +
      "attempt, job step and finding on the client, as the CLI's JSON log writes it",
    tag: 'Journal',
    scope: 'emulator',
    query: [
      {
        name: 'companyId',
        description:
          "Only this company's entries (a call of the whole emulator, such as a reset or the shared clock's advance, " +
          'names none).',
      },
      {
        name: 'kinds',
        description:
          'Only entries of these kinds, comma-separated: request, control, delivery, job, finding (default: all five).',
      },
    ],
    success: {
      200: {
        description:
          'text/event-stream: an `open` frame (the filters), then an `activity` frame per entry (data: the entry), a ' +
          'comment every 15 s, and an `end` frame before the server ends it: `{"reason": "closed"}` when the ' +
          'emulator ' +
          'closes, `{"reason": "behind"}` when the reader fell 1 MiB behind (what it had not read is dropped). The ' +
          'call that opened it is not in it.',
        body: {
          mediaType: 'text/event-stream',
          frames: { open: activityOpen, activity: activityEntry, end: activityEnd },
        },
      },
    },
    errors: {
      404: NO_COMPANY,
      422:
        'valor_invalido: a kind that is none of the five, an unknown parameter, or one given twice (caminho names ' +
        'it).',
    },
    run: ({ activity, query, request }) => activityAnswer(activity, query, request),
    sample: (w) => ({ path: `/activity/stream?companyId=${w.companyId}&kinds=request,delivery` }),
  }),
] as const satisfies readonly Control[];
