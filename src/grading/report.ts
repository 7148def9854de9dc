/**
 * The grading of the client: what the emulator saw the integration do, judged (findings.ts) and tallied
 * (coverage.ts), and the report of both, `emu.report()`, GET /_emulator/report, the inspector's Report view and
 * `serve --report FILE`. The engine tells the grading every fact as it happens (FactObserver): the findings never
 * depend on a report having been asked for first, and outlive the journal's rotation, kept apart and bounded.
 */
import { isoString } from '../core/time.js';
import type { State } from '../core/state.js';
import type { ActivityFeed, FactObserver, FiredFault, JobRun, ReceivedDelivery } from '../engine/activity.js';
import type { EngineChange } from '../engine/engine.js';
import type { Journal, JournalRecord } from '../engine/journal.js';
import type { RouteTable } from '../network/routes.js';
import { ATTEMPT_ROWS, coverageOf, JOB_ROWS, RECEIVER_ROWS, RETENTION_TASK, Tally, type Coverage } from './coverage.js';
import { Judge, keyOf, Recent } from './findings.js';
import type { ClientFinding, Draft, Found, GradedOperation, RuleContext } from './findings.js';
import { explorationSection, type Exploration } from './exploration.js';
import type { ReceiverCheck } from './receiver-check.js';

/**
 * The last result of the webhook receiver's check, as the report shows it: the URL it checked, its cases passed and
 * failed, and the failing ones by name.
 */
export interface ReceiverSummary {
  readonly target: string;
  readonly passed: number;
  readonly failed: number;
  readonly failing: readonly string[];
}

/** A receiver check (receiver-check.ts) as the report shows it. */
export function receiverSummary(check: ReceiverCheck): ReceiverSummary {
  return {
    target: check.receiver.url,
    passed: check.passed,
    failed: check.failed,
    failing: check.cases.filter((c) => c.verdict === 'fail').map((c) => c.id),
  };
}

/** What the emulator saw the integration do, judged: `emu.report()`, GET /_emulator/report. */
export interface Report {
  /** The client's mistakes, oldest first (the last FINDINGS_KEPT of them). */
  readonly findings: readonly ClientFinding[];
  /** Findings made but no longer kept (the oldest go first once FINDINGS_KEPT are kept). */
  readonly findingsDropped: number;
  readonly coverage: Coverage;
  /** The last check of the webhook receiver, when one ran. */
  readonly receiver?: ReceiverSummary;
  /** The last exploration told to the emulator, when one was (src/grading/exploration.ts). */
  readonly exploration?: Exploration;
}

/** The findings a report keeps, the latest; older ones are counted as dropped. */
export const FINDINGS_KEPT = 1000;
/** Companies tallied one by one; past it the oldest one's counts join those of the companies before. */
const TALLIES_KEPT = 1000;

/** What the grading reads of the engine it observes (the Engine is the one implementation). */
export interface GradedEmulator {
  readonly journal: Pick<Journal, 'recordsOf'>;
  readonly routes: Pick<RouteTable, 'resolve'>;
  readonly activity: ActivityFeed;
  watch(watcher: (change: EngineChange) => void): () => void;
}

/** The key of a tally: a company's id, or '' for the requests made without a company's credential. */
const NO_COMPANY = '';

/**
 * What the grading holds once the emulator has told it a fact: made then, not with the emulator, whose creation
 * stays a few small objects (bench/run.ts holds it to 8 KB; most emulators of a suite see a handful of requests).
 */
class Seen {
  readonly judge = new Judge();
  readonly findings: ClientFinding[] = [];
  dropped = 0;
  readonly droppedOf = new Map<string, number>();
  readonly tallies = new Map<string, Tally>();
  /** The counts of the companies tallied before the TALLIES_KEPT kept one by one. */
  readonly earlier = new Tally();
  /** Events seen closed, by company: retention's removals are told by their absence after its run. */
  readonly closed = new Recent<{ readonly companyId: string; readonly eventId: string }>(10_000);
  /**
   * The findings made with a key (Draft.key), by company, rule and key: the one a later draft of the same key
   * replaces; null once it is no longer kept (dropped), when such a draft changes nothing, so it is never told twice.
   */
  readonly keyed = new Recent<ClientFinding | null>(FINDINGS_KEPT);
  readonly context: RuleContext;

