/** The teaching scenarios of `catalog-emulator demo`. */
import { catalogDeletion } from './catalog-deletion.js';
import { idempotentRetry } from './idempotent-retry.js';
import { ingestion } from './ingestion.js';
import type { Demo, DemoPacer } from './narrator.js';
import { signatureCheck } from './signature-check.js';
import { surveillanceCapacity } from './surveillance-capacity.js';
import { webhookRetries } from './webhook-retries.js';

export type { Demo, DemoPacer };
export const demos: readonly Demo[] = [
  idempotentRetry,
  webhookRetries,
  signatureCheck,
  surveillanceCapacity,
  catalogDeletion,
  ingestion,
];
