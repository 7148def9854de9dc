/**
 * The receiver check (emu.webhooks.checkReceiver and checkDestination, /_emulator/webhooks/receiver-checks and
 * /_emulator/companies/{companyId}/receiver-checks): signed deliveries a webhook receiver must accept or refuse, each
 * answer judged (src/grading/receiver-check.ts holds the cases and the judging). A company's last check stays for
 * its report.
 */
import * as z from 'zod';
import {
  checkReceiver,
  readCheckOptions,
  readSecret,
  RECEIVER_CASE_FAILURES,
  RECEIVER_CASES,
  type ReceiverCaseId,
  type ReceiverCheck,
  type ReceiverCheckOptions,
} from '../../grading/receiver-check.js';
import { shown, type ControlContext } from '../context.js';
import { ControlError } from '../control-error.js';
import { BAD_BODY, control, NO_COMPANY, type Control, type Notes } from '../row.js';
import { named } from '../schemas.js';

/** What a check's report calls an in-process receiver. */
const IN_PROCESS = 'in-process handler';
/** The URL an in-process receiver's requests name when the check is given none. */
const DEFAULT_HANDLER_URL = 'https://receiver.test/';
const wallClock = () => Date.now();

/** The receiver check's controls among emu.webhooks'. */
export function receiverCheckControls(context: ControlContext) {
  const { engine } = context;
  return {
    /**
     * Sends the receiver check's cases to a receiver (its URL, through a network route that covers it, or an
     * in-process handler) signed with `secret`, and judges each answer within the attempt time-out of this
     * emulator's deliveries (`webhooks.attemptTimeout`), as an attempt is judged. The wall clock stamps them
     * unless `now` says otherwise (a receiver on fake timers). Throws a TypeError for options that are not; never
     * for what the receiver does (a promise rejected, like every failure of these two).
     */
    checkReceiver: async (options: ReceiverCheckOptions): Promise<ReceiverCheck> => {
      const usage = 'checkReceiver takes { url | fetch, secret, previousSecret?, now?, deadlineMs?, cnpjRoot? }';
      if (typeof options !== 'object' || options === null) throw new TypeError(usage);
      const limits = readCheckOptions(options, engine.config.core.delivery.attemptTimeoutMs);
      const secret = readSecret('secret', options.secret);
      const previous =
        options.previousSecret === undefined ? undefined : readSecret('previousSecret', options.previousSecret);
      const handler = options.fetch;
      if (handler !== undefined && typeof handler !== 'function') {
        throw new TypeError(
          "fetch must be a function taking a Fetch Request and returning a Response (a hono app's fetch, say)",
        );
      }
      if (handler === undefined && options.url === undefined) {
        throw new TypeError(
          "checkReceiver needs url (the receiver's http or https URL) or fetch (an in-process receiver)",
        );
      }
      const url = options.url === undefined ? DEFAULT_HANDLER_URL : receiverUrl(options.url);
      const routed = handler === undefined ? engine.routes.resolve(url) : undefined;
      const reach = handler ?? routed ?? url;
      const via = handler !== undefined ? IN_PROCESS : typeof routed === 'function' ? IN_PROCESS : (routed ?? null);
      const oldSecret = { secret: previous, source: 'given' } as const;
      const check = await checkReceiver(
        { url, reach, via },
        { ...limits, secret, oldSecret, now: limits.now ?? wallClock },
      );
      context.lastReceiverCheck = check;
      return check;
    },
    /**
     * The receiver check against a company's webhook destination: its URL through the network routes (a URL no
     * route covers would reach the built-in inbox, which accepts everything: 409 destino_sem_rota), signed with its
     * secret, `old-secret` with the secret before its last configuration change. Stamped by the company's clock
     * (the one its deliveries are signed with) unless `now` says otherwise. Kept as its lastReceiverCheck.
     */
    checkDestination: async (
      companyId: string,
      options: Pick<ReceiverCheckOptions, 'now' | 'deadlineMs'> = {},
    ): Promise<ReceiverCheck> => {
      const world = context.worldWith(companyId);
      const limits = readCheckOptions(options, engine.config.core.delivery.attemptTimeoutMs);
      const destination = world.state.webhookDestinations.get(companyId);
      if (destination === undefined) {
        throw new ControlError(
          404,
          'destino_nao_encontrado',
          `Company ${companyId} has no webhook destination to check; configure one with PUT /v1/webhook ` +
            '(If-None-Match: *) first.',
        );
      }
      const routed = engine.routes.resolve(destination.url);
      if (routed === undefined) {
        throw new ControlError(
          409,
          'destino_sem_rota',
          `No network route covers the destination ${destination.url}: its deliveries land in the built-in inbox, ` +
            'which accepts everything, so there is no receiver to check. Route it to your receiver (POST ' +
            '/_emulator/network/routes, emu.network.route or --route) first.',
        );
      }
      const cnpjRoot = world.state.companies.get(companyId)!.cnpjRoot;
      const target = { url: destination.url, reach: routed, via: typeof routed === 'function' ? IN_PROCESS : routed };
      const oldSecret = { secret: destination.previousSecret ?? undefined, source: 'previous' } as const;
      const now = limits.now ?? (() => engine.worldOf(companyId).clock.now());
      const check = await checkReceiver(target, { ...limits, cnpjRoot, secret: destination.secret, oldSecret, now });
      context.receiverChecks.set(companyId, check);
      context.lastReceiverCheck = check;
      return check;
    },
    /** The last checkDestination of a company (undefined before one); a company reset or removed forgets it. */
    lastReceiverCheck: (companyId: string): ReceiverCheck | undefined => {
      context.worldWith(companyId);
      return context.receiverChecks.get(companyId);
    },
  };
}