  constructor(emulator: GradedEmulator, operations: readonly GradedOperation[], realNow: () => number) {
    let byId: ReadonlyMap<string, GradedOperation> | undefined;
    this.context = {
      realNow,
      operation: (id) => (byId ??= new Map(operations.map((o) => [o.id, o]))).get(id),
      earlierWithKey: (companyId, key, requestId) => {
        const records = emulator.journal.recordsOf(companyId);
        let i = records.findIndex((r) => r.requestId === requestId);
        if (i < 0) i = records.length;
        while (--i >= 0) if (records[i]!.idempotencyKey === key) return records[i]!.requestId;
        return undefined;
      },
    };
    // What a reset or restore replaced is no mistake of the client's: the rules forget it (findings and counts stay).
    emulator.watch((change) => {
      if (change.kind === 'closed') return;
      this.judge.forget(change.companyId);
      this.closed.forget(change.companyId);
      this.keyed.forget(change.companyId);
    });
  }

  tally(companyId: string | null): Tally {
    const key = companyId ?? NO_COMPANY;
    let tally = this.tallies.get(key);
    if (tally === undefined) {
      this.tallies.set(key, (tally = new Tally()));
      if (this.tallies.size > TALLIES_KEPT) {
        const [oldest, counts] = this.tallies.entries().next().value!;
        counts.addTo(this.earlier);
        this.tallies.delete(oldest);
      }
    }
    return tally;
  }
}

export class Grading implements FactObserver {
  readonly #emulator: GradedEmulator;
  readonly #operations: readonly GradedOperation[];
  readonly #realNow: () => number;
  #seen: Seen | undefined;

  /**
   * `operations`: the API's, in its order. `realNow`: a monotonic real time in ms (a wait for a Retry-After on a
   * manual clock is measured in it too).
   */
  constructor(
    emulator: GradedEmulator,
    operations: readonly GradedOperation[],
    realNow: () => number = () => performance.now(),
  ) {
    this.#emulator = emulator;
    this.#operations = operations;
    this.#realNow = realNow;
  }

  get #state(): Seen {
    return (this.#seen ??= new Seen(this.#emulator, this.#operations, this.#realNow));
  }

  // The grading's failure is its own, as an activity listener's is: a fact it could not take is dropped, and never
  // changes an answer, a delivery or a job run.

  request(record: JournalRecord): void {
    try {
      const seen = this.#state;
      seen.tally(record.companyId).request(record);
      const found = seen.judge.request(record, seen.context);
      if (found !== undefined) this.#keep(found, record.at, record.companyId);
    } catch {
      // See above.
    }
  }

  received(delivery: ReceivedDelivery): void {
    try {
      const seen = this.#state;
      const tally = seen.tally(delivery.companyId);
      for (const row of RECEIVER_ROWS) if (row.receiver!(delivery.answer)) tally.saw(row.id);
      const found = seen.judge.received(delivery);
      if (found !== undefined) this.#keep(found, delivery.at, delivery.companyId);
    } catch {
      // See above.
    }
  }

  attemptEnded(state: State, eventId: string, tentativa: number): void {
    try {
      this.#attemptEnded(state, eventId, tentativa);
    } catch {
      // See above.
    }
  }

  jobRan(state: State, run: JobRun): void {
    try {
      this.#jobRan(state, run);
    } catch {
      // See above.
    }
  }

  faultFired(fault: FiredFault): void {
    try {
      this.#state.tally(fault.companyId).fault(fault);
    } catch {
      // See above.
    }
  }

