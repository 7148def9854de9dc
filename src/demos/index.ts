/** The teaching scenarios of `catalog-emulator demo`. */
import { idempotentRetry } from './idempotent-retry.js';
import type { Demo } from './narrator.js';

export type { Demo };
export const demos: readonly Demo[] = [idempotentRetry];
