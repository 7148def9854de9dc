/**
 * A batch-ingestion request (docs/batch-ingestion.md), valid or refused: one action per file
 * (ingestion/<action>.ts). Valid actions set up what they need first (a free catalog, an open ingestion...);
 * refused ones get the status the contract requires.
 */
import fc from 'fast-check';
import type { Answer } from '../../../support/client.js';
import type { Exchange, IngestionModel, Runner, Sent } from '../runner.js';
import { INGESTION_REFUSED, INGESTION_VALID, pick, shortText, type IngestionAction, type StepOf } from '../steps.js';
import { apply } from './ingestion/apply.js';
import { applyNotValidated } from './ingestion/apply-not-validated.js';
import { applyWithoutIfMatch } from './ingestion/apply-without-if-match.js';
import { badClose } from './ingestion/bad-close.js';
import { badIngestionQuery } from './ingestion/bad-ingestion-query.js';
import { badStart } from './ingestion/bad-start.js';
import { badStartKey } from './ingestion/bad-start-key.js';
import { batch } from './ingestion/batch.js';
import { batchAfterClose } from './ingestion/batch-after-close.js';
import { batchOverLimits } from './ingestion/batch-over-limits.js';
import { close } from './ingestion/close.js';
import { closeClosed } from './ingestion/close-closed.js';
import { conflictingBatch } from './ingestion/conflicting-batch.js';
import { foreignIngestion } from './ingestion/foreign-ingestion.js';
import { inconsistentTotal } from './ingestion/inconsistent-total.js';
import { noDefaultCatalog } from './ingestion/no-default-catalog.js';
import { read } from './ingestion/read.js';
import { readOnlyIngestion } from './ingestion/read-only-ingestion.js';
import { repeatBatch } from './ingestion/repeat-batch.js';
import { replayStart } from './ingestion/replay-start.js';
import { reuseStartKey } from './ingestion/reuse-start-key.js';
import { secondStart } from './ingestion/second-start.js';
import { staleApply } from './ingestion/stale-apply.js';
import { start } from './ingestion/start.js';
import { tick } from './ingestion/tick.js';
import { unknownCatalog } from './ingestion/unknown-catalog.js';
import { unknownIngestion } from './ingestion/unknown-ingestion.js';

export const arbitrary = fc.record({
  t: fc.constant('ingestion' as const),
  action: fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom<IngestionAction>(...INGESTION_VALID) },
    { weight: 2, arbitrary: fc.constantFrom<IngestionAction>(...INGESTION_REFUSED) },
  ),
  pick,
  pick2: pick,
  variant: fc.nat({ max: 1000 }),
  records: fc.array(
    fc.record(
      {
        ref: fc.nat({ max: 12 }),
        ncm: fc.constantFrom('84713012', '09012100', '10063021'),
        bad: fc.oneof({ weight: 7, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
        sku: fc.option(shortText(16), { nil: null }),
        descricao: fc.option(shortText(40), { nil: null }),
      },
      { requiredKeys: ['ref', 'ncm', 'bad'] },
    ),
    { minLength: 1, maxLength: 4 },
  ),
});

/** What an ingestion action works with: the step, and helpers bound to it. */
export interface IngestionContext {
  readonly r: Runner;
  readonly step: StepOf<'ingestion'>;
  readonly pick: number;
  readonly pick2: number;
  readonly variant: number;
  /** The exchanges' label: `ingestion:<action>`. */
  readonly label: string;
  /** Sends `sent` (a fresh key unless a GET, the company's credential unless told) expecting `expected`. */
  readonly refuse: (
    sent: Omit<Sent, 'key' | 'as'> & { key?: string | null; as?: Sent['as'] },
    expected: number,
  ) => Promise<Answer>;
  /** A known ingestion by `pick`, or a new aberta one. */
  readonly anyIngestion: () => Promise<IngestionModel | undefined>;
  /** A start answered 201 earlier, by `pick2`. */
  readonly startedEarlier: () => Exchange | undefined;
}

const ACTIONS: Record<IngestionAction, (c: IngestionContext) => Promise<void>> = {
  start,
  replayStart,
  batch,
  repeatBatch,
  close,
  apply,
  read,
  tick,
  secondStart,
  noDefaultCatalog,
  unknownCatalog,
  badStart,
  badStartKey,
  reuseStartKey,
  conflictingBatch,
  batchOverLimits,
  batchAfterClose,
  inconsistentTotal,
  badClose,
  closeClosed,
  staleApply,
  applyWithoutIfMatch,
  applyNotValidated,
  unknownIngestion,
  foreignIngestion,
  readOnlyIngestion,
  badIngestionQuery,
};

export async function run(r: Runner, step: StepOf<'ingestion'>): Promise<void> {
  const { action, pick, pick2, variant } = step;
  const label = `ingestion:${action}`;
  await ACTIONS[action]({
    r,
    step,
    pick,
    pick2,
    variant,
    label,
    refuse: (sent, expected) =>
      r.send(label, { key: sent.method === 'GET' ? null : r.nextKey(), as: 'company', ...sent }, { expected }),
    anyIngestion: async () =>
      r.ingestions[pick % Math.max(r.ingestions.length, 1)] ?? (await r.openIngestion(pick, variant)),
    startedEarlier: () => {
      const started = r.log.filter((e) => e.label === 'ingestion:start' && e.answer.status === 201);
      return started[pick2 % Math.max(started.length, 1)];
    },
  });
}