  #attemptEnded(state: State, eventId: string, tentativa: number): void {
    const event = state.webhookEvents.get(eventId);
    const attempt = event?.attempts[tentativa - 1];
    if (event === undefined || attempt === undefined) return;
    const seen = this.#state;
    const { companyId } = event;
    if (event.estado === 'entregue' || event.estado === 'falhou')
      seen.closed.set(keyOf(companyId, eventId), { companyId, eventId });
    const tally = seen.tally(companyId);
    const url = state.webhookDestinations.get(companyId)?.url;
    if (url === undefined || this.#emulator.routes.resolve(url) === undefined) {
      tally.inboxAttempts++;
      return;
    }
    let inCycle = 0;
    for (const a of event.attempts) if (a.ciclo === attempt.ciclo && a.tentativa <= tentativa) inCycle++;
    const attemptSeen = { event, inCycle, estado: attempt.estado };
    for (const row of ATTEMPT_ROWS) if (row.attempt!(attemptSeen)) tally.saw(row.id);
  }

  #jobRan(state: State, run: JobRun): void {
    // Housekeeping runs on every clock from the start: it alone does not make the grading's state.
    const seen = this.#seen;
    if (run.task === RETENTION_TASK) {
      if (run.failed || seen === undefined || seen.closed.size === 0) return;
      seen.closed.deleteWhere((_, { companyId, eventId }) => {
        if (!state.companies.has(companyId) || state.webhookEvents.has(eventId)) return false;
        seen.tally(companyId).saw('event-past-retention');
        return true;
      });
      return;
    }
    if (run.subjectId === null || run.companyId === null) return;
    for (const row of JOB_ROWS)
      if (row.job!.task === run.task && row.job!.done(state, run.subjectId))
        this.#state.tally(run.companyId).saw(row.id);
  }

  /** The report of every company, or of `companyId` alone. */
  report(companyId?: string): Report {
    const seen = this.#seen;
    if (companyId !== undefined) {
      return {
        findings: seen === undefined ? [] : seen.findings.filter((f) => f.companyId === companyId),
        findingsDropped: seen?.droppedOf.get(companyId) ?? 0,
        coverage: coverageOf(seen?.tallies.get(companyId) ?? new Tally(), this.#operations),
      };
    }
    const all = new Tally();
    seen?.earlier.addTo(all);
    for (const tally of seen?.tallies.values() ?? []) tally.addTo(all);
    return {
      findings: seen === undefined ? [] : [...seen.findings],
      findingsDropped: seen?.dropped ?? 0,
      coverage: coverageOf(all, this.#operations),
    };
  }

  /**
   * Keeps the findings of a fact of `companyId` at `at` (virtual), and tells them to the activity stream; a draft
   * whose key a finding was made with replaces what that one says instead (see Draft.key).
   */
  #keep(found: readonly Found[], at: number, companyId: string | null): void {
    const seen = this.#state;
    for (const { rule, draft } of found) {
      const key = draft.key === undefined ? undefined : keyOf(companyId ?? NO_COMPANY, rule.id, draft.key);
      const made = key === undefined ? undefined : seen.keyed.get(key);
      if (made !== undefined) {
        if (made !== null) seen.keyed.set(key!, amended(seen, made, draft));
        continue;
      }
      const finding: ClientFinding = {
        at: isoString(at),
        rule: rule.id,
        companyId,
        statements: draft.statements ?? rule.statements,
        message: draft.message,
        requestIds: draft.requestIds ?? [],
        eventIds: draft.eventIds ?? [],
        fix: rule.fix,
      };
      seen.findings.push(finding);
      if (key !== undefined) seen.keyed.set(key, finding);
      if (seen.findings.length > FINDINGS_KEPT) {
        const [gone] = seen.findings.splice(0, 1);
        seen.dropped++;
        const of = gone!.companyId ?? NO_COMPANY;
        seen.droppedOf.set(of, (seen.droppedOf.get(of) ?? 0) + 1);
      }
      const { activity } = this.#emulator;
      if (activity.wanted) activity.tell({ kind: 'finding', ...finding });
    }
  }
}

