/** The search over fault plans (explore.ts), as the package exports it. */
export {
  explore,
  formatExploration,
  type ExploreFailure,
  type ExploreOptions,
  type ExploreResult,
  type ExploreRun,
  type FailureReason,
  type Scenario,
} from './explore.js';
export type { Outcome } from './outcome.js';
export type { FaultPlan, PlannedFault, PlanEffect } from './plan.js';