/** A receiver's URL: http or https (a TypeError otherwise). */
function receiverUrl(url: unknown): string {
  let parsed: URL | undefined;
  try {
    parsed = typeof url === 'string' ? new URL(url) : undefined;
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw new TypeError(`url must be the receiver's http:// or https:// URL (got ${shown(url)})`);
  }
  return url as string;
}

const checkLimits = {
  now: z.iso.datetime({ offset: true }).optional().meta({
    description: "The receiver's clock, ISO 8601: the cases' timestamps are taken from it (default: see the control).",
  }),
  deadlineMs: z
    .number()
    .int()
    .min(1)
    .max(600_000)
    .optional()
    .meta({
      description:
        "Real time the whole check may take: at least twice the emulator's attempt time-out, which each delivery is " +
        'given (default 60000, or that if longer).',
    }),
};
const receiverCheck = z.strictObject({
  url: z
    .string()
    .meta({ description: "The receiver's http or https URL (a network route that covers it is followed)." }),
  secret: z.string().min(1).meta({ description: 'The secret the receiver verifies with.' }),
  previousSecret: z.string().min(1).optional().meta({
    description: 'The secret before its last configuration change, for old-secret (a fresh one when absent).',
  }),
  cnpjRoot: z
    .string()
    .regex(/^\d{8}$/)
    .optional()
    .meta({ description: "The envelope's empresa (default 00000000)." }),
  ...checkLimits,
});
const destinationCheck = z.strictObject(checkLimits);

/** A check's answer: each case with its answer and verdict. */
const receiverCheckResult = named('ReceiverCheck', () => {
  const receiverCase = z.strictObject({
    id: z.enum(RECEIVER_CASES.map((c) => c.id) as [ReceiverCaseId, ...ReceiverCaseId[]]),
    expect: z.enum(['accept', 'reject']),
    statement: z.string(),
    sent: z.strictObject({
      headers: z.record(z.string(), z.string()).meta({ description: 'As sent, names in lower case.' }),
      bodyBytes: z.number().int(),
      bodySha256: z.string(),
    }),
    status: z.number().int().nullable().meta({ description: "The answer's status; null when no status line came." }),
    failure: z
      .enum(RECEIVER_CASE_FAILURES)
      .nullable()
      .meta({ description: 'Null for a complete answer; not-sent, deadline: not judged, the deadline passed first.' }),
    cause: z.string().nullable(),
    answer: z.string().meta({ description: "The first bytes of the answer's body (at most 2 KiB)." }),
    accepted: z.boolean().meta({ description: 'A completed 2xx.' }),
    ms: z.number().int(),
    verdict: z.enum(['pass', 'fail']),
    fix: z.string().nullable(),
  });
  return z.strictObject({
    receiver: z.strictObject({ url: z.string(), via: z.string().nullable() }),
    clock: z.string(),
    oldSecret: z.enum(['previous', 'given', 'fresh']),
    timeoutMs: z
      .number()
      .int()
      .meta({ description: "The attempt time-out each delivery was given (the emulator's webhooks.attemptTimeout)." }),
    cases: z.array(receiverCase),
    passed: z.number().int(),
    failed: z.number().int(),
    reachable: z.boolean().meta({ description: 'False when no case got an answer.' }),
    judged: z.boolean().meta({ description: 'False when the deadline passed before a case was judged (it fails).' }),
    notChecked: z.array(z.strictObject({ statement: z.string(), reason: z.string() })),
  });
});

