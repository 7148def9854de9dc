/**
 * What the groups of in-process controls (src/control/groups/) share: the engine they drive, the emulator's controls
 * (a group that uses another's calls it there), what the grading keeps of receiver checks, and the checks every view
 * makes of a company it is given. Made once per emulator, on the first use of any group (api.ts).
 */
import type { Result } from '../core/refusal.js';
import { ID_PATTERN } from '../core/random.js';
import type { Engine } from '../engine/engine.js';
import type { World } from '../engine/world.js';
import type { Exploration } from '../grading/exploration.js';
import type { ReceiverCheck } from '../grading/receiver-check.js';
import type { Grading } from '../grading/report.js';
import { STATUS_OF } from '../http/errors.js';
import { formatPath } from '../http/schemas.js';
import type { Controls } from './api.js';
import { ControlError } from './control-error.js';

/** What a view of the faults, the inbox or the journal is kept to: one company (by its id), or every one. */
export interface CompanyFilter {
  readonly companyId?: string;
}

export class ControlContext {
  /** Each company's last receiver check (webhooks.checkDestination), until it or the emulator is reset. */
  readonly receiverChecks = new Map<string, ReceiverCheck>();
  /**
   * The last receiver check of any kind (a URL, a handler, a company's destination): the whole report's receiver
   * part.
   */
  lastReceiverCheck: ReceiverCheck | undefined;
  /** The explorations told (groups/explorations.ts), the last begun last; kept across resets, as the report is. */
  readonly explorations = new Map<string, Exploration>();
  lastExplorationId: string | undefined;
  explorationsBegun = 0;

  constructor(
    readonly engine: Engine,
    readonly grading: Grading,
    readonly controls: Controls,
  ) {}

  /**
   * The world company `companyId` lives in; a ControlError 404 empresa_nao_encontrada, located at `caminho`, for a
   * company of none.
   */
  worldWith(companyId: string, caminho = 'path.companyId'): World {
    const world = this.engine.worldOf(companyId);
    if (!world.state.companies.has(companyId)) {
      throw new ControlError(404, 'empresa_nao_encontrada', `No company ${companyId} in this emulator.`, caminho);
    }
    return world;
  }

  /**
   * The company a view is filtered by (undefined: every company). A filter that is not `{ companyId? }` with a
   * company id of this emulator is 422 valor_invalido; an id no company has is 404 empresa_nao_encontrada, so
   * that a typo does not pass for a company with nothing to show.
   */
  filtered(filter: CompanyFilter): string | undefined {
    if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) {
      const given = JSON.stringify(filter) ?? String(filter);
      throw new ControlError(
        422,
        'valor_invalido',
        `A view's filter is { companyId?: string }; got ${given}.`,
        'query',
      );
    }
    const other = Object.keys(filter).find((key) => key !== 'companyId');
    if (other !== undefined) {
      throw new ControlError(
        422,
        'valor_invalido',
        `${JSON.stringify(other)} is not a filter of this view; the only one is companyId (a company's id).`,
        formatPath('query', [other]),
      );
    }
    const { companyId } = filter as { companyId?: unknown };
    return companyId === undefined ? undefined : this.#filteredCompany(companyId);
  }

  /** Which entries (of the inbox, the journal) a filter keeps: undefined for every one. */
  ofCompany(filter: CompanyFilter): ((entry: { readonly companyId: string | null }) => boolean) | undefined {
    const companyId = this.filtered(filter);
    return companyId === undefined ? undefined : (entry) => entry.companyId === companyId;
  }

  /**
   * `companyId` as a view's filter: a company id of this emulator (422 valor_invalido for none, 404
   * empresa_nao_encontrada for an unknown one).
   */
  #filteredCompany(companyId: unknown): string {
    if (typeof companyId !== 'string' || !ID_PATTERN.test(companyId)) {
      throw new ControlError(
        422,
        'valor_invalido',
        'query.companyId must be a company id of this emulator (a lowercase UUID, as POST /_emulator/companies ' +
          `answers it); got ${shown(companyId)}.`,
        'query.companyId',
      );
    }
    this.worldWith(companyId, 'query.companyId');
    return companyId;
  }
}

/** A control of a company's views that runs the company's check first (the company may be gone since). */
export type Checked = <A extends unknown[], R>(run: (...args: A) => R) => (...args: A) => R;

/** The entries `keep` picks; all of them without it. */
export const only = <E>(entries: E[], keep: ((entry: E) => boolean) | undefined): E[] =>
  keep === undefined ? entries : entries.filter(keep);

/** A value as a refusal quotes it: JSON, cut at 120 characters. */
export function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/** The value of a core transition's result, or its refusal thrown as the ControlError the HTTP control answers. */
export function unwrap<T>(result: Result<T>): T {
  if (result.ok) return result.value;
  const { kind, codigo, mensagem, caminho } = result.refusal;
  throw new ControlError(STATUS_OF[kind], codigo, mensagem, caminho);
}
