/**
 * Injected faults (DESIGN §6). Each fault fires `times` times (default 1; null = until removed); the first
 * matching fault fires.
 *
 * - `api`: matches method, path (a glob: `*` is any run of characters but `/`, `**` any run at all) and company.
 * - `delivery`: matches the destination URL (the same glob), the event type and the company.
 * - `job`: matches the kind of background job (README "Jobs") and the company.
 */
import { z } from 'zod';
import { DAY } from '../core/time.js';
import { EVENT_KINDS } from '../core/webhooks/events.js';
import type { ApiFault, ApiFaultEffect, ApiFaultMatch } from '../http/runtime.js';

const apiEffect = z.union([
  z.strictObject({ status: z.number().int().min(400).max(599), retryAfter: z.number().int().min(0).max(86_400).optional() }),
  z.strictObject({ loseResponse: z.literal(true) }),
  z.strictObject({ concurrentEdit: z.literal(true) }),
  z.strictObject({ delayMs: z.number().int().min(0).max(DAY) }),
]);

const deliveryEffect = z.union([
  /** The receiver is not reached; the network answers this status. */
  z.strictObject({ status: z.number().int().min(100).max(599) }),
  /** The network answers a redirect to `redirect` (or to the URL + "/moved"); redirects are not followed. */
  z.strictObject({ redirect: z.union([z.literal(true), z.string().url()]) }),
  /** The receiver gets the request; its answer never comes back: the attempt times out. */
  z.strictObject({ timeout: z.literal(true) }),
  /** The connection is refused: the receiver gets nothing. */
  z.strictObject({ refuse: z.literal(true) }),
  /** The receiver gets the request; the connection breaks before its answer. */
  z.strictObject({ reset: z.literal(true) }),
  /** The answer takes this long (virtual time); 15 s or more is a time-out. */
  z.strictObject({ latencyMs: z.number().int().min(0).max(DAY) }),
  /** The receiver gets the request twice (the attempt's outcome is the first answer). */
  z.strictObject({ duplicate: z.literal(true) }),
  /** The receiver gets a request whose signature, body or timestamp (validly signed, 10 minutes old) was tampered with. */
  z.strictObject({ tamper: z.enum(['signature', 'body', 'timestamp']) }),
]);

const jobEffect = z.union([
  /** The job's run fails (an analysis fails; a cleanup run is skipped until the next one). */
  z.strictObject({ fail: z.literal(true) }),
  /** The job's run is postponed by this long (virtual time). */
  z.strictObject({ delayMs: z.number().int().min(0).max(30 * DAY) }),
]);

const companyId = z.string().min(1).max(64);
const glob = (what: string) => z.string().min(1).max(2048).describe(what);
const times = z.number().int().min(1).nullable().default(1);

export const faultInput = z.discriminatedUnion(
  'target',
  [
    z.strictObject({
      target: z.literal('api'),
      match: z.strictObject({ method: z.enum(['GET', 'POST', 'PATCH', 'PUT', 'DELETE']).optional(), path: glob('path').startsWith('/', 'must start with "/"').optional(), companyId: companyId.optional() }).default({}),
      effect: apiEffect,
      times,
    }),
    z.strictObject({
      target: z.literal('delivery'),
      match: z.strictObject({ url: glob('url').optional(), eventType: z.enum(EVENT_KINDS).optional(), companyId: companyId.optional() }).default({}),
      effect: deliveryEffect,
      times,
    }),
    z.strictObject({
      target: z.literal('job'),
      match: z.strictObject({ kind: z.string().min(1).max(64).optional(), companyId: companyId.optional() }).default({}),
      effect: jobEffect,
      times,
    }),
  ],
  { error: 'target must be "api", "delivery" or "job"' },
);

export type FaultInput = z.input<typeof faultInput>;
type ParsedFault = z.output<typeof faultInput>;
export type DeliveryFaultEffect = z.output<typeof deliveryEffect>;
export type JobFaultEffect = z.output<typeof jobEffect>;

export type FaultView = ParsedFault & {
  readonly id: string;
  /** Firings left; null = until removed. */
  readonly times: number | null;
  readonly hits: number;
};

