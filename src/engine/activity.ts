/**
 * The activity stream: what the emulator does, as one typed stream of entries — each API request, each control
 * call, each webhook delivery attempt and each step of a background job — for whoever listens (the CLI's log,
 * a test, an inspector): emu.activity.subscribe(listener).
 *
 * Besides its listeners, the feed has one recorder (ActivityRecorder: the inspector's history, set by the emulator
 * when it is made), which is told every entry but the requests' (it is handed each request's exchange whole
 * instead). Producers ask `wanted` first and build no entry while nobody listens and nothing records (the request
 * path is benchmarked, and its entry is built only for listeners). An entry is made when the thing it tells of has
 * ended (the request answered, the attempt's outcome known); its `at` is the virtual instant it began and
 * `durationMs` the virtual time it took, so a line written later than another may carry an earlier time (a
 * delivery run by a clock advance is written before the advance's own entry).
 */
import type { State } from '../core/state.js';
import { isoString } from '../core/time.js';
import type { ReceiverAnswer } from '../network/transport.js';
import type { Config } from './config.js';
import type { EngineChange } from './engine.js';
import type { Journal, JournalEntry, JournalRecord } from './journal.js';
import type { World } from './world.js';

/** An error answer's code and, when it names one, the input it is about: the `erro` body's `codigo` and `caminho`. */
export interface ActivityError {
  readonly codigo: string;
  readonly caminho: string | null;
}

/** An API request (under /v1), answered: its journal entry (its `codigo` in `error`), with how it ended. */
export interface RequestActivity extends Omit<JournalEntry, 'codigo'> {
  readonly kind: 'request';
  /** The error answer's code and path; null for a success. */
  readonly error: ActivityError | null;
  /** Virtual time from arrival to answer: 0 but for a request a `delayMs` fault held. */
  readonly durationMs: number;
}

/**
 * What a control acts on, as its row in the controls' table declares it: one company (`companyId` names it), the
 * shared clock (the companies on clocks of their own do not see it), the whole emulator, or the inspector's own data
 * and the pacing of a demo (nothing of the emulator changes).
 */
export type ControlScope = 'company' | 'shared clock' | 'emulator' | 'inspector';

/** A call of the /_emulator controls, answered. */
export interface ControlActivity {
  readonly kind: 'control';
  /** Virtual time (of the shared clock) of its arrival. */
  readonly at: string;
  readonly method: string;
  /** The path as received, /_emulator included. */
  readonly path: string;
  readonly status: number;
  /** The control's operation id in openapi.controls.json (advanceClock, addFault, …); null for no control. */
  readonly operation: string | null;
  /** What it did, briefly, for the controls that change something ("now …, ran 3 tasks"); null otherwise. */
  readonly detail: string | null;
  readonly error: ActivityError | null;
  /** What the control acts on (see ControlScope); null for no control. */
  readonly scope: ControlScope | null;
  /**
   * The company the call is about: the one its path names (`/_emulator/companies/{companyId}/…`) or its
   * `companyId` query, or the one the fault it added is kept to (`match.companyId`); null for the whole emulator.
   */
  readonly companyId: string | null;
  /** The fault it added or removed; null when it added or removed none (a refused call included). */
  readonly faultId: string | null;
}

/** One delivery attempt of a webhook event, ended. */
export interface DeliveryActivity {
  readonly kind: 'delivery';
  /** Virtual time the attempt started. */
  readonly at: string;
  readonly companyId: string;
  readonly eventId: string;
  readonly eventType: string;
  /** The attempt's number across the event's cycles (the `tentativa` of GET /v1/webhook/eventos/{id}/tentativas). */
  readonly attempt: number;
  /** Its cycle: 1, then one more per resend. */
  readonly cycle: number;
  /** Its place in its cycle: 1 to `attemptsPerCycle`. */
  readonly attemptInCycle: number;
  readonly attemptsPerCycle: number;
  /** The destination URL it was sent to (a --route may carry it to a local receiver). */
  readonly url: string;
  /** The attempt's `estado`: entregue (a completed 2xx), falhou, or incerta (the receiver may have processed it). */
  readonly outcome: 'entregue' | 'falhou' | 'incerta';
  /** The attempt's `codigo_falha`; null when delivered. */
  readonly failure: string | null;
  /** The status the receiver answered (`status_http`); null when none arrived. */
  readonly status: number | null;
  /** Virtual time from its start to its end. */
  readonly durationMs: number;
  /** When the next attempt is due; null when none is (delivered, or the cycle is over). */
  readonly nextAttemptAt: string | null;
  /** The event's `estado` after this attempt. */
  readonly eventState: string;
}