/**
 * `made`, a kept finding, saying what `draft` says instead, in its place among the findings (its time, rule and
 * company its own); null when it is no longer kept.
 */
function amended(seen: Seen, made: ClientFinding, draft: Draft): ClientFinding | null {
  const at = seen.findings.lastIndexOf(made);
  if (at < 0) return null;
  const { message, requestIds = [], eventIds = [], statements = made.statements } = draft;
  const finding: ClientFinding = { ...made, message, requestIds, eventIds, statements };
  seen.findings[at] = finding;
  return finding;
}

/**
 * The report as Markdown, which also reads as plain text: for a terminal (print it in a suite's afterAll), a file
 * (`serve --report FILE.md`) or a CI summary.
 */
export function formatReport(report: Report): string {
  const { findings, findingsDropped, coverage, receiver, exploration } = report;
  const lines: string[] = ['# catalog-emulator report', ''];
  lines.push(`## Findings on your client (${findings.length + findingsDropped})`, '');
  if (findings.length === 0 && findingsDropped === 0) lines.push('None: no rule was broken.');
  for (const f of findings) {
    lines.push(
      `- **${f.rule}** (${f.statements.join(', ')}) at ${f.at}${f.companyId === null ? '' : `, company ${f.companyId}`}: ${f.message}`,
      `  Fix: ${f.fix}`,
    );
  }
  if (findingsDropped > 0)
    lines.push(`- … and ${findingsDropped} earlier, no longer kept (the report keeps the last ${FINDINGS_KEPT}).`);
  lines.push(
    '',
    `## What your tests exercised: ${coverage.score.exercised} of ${coverage.score.listed} behaviours`,
    '',
  );
  for (const b of coverage.behaviours)
    lines.push(`- [${b.seen > 0 ? 'x' : ' '}] ${b.id}: ${b.what}${b.seen > 0 ? ` (${b.seen}×)` : ''}`);
  if (coverage.gaps.length > 0) {
    lines.push('', '### Not exercised, and how to', '');
    for (const gap of coverage.gaps) lines.push(`- ${gap}`);
  }
  lines.push('', '### Operations', '');
  if (coverage.operations.length === 0) lines.push('None called.');
  else {
    lines.push(
      '| Operation | Calls | Statuses received | Error codes | Documented, never received |',
      '|---|---|---|---|---|',
    );
    for (const o of coverage.operations) {
      const statuses = o.statuses.map((s) => `${s.status}×${s.count}`).join(', ');
      const codes = o.codes.map((c) => `${c.codigo}×${c.count}`).join(', ');
      lines.push(`| ${o.method} ${o.path} | ${o.calls} | ${statuses} | ${codes} | ${o.unreceived.join(', ')} |`);
    }
  }
  if (coverage.notCalled.length > 0)
    lines.push('', `Never called (${coverage.notCalled.length}): ${coverage.notCalled.join(', ')}.`);
  if (coverage.unrouted > 0) lines.push('', `Requests to no operation (404, 405): ${coverage.unrouted}.`);
  lines.push('', '### Faults used', '');
  lines.push(
    coverage.faults.length === 0
      ? 'None.'
      : coverage.faults.map((f) => `${f.target} ${f.effect} ×${f.fired}`).join(', '),
  );
  if (coverage.inboxAttempts > 0)
    lines.push('', `Delivery attempts to the built-in inbox, not to a receiver of yours: ${coverage.inboxAttempts}.`);
  if (receiver !== undefined) {
    lines.push(
      '',
      `## Your webhook receiver: ${receiver.passed} passed, ${receiver.failed} failed`,
      '',
      `Checked: ${receiver.target}`,
    );
    for (const name of receiver.failing) lines.push(`- failing: ${name}`);
  }
  if (exploration !== undefined) lines.push('', ...explorationSection(exploration));
  return `${lines.join('\n')}\n`;
}
