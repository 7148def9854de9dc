/**
 * The public entry of catalog-emulator: the package's API, and what is written against that API: its teaching demos
 * and the search over fault plans (explore).
 */
export * from './public.js';
export { demos, type Demo, type DemoPacer } from './demos/index.js';
export {
  armedFault,
  checkExploreOptions,
  describePlan,
  explore,
  exploreRuns,
  formatExploration,
  readOutcome,
  type ExploreFailure,
  type ExploreOptions,
  type ExploreResult,
  type ExploreRun,
  type FailureReason,
  type FaultPlan,
  type Outcome,
  type PlanEffect,
  type PlannedFault,
  type PlanRun,
  type PlanRunner,
  type Scenario,
} from './explore/index.js';
