/**
 * Injected faults (DESIGN §6). Target `api` matches method, path (a glob: `*` is any run of characters but
 * `/`, `**` any run at all) and company; each fault fires `times` times (default 1; null = until removed).
 * Targets `delivery` and `job` come with the webhook and analysis engines.
 */
import { z } from 'zod';
import { DAY } from '../core/time.js';
import type { ApiFault, ApiFaultEffect, ApiFaultMatch } from '../http/runtime.js';

const apiEffect = z.union([
  z.strictObject({ status: z.number().int().min(400).max(599), retryAfter: z.number().int().min(0).max(86_400).optional() }),
  z.strictObject({ loseResponse: z.literal(true) }),
  z.strictObject({ concurrentEdit: z.literal(true) }),
  z.strictObject({ delayMs: z.number().int().min(0).max(DAY) }),
]);

export const faultInput = z.strictObject({
  target: z.literal('api', 'target must be "api" (delivery and job faults arrive with webhooks and analyses)'),
  match: z
    .strictObject({
      method: z.enum(['GET', 'POST', 'PATCH', 'PUT', 'DELETE']).optional(),
      path: z.string().min(1).max(512).startsWith('/', 'must start with "/"').optional(),
      companyId: z.string().min(1).max(64).optional(),
    })
    .default({}),
  effect: apiEffect,
  times: z.number().int().min(1).nullable().default(1),
});

export type FaultInput = z.input<typeof faultInput>;

export interface FaultView {
  readonly id: string;
  readonly target: 'api';
  readonly match: { method?: string; path?: string; companyId?: string };
  readonly effect: ApiFaultEffect;
  /** Firings left; null = until removed. */
  readonly times: number | null;
  readonly hits: number;
}

interface Fault extends FaultView {
  readonly pathPattern: RegExp | undefined;
  times: number | null;
  hits: number;
}

export class FaultRegistry {
  private readonly faults: Fault[] = [];
  private counter = 0;

  /** Throws a z.ZodError when `input` is not a fault. */
  add(input: unknown): { id: string } {
    const parsed = faultInput.parse(input);
    const id = `flt_${++this.counter}`;
    this.faults.push({ id, ...parsed, pathPattern: parsed.match.path === undefined ? undefined : globToRegExp(parsed.match.path), hits: 0 });
    return { id };
  }

  list(): FaultView[] {
    return this.faults.map(({ id, target, match, effect, times, hits }) => ({ id, target, match, effect, times, hits }));
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
    if (this.faults.length === 0) return undefined;
    const index = this.faults.findIndex((f) => matches(f, request));
    if (index < 0) return undefined;
    const fault = this.faults[index]!;
    fault.hits++;
    if (fault.times !== null && --fault.times === 0) this.faults.splice(index, 1);
    return { id: fault.id, effect: fault.effect };
  }
}

function matches(fault: Fault, request: ApiFaultMatch): boolean {
  const { method, companyId } = fault.match;
  if (method !== undefined && method !== request.method) return false;
  if (companyId !== undefined && companyId !== request.companyId) return false;
  if (fault.pathPattern && !fault.pathPattern.test(request.path)) return false;
  // concurrentEdit needs a resource guarded by If-Match; elsewhere the fault waits for one.
  if ('concurrentEdit' in fault.effect && !request.hasEditTarget) return false;
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
