/** The search over fault plans (explore.ts), as the package exports it. */
export {
  checkExploreOptions,
  explore,
  exploreRuns,
  formatExploration,
  type ExploreFailure,
  type ExploreOptions,
  type ExploreResult,
  type ExploreRun,
  type FailureReason,
  type PlanRun,
  type PlanRunner,
  type Scenario,
} from './explore.js';
export { readOutcome, type Outcome } from './outcome.js';
export { armedFault, describePlan, type FaultPlan, type PlannedFault, type PlanEffect } from './plan.js';
