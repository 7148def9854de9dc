/** The search over fault plans (explore.ts), as the package exports it. */
export {
  checkExploreOptions,
  explore,
  exploreRuns,
  toldVerdict,
  formatExploration,
  type ExploreFailure,
  type ExploreOptions,
  type ExploreResult,
  type ExploreRun,
  type ExplorationTeller,
  type FailureReason,
  type PlanRun,
  type PlanRunner,
  type Scenario,
} from './explore.js';
export { readDeliveries, readOutcome, type Outcome } from './outcome.js';