/** One run of a background job's task bound to a record (an analysis, an execution, an ingestion, a CNPJ review). */
export interface JobActivity {
  readonly kind: 'job';
  /** Virtual time of the run. */
  readonly at: string;
  /** The task that ran (`analise.executar`, …). */
  readonly task: string;
  readonly companyId: string | null;
  /** The record it works on. */
  readonly subjectId: string | null;
  /** A `job` fault that took it: postponed (`delayed`) or run failed (`failed`). */
  readonly fault: 'delayed' | 'failed' | null;
}

/**
 * A mistake of the client the emulator saw (src/grading judges it): a rule of the findings table broken by the
 * client's requests or its webhook receiver's answers, told when it is made.
 */
export interface FindingActivity {
  readonly kind: 'finding';
  /** Virtual time of what broke the rule: the request's arrival, or the delivery attempt's start. */
  readonly at: string;
  /** The rule's id (`new-key-after-lost-answer`, …; the table of docs/grading.md lists them). */
  readonly rule: string;
  /** The company whose request or receiver broke it; null for a request without a company's credential. */
  readonly companyId: string | null;
  /** The spec statements or header rules it comes from (`REQ-02`, `RFC 9110 Retry-After`, …). */
  readonly statements: readonly string[];
  /** What happened, naming the requests and events. */
  readonly message: string;
  /** The requests involved, in order (x-request-id); empty for a receiver's finding. */
  readonly requestIds: readonly string[];
  /** The webhook events involved; empty for a request's finding. */
  readonly eventIds: readonly string[];
  /** The fix, in one line. */
  readonly fix: string;
}

export type ActivityEntry = RequestActivity | ControlActivity | DeliveryActivity | JobActivity | FindingActivity;
export type ActivityKind = ActivityEntry['kind'];
/** Every kind of entry, in the order a filter or a log lists them: a record's keys, so a new kind must be listed. */
const KINDS_IN_ORDER: Record<ActivityKind, true> = {
  request: true,
  control: true,
  delivery: true,
  job: true,
  finding: true,
};
export const ACTIVITY_KINDS = Object.keys(KINDS_IN_ORDER) as readonly ActivityKind[];
export type ActivityListener = (entry: ActivityEntry) => void;

/** What a user of the emulator reaches: emu.activity. */
export interface Activity {
  /**
   * Calls `listener` with every entry from now on, synchronously as each is made; returns the function that stops
   * it. What a listener throws is swallowed: a broken log never changes an answer or stops a delivery.
   */
  subscribe(listener: ActivityListener): () => void;
}

/** A journaled request as its activity entry: answered at `now` (virtual), with `error` if it was refused. */
export function requestActivity(
  record: JournalRecord,
  error: { readonly codigo: string; readonly caminho?: string } | undefined,
  now: number,
): RequestActivity {
  return {
    kind: 'request',
    at: isoString(record.at),
    method: record.method,
    path: record.path,
    status: record.status,
    requestId: record.requestId,
    companyId: record.companyId,
    idempotencyKey: record.idempotencyKey,
    replayed: record.replayed,
    faultId: record.faultId,
    error: error === undefined ? null : { codigo: error.codigo, caminho: error.caminho ?? null },
    // A reset while a request was held puts it in a new world whose clock may be behind its arrival.
    durationMs: Math.max(0, now - record.at),
  };
}

/** An error answer's code, message and path, as the API made it. */
export interface AnswerError {
  readonly codigo: string;
  readonly mensagem: string;
  readonly caminho?: string;
}

/** The entries a recorder is told (a request comes to it as its Exchange). */
export type RecordedActivity = Exclude<ActivityEntry, RequestActivity>;

/**
 * Who keeps the emulator's history (the inspector's, src/inspector/server/history.ts), from the emulator's making
 * on, whether or not anyone listens: the API's one route hands it each exchange once answered, the producers of the
 * other entries tell it theirs, and each world's clock tells it when it moved. Each call must stay cheap: every API
 * request makes one (the request path is benchmarked).
 */
export interface ActivityRecorder {
  /**
   * An API request, answered: its journal record and the journal's text of it (packRecord's; undefined when the
   * journal dropped it, its company removed while it was held), the request's headers as sent (a
   * socket's raw list, name, value, …, or the Request's), the body's bytes as the pipeline read them (undefined when
   * it read none: a read, a refusal before the body, past the limit), the answer and its headers as made (a plain
   * object where the shell has one), the answer's text as the API wrote it (undefined for an error answer, which
   * `error` rebuilds, or one not made from text), and the error of an error answer.
   */
  exchange(
    record: JournalRecord,
    line: string | undefined,
    requestHeaders: Headers | readonly string[],
    requestBody: Uint8Array | undefined,
    response: Response,
    responseHeaders: Headers | Readonly<Record<string, string>>,
    responseBody: string | undefined,
    error: AnswerError | undefined,
  ): void;
  entry(entry: RecordedActivity): void;
  /** The clock of the world `owner` owns (null: the shared clock) moved: an advance, or a task run at its time. */
  clockMoved(owner: string | null): void;
}

