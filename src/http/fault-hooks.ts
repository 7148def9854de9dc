/**
 * What each api fault effect does to a request, and at which named hook of the pipeline (src/http/pipeline.ts)
 * it does it. The hooks, in the order a request meets them:
 *
 *   arrival     before anything is checked; the faults taken on `arrival` are taken (counted, journaled) here
 *   held        after the idempotency check, before validation: the request is in flight under its key
 *   evaluation  inside the core's transition, just before the operation runs, on an operation that takes
 *               If-Match and a request that sent one; the faults taken at `evaluation` are taken here, and
 *               fire only if their act could act (it answers whether it did)
 *   answered    after the core applied the request and its answer was stored for replays
 *   sent        the answer as it leaves the pipeline, whatever it is (a refusal, a replay, an error included)
 *
 * The faults module (src/engine/faults.ts) defines each effect, its schema and the moment it is taken; its
 * behaviour is the one row here. An effect taken on `arrival` acts at `arrival`, `held` or `answered`; one taken
 * at `evaluation` acts there (the types hold the rows to that). The damage an act at `sent` marks an answer with is
 * done by whoever sends it (damage.ts): the socket, or emu.fetch.
 */
import { saveConcurrently } from '../core/concurrent-edit.js';
import type { StoredResponse } from '../core/idempotency.js';
import type { Context, State } from '../core/state.js';
import type { IfMatchOperation } from '../core/versioning.js';
import type { ApiEffectMoment, ApiEffectName, ApiFault, ApiFaultEffectOf } from '../engine/faults.js';
import { damaged, type Damage } from './damage.js';
import { apiError, codeForStatus, standingFor, type ApiError } from './errors.js';
import type { Runtime } from '../engine/runtimes.js';

export type Hook = 'arrival' | 'held' | 'evaluation' | 'answered' | 'sent';

/** What an act sees of the request at each hook. */
export interface HookScene {
  readonly arrival: Record<string, never>;
  readonly held: { readonly runtime: Runtime; readonly companyId: string };
  readonly evaluation: {
    readonly state: State;
    readonly ctx: Context;
    readonly companyId: string;
    readonly guard: IfMatchOperation;
    /** The id of the guarded resource, from the path (undefined for the company's own selection and destination). */
    readonly guardedId: string | undefined;
  };
  readonly answered: { readonly answer: StoredResponse };
  readonly sent: { readonly response: Response };
}

/** What an act decides at each hook: an error that answers the request instead, or, at `evaluation`, whether it acted. */
export interface HookOutcome {
  readonly arrival: ApiError | undefined;
  readonly held: Promise<ApiError | undefined>;
  readonly evaluation: boolean;
  /** The answer to send: the stored one (as it is, or changed on its way), or an error in its place. */
  readonly answered: { readonly answer: StoredResponse } | { readonly error: ApiError };
  /** The answer to send in its place (its body changed, or marked with the damage its sender does). */
  readonly sent: Promise<Response>;
}

type HooksOf<K extends ApiEffectName> =
  ApiEffectMoment<K> extends 'evaluation' ? 'evaluation' : Exclude<Hook, 'evaluation'>;

/** The effect `K`'s act at each hook where it acts. */
type Acts = {
  readonly [K in ApiEffectName]: {
    readonly [H in HooksOf<K>]?: (effect: ApiFaultEffectOf<K>, faultId: string, scene: HookScene[H]) => HookOutcome[H];
  };
};

/**
 * An answer a fault chose says so (`x-emulator-fault: <id>`): the real service never sends it, so a client's
 * logs tell an injected 503 from a real one, and the OpenAPI document allows a status outside an operation's
 * set only on such an answer.
 */
const faultHeader = (id: string) => ({ 'x-emulator-fault': id });

/** The answer, with the fault's header, marked with `damage`, which its sender does (damage.ts). */
function sentDamaged(response: Response, id: string, damage: Damage): Promise<Response> {
  response.headers.set('x-emulator-fault', id);
  return Promise.resolve(damaged(response, damage));
}