interface Fault {
  readonly id: string;
  readonly spec: ParsedFault;
  readonly pattern: RegExp | undefined;
  times: number | null;
  hits: number;
}

export interface DeliveryFaultMatch {
  readonly url: string;
  readonly eventType: string;
  readonly companyId: string;
}

export interface JobFaultMatch {
  readonly kind: string;
  readonly companyId: string | null;
  /** Only faults with this effect (a job that can be postponed at its start and fail at its end asks for each there). */
  readonly effect?: 'fail' | 'delayMs';
}

export class FaultRegistry {
  private readonly faults: Fault[] = [];
  private counter = 0;

  /** Throws a z.ZodError when `input` is not a fault. */
  add(input: unknown): { id: string } {
    const spec = faultInput.parse(input);
    const id = `flt_${++this.counter}`;
    const pattern = spec.target === 'api' ? spec.match.path : spec.target === 'delivery' ? spec.match.url : undefined;
    this.faults.push({ id, spec, pattern: pattern === undefined ? undefined : globToRegExp(pattern), times: spec.times, hits: 0 });
    return { id };
  }

  list(): FaultView[] {
    return this.faults.map(({ id, spec, times, hits }) => ({ ...spec, id, times, hits }));
  }

  remove(id: string): boolean {
    const index = this.faults.findIndex((f) => f.id === id);
    if (index < 0) return false;
    this.faults.splice(index, 1);
    return true;
  }

  clear(): void {
    this.faults.length = 0;
  }

  takeApi(request: ApiFaultMatch): ApiFault | undefined {
    const fault = this.take((f) => f.spec.target === 'api' && matches(f, f.spec.match, request));
    return fault && fault.spec.target === 'api' ? { id: fault.id, effect: fault.spec.effect as ApiFaultEffect } : undefined;
  }

  takeDelivery(request: DeliveryFaultMatch): { id: string; effect: DeliveryFaultEffect } | undefined {
    const fault = this.take((f) => {
      if (f.spec.target !== 'delivery') return false;
      const { eventType, companyId } = f.spec.match;
      return (eventType === undefined || eventType === request.eventType) && (companyId === undefined || companyId === request.companyId) && (!f.pattern || f.pattern.test(request.url));
    });
    return fault && fault.spec.target === 'delivery' ? { id: fault.id, effect: fault.spec.effect } : undefined;
  }

  takeJob(request: JobFaultMatch): { id: string; effect: JobFaultEffect } | undefined {
    const fault = this.take((f) => {
      if (f.spec.target !== 'job') return false;
      const { kind, companyId } = f.spec.match;
      return (kind === undefined || kind === request.kind) && (companyId === undefined || companyId === request.companyId) && (request.effect === undefined || request.effect in f.spec.effect);
    });
    return fault && fault.spec.target === 'job' ? { id: fault.id, effect: fault.spec.effect } : undefined;
  }

  private take(test: (fault: Fault) => boolean): Fault | undefined {
    if (this.faults.length === 0) return undefined;
    const index = this.faults.findIndex(test);
    if (index < 0) return undefined;
    const fault = this.faults[index]!;
    fault.hits++;
    if (fault.times !== null && --fault.times === 0) this.faults.splice(index, 1);
    return fault;
  }
}

function matches(fault: Fault, match: { method?: string; companyId?: string }, request: ApiFaultMatch): boolean {
  if (match.method !== undefined && match.method !== request.method) return false;
  if (match.companyId !== undefined && match.companyId !== request.companyId) return false;
  if (fault.pattern && !fault.pattern.test(request.path)) return false;
  // concurrentEdit needs a resource guarded by If-Match; elsewhere the fault waits for one.
  if ('concurrentEdit' in fault.spec.effect && !request.hasEditTarget) return false;
  return true;
}

function globToRegExp(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i]!;
    if (ch === '*' && glob[i + 1] === '*') {
      source += '.*';
      i++;
    } else if (ch === '*') source += '[^/]*';
    else source += ch.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 'i');
}