/**
 * What an observer of the emulator (the inspector) reads of it besides its activity, handed to the observer with
 * the feed when it is made: the world a company lives in (its records and its clock), the journal's records, the
 * delivery schedule, and the resets, restores and close it is told of. The engine is the one implementation; the
 * observer sees nothing else of it.
 */
export interface ObservedEmulator {
  /** The world a company lives in: its own, or the shared one (also for a company that does not exist). */
  worldOf(companyId: string): World;
  readonly journal: Pick<Journal, 'recordsOf'>;
  readonly config: { readonly core: Pick<Config['core'], 'delivery'> };
  /** Calls `watcher` with every reset, restore and the close from now on; returns the function that stops it. */
  watch(watcher: (change: EngineChange) => void): () => void;
}

/** A fault that fired: its target, its effect's name (`loseResponse`, `tamper`, `fail`, …) and the company it fired for. */
export interface FiredFault {
  readonly target: 'api' | 'delivery' | 'job';
  readonly effect: string;
  readonly companyId: string | null;
}

/** What a receiver the test routed (a handler or a local URL) answered one delivery attempt, as the engine saw it sent. */
export interface ReceivedDelivery {
  readonly companyId: string;
  readonly eventId: string;
  readonly tentativa: number;
  /** Virtual time the attempt started. */
  readonly at: number;
  /** The attempt's time-out (`webhooks.attemptTimeout`), virtual ms: how long the receiver had to answer it whole. */
  readonly timeoutMs: number;
  readonly answer: ReceiverAnswer;
}

/** A background job's task that ran on a record, or a housekeeping run. */
export interface JobRun {
  /** The clock task (`analise.fim`, `webhook.retencao`, …). */
  readonly task: string;
  readonly companyId: string | null;
  readonly subjectId: string | null;
  /** A `fail` fault took it. */
  readonly failed: boolean;
}

/**
 * Who is told every fact as it happens, whether or not anyone listens to the activity stream: the grading of the
 * client (src/grading), which judges the client's requests and its receiver's answers and tallies what a suite
 * exercised, so that a report asked for at any time tells all of it. Set once by the emulator that makes it; it
 * sees the facts the engine already has at hand, and each call must stay cheap (every API request makes one).
 */
export interface FactObserver {
  /** An API request, answered and journaled: the record the journal keeps. */
  request(record: JournalRecord): void;
  /** A routed receiver's own answer to an attempt (before a fault changed what the attempt made of it). */
  received(delivery: ReceivedDelivery): void;
  /** Attempt `tentativa` of an event ended, in `state` (the world it ran in). */
  attemptEnded(state: State, eventId: string, tentativa: number): void;
  /** A job's task ran, in `state` (the world it ran in). */
  jobRan(state: State, run: JobRun): void;
  faultFired(fault: FiredFault): void;
}

export class ActivityFeed implements Activity {
  readonly #listeners = new Set<ActivityListener>();
  /** Set by the emulator that makes the feed, for its life (see ActivityRecorder); undefined when it keeps no history. */
  recorder: ActivityRecorder | undefined = undefined;
  /** Set once by the emulator that makes the feed (see FactObserver). */
  observer: FactObserver | undefined = undefined;

  /** `emulator`: what an observer made with this feed reads of the emulator (see ObservedEmulator). */
  constructor(readonly emulator: ObservedEmulator) {}

  /** Whether anyone listens: the request path asks first and makes no entry otherwise. */
  get listening(): boolean {
    return this.#listeners.size > 0;
  }

  /** Whether an entry other than a request's is wanted: someone listens, or the recorder keeps it. */
  get wanted(): boolean {
    return this.recorder !== undefined || this.#listeners.size > 0;
  }

  /**
   * An entry other than a request's: to the recorder, then to the listeners. The recorder keeps the entry itself
   * (the inspector's history), so the listeners get it frozen: what one of them does to it cannot reach the history.
   */
  tell(entry: RecordedActivity): void {
    try {
      this.recorder?.entry(entry);
    } catch {
      // The recorder's failure is its own, as a listener's is.
    }
    if (this.#listeners.size > 0) this.emit(this.recorder === undefined ? entry : Object.freeze(entry));
  }

  emit(entry: ActivityEntry): void {
    for (const listener of this.#listeners) {
      try {
        listener(entry);
      } catch {
        // A listener's failure is its own: the emulator goes on as if nobody listened.
      }
    }
  }

  subscribe(listener: ActivityListener): () => void {
    // Each subscription its own, so the same function subscribed twice is called twice and stopped once per call.
    const own: ActivityListener = (entry) => listener(entry);
    this.#listeners.add(own);
    return () => void this.#listeners.delete(own);
  }
}