export const API_FAULT_ACTS: Acts = {
  status: {
    arrival: ({ status, retryAfter }, id) =>
      apiError(
        status,
        codeForStatus(status),
        `Injected fault ${id}: answered ${status} before the request was processed; nothing was applied.`,
        undefined,
        { ...faultHeader(id), ...(retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) }) },
      ),
  },
  delayMs: {
    held: async ({ delayMs }, id, { runtime, companyId }) => {
      const end = await runtime.clock.sleep(delayMs, companyId);
      // Released by a reset, restore or close: the state this request was checked against is gone, so it must
      // not run against whatever replaced it.
      return end.reached
        ? undefined
        : apiError(
            503,
            'servico_indisponivel',
            `Injected fault ${id}: the emulator was ${end.reason} while this request was held by its delayMs; nothing was applied. Send the request again.`,
            undefined,
            faultHeader(id),
          );
    },
  },
  // Another client saves what this If-Match guards, just before the request is evaluated (docs/faults.md); a
  // resource that is not there to save leaves the fault armed.
  concurrentEdit: {
    evaluation: (_, _id, { state, ctx, companyId, guard, guardedId }) =>
      saveConcurrently(state, companyId, guard.guards, guardedId, ctx),
  },
  loseResponse: {
    answered: (_, id) => ({
      error: apiError(
        503,
        'servico_indisponivel',
        `Injected fault ${id}: the request was processed, then its answer was lost. Retry it with the same idempotency-key.`,
        undefined,
        faultHeader(id),
      ),
    }),
  },
  // The first half of the JSON text, its length as the Content-Length: well framed, and never JSON (every answer
  // is an object, and no proper prefix of an object is one).
  malformedJson: {
    sent: async (_, id, { response }) => {
      const text = await response.text();
      const body = text.slice(0, Math.ceil(text.length / 2));
      const headers = new Headers(response.headers);
      headers.set('x-emulator-fault', id);
      headers.set('content-length', String(new TextEncoder().encode(body).length));
      return standingFor(new Response(body, { status: response.status, headers }), response);
    },
  },
  reset: { sent: (_, id, { response }) => sentDamaged(response, id, { kind: 'reset' }) },
  truncate: { sent: (_, id, { response }) => sentDamaged(response, id, { kind: 'truncate' }) },
  trickleMs: {
    sent: ({ trickleMs }, id, { response }) => sentDamaged(response, id, { kind: 'trickle', ms: trickleMs }),
  },
};

const EFFECT_NAMES = Object.keys(API_FAULT_ACTS) as ApiEffectName[];

/** The act of `fault` at `hook`, if its effect acts there; undefined otherwise. */
export function actAt<H extends Hook>(
  fault: ApiFault | undefined,
  hook: H,
  scene: HookScene[H],
): HookOutcome[H] | undefined {
  if (fault === undefined) return undefined;
  // An effect is named by its one required field; the table has a row for every name (Acts).
  const name = EFFECT_NAMES.find((n) => n in fault.effect)!;
  return actOf(fault.id, name, fault.effect, hook)?.(scene);
}

/** Whether `fault`'s effect acts at `hook`. */
export function actsAt(fault: ApiFault, hook: Hook): boolean {
  return hook in API_FAULT_ACTS[EFFECT_NAMES.find((n) => n in fault.effect)!];
}

/** The act of effect `name` at `hook`, bound to the fault, read under the name's own type parameter. */
function actOf<K extends ApiEffectName, H extends Hook>(
  id: string,
  name: K,
  effect: ApiFaultEffectOf<K>,
  hook: H,
): ((scene: HookScene[H]) => HookOutcome[H]) | undefined {
  const row: Partial<
    Record<Hook, (effect: ApiFaultEffectOf<K>, faultId: string, scene: HookScene[H]) => HookOutcome[H]>
  > = API_FAULT_ACTS[name];
  const act = row[hook];
  return act && ((scene) => act(effect, id, scene));
}
