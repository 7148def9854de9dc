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
export { readDeliveries, readOutcome, type Outcome } from './outcome.js';
export {
  armedFault,
  describePlan,
  PLAN_EFFECT_NAMES,
  type ApiPlannedFault,
  type DeliveryCount,
  type DeliveryPlannedFault,
  type FaultPlan,
  type PlannedFault,
  type PlanEffect,
} from './plan.js';