/** A check's options as the in-process control takes them: `now` as Unix ms. */
function checkOptions<B extends { readonly now?: string | undefined }>(body: B): Omit<B, 'now'> & { now?: number } {
  const { now, ...rest } = body;
  return now === undefined ? rest : { ...rest, now: Date.parse(now) };
}

const checkWords = (answer: ReceiverCheck): Notes => ({
  detail:
    `receiver ${answer.receiver.url}: ${answer.passed} passed, ${answer.failed} failed` +
    (answer.reachable ? '' : ', unreachable'),
});

export const ROWS = [
  control({
    method: 'POST',
    path: '/webhooks/receiver-checks',
    id: 'checkReceiver',
    summary: 'Check a webhook receiver: send it signed deliveries it must accept or refuse, and judge each answer',
    tag: 'Grading',
    scope: 'emulator',
    body: { schema: receiverCheck },
    success: {
      200: {
        description: 'Each case with its answer and verdict (a receiver that answered nothing: reachable false).',
        body: receiverCheckResult,
      },
    },
    errors: { 422: `${BAD_BODY} Not an http or https url.` },
    run: ({ emu, body }) => emu.webhooks.checkReceiver(checkOptions(body)),
    describe: checkWords,
    sample: () => ({
      path: '/webhooks/receiver-checks',
      body: { url: 'https://hooks.acme.example/outro', secret: 'svc_whsec_um-segredo' },
    }),
  }),
  control({
    method: 'POST',
    path: '/companies/:companyId/receiver-checks',
    id: 'checkDestination',
    summary:
      "Check the company's webhook receiver: its destination's URL through the network routes, signed with its secret",
    tag: 'Grading',
    scope: 'company',
    body: { schema: destinationCheck },
    success: {
      200: {
        description: "Each case with its answer and verdict; kept as the company's last check.",
        body: receiverCheckResult,
      },
    },
    errors: {
      404: `${NO_COMPANY} destino_nao_encontrado: the company has no webhook destination.`,
      409:
        'destino_sem_rota: no network route covers the destination URL (the built-in inbox, which accepts ' +
        'everything, ' +
        'would get the cases).',
      422: BAD_BODY,
    },
    run: ({ emu, params, body }) => emu.webhooks.checkDestination(params.companyId, checkOptions(body)),
    describe: checkWords,
    sample: (w) => ({ path: `/companies/${w.companyId}/receiver-checks`, body: { now: '2026-01-01T00:00:00Z' } }),
  }),
  control({
    method: 'GET',
    path: '/companies/:companyId/receiver-checks/last',
    id: 'getLastReceiverCheck',
    summary: "The company's last receiver check",
    tag: 'Grading',
    scope: 'company',
    success: { 200: { description: 'As POST answered it.', body: receiverCheckResult } },
    errors: {
      404: `${NO_COMPANY} verificacao_inexistente: no check of this company's receiver since it was created or reset.`,
    },
    run: ({ emu, params }) => {
      const { companyId } = params;
      const last = emu.webhooks.lastReceiverCheck(companyId);
      if (last !== undefined) return last;
      throw new ControlError(
        404,
        'verificacao_inexistente',
        `No receiver check of company ${companyId} yet: POST /_emulator/companies/${companyId}/receiver-checks ` +
          'runs one.',
      );
    },
    sample: (w) => ({ path: `/companies/${w.companyId}/receiver-checks/last` }),
  }),
] as const satisfies readonly Control[];
