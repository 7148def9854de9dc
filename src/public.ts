/**
 * The package's API, each name from its home: all that src/index.ts exports but the teaching demos, which are
 * written against it (they import this module, as a user imports the package, and src/index.ts re-exports them).
 */
export { createEmulator, Emulator } from './emulator.js';
export type { CompanyOptions, EmulatorOptions } from './engine/config.js';
export type { ListenOptions, RunningServer } from './http/server.js';
export type {
  Fixtures,
  FixtureCompany,
  FixtureEstablishment,
  FixtureCatalog,
  FixtureProduct,
  SeededCompany,
  SeededCatalog,
} from './engine/fixtures.js';
export type { ClockControls, ClockInfo } from './control/groups/clock.js';
export type { CompanyFilter } from './control/context.js';
export type { CompanyHandle, CompanyScope } from './control/groups/companies.js';
export type { EmulatorInfo } from './control/groups/emulator.js';
export { ControlError } from './control/control-error.js';
// A control's request by its id, and whether what came back is the emulator's answer (or frame): what the CLI's
// commands for a running server read every answer with.
export {
  controlRequest,
  readControlAnswer,
  readControlFrame,
  type ControlAnswerReading,
  type ControlFrameReading,
} from './control/answers.js';
export type { ControlId } from './control/table.js';
export { FixturesError } from './http/fixtures.js';
export { ClockDisposedError, ClockLimitError, ClockRangeError, type ClockMode } from './clock/clock.js';
export { DEFAULT_SEED, DEFAULT_START } from './engine/config.js';
export type { CreatedCompanyInfo } from './engine/world.js';
export { JournalFilterError, QueryBudgetError } from './engine/journal.js';
export type { JournalEntry, JournalFilter, StatusClass } from './engine/journal.js';
export type {
  Activity,
  ActivityEntry,
  ActivityError,
  ActivityKind,
  ActivityListener,
  ControlActivity,
  ControlScope,
  DeliveryActivity,
  FindingActivity,
  JobActivity,
  RequestActivity,
} from './engine/activity.js';
export { PERMISSIONS, type Permission } from './core/companies.js';
export type { Snapshot } from './control/snapshot-schema.js';
export type { StateChange, StateChangeListener, WorldChange } from './engine/changes.js';
export { ChangeLogError, replayChanges, type Replayed } from './control/change-log.js';
// What the inspector's data routes answer (/_emulator/inspector/…), for whoever scripts against them.
export type { DemoState, DetailSection, ItemDetail, StreamFrame, Timeline, TimelineItem } from './inspector/wire.js';
export type { InboxEntry } from './network/inbox.js';
export type { NetworkRoute, ReceiverHandler } from './network/routes.js';
export { isValidCnpj, cnpjCheckDigits } from './core/cnpj.js';
export {
  signatureOf,
  signWebhook,
  verifyWebhook,
  type VerifyFailure,
  type VerifyResult,
  type WebhookEnvelope,
} from './network/signature.js';
export {
  EVENT_KINDS,
  FAILURE_CODES,
  DEFAULT_DELIVERY_POLICY,
  type EventData,
  type EventKind,
} from './core/webhooks/events.js';
export { FaultInputError, JOB_KINDS, type FaultInput, type FaultView, type JobKind } from './engine/faults.js';
// Each effect of the fault schema, its field and the value it takes: what the CLI's `fault add` makes its flags of.
export { faultEffects, type FaultEffect, type FaultEffectField, type FaultEffectValue } from './engine/faults.js';
export type { ApiNearMiss, DeliveryNearMiss, JobNearMiss, NearMiss, NearMisses } from './engine/near-misses.js';
export { IF_MATCH_OPERATIONS, type IfMatchOperation, type GuardedResource } from './core/versioning.js';
// An exploration as an emulator is told it and shows it (emu.explorations, the report).
export type {
  Exploration,
  ExplorationFailure as ToldExplorationFailure,
  ExplorationReason,
  ExplorationRun,
  ExplorationState,
  ExplorationVerdict,
  RunPhase,
} from './grading/exploration.js';
export { runVerdict } from './grading/exploration.js';
// Fault plans: faults bound to positions in a run, as explore() draws, shrinks and replays them.
export {
  armedFault,
  describePlan,
  isFaultPlan,
  jobCounts,
  PLAN_EFFECT_NAMES,
  slotKey,
  slotsOf,
  type ApiPlannedFault,
  type DeliveryCount,
  type DeliveryPlannedFault,
  type FaultPlan,
  type JobCount,
  type JobPlannedFault,
  type PlanEffect,
  type PlannedFault,
  type Slot,
} from './engine/fault-plans.js';
export { connect, type ConnectedCompany, type ConnectOptions, type RemoteClockInfo } from './kit/connect.js';
export { VERSION } from './version.js';
// The CLI's `demo NAME --ui` paces a scenario with it; a program can too (a demo's run(print, gate)).
export { DemoGate } from './inspector/server/demo-gate.js';
// The receiver check (emu.webhooks.checkReceiver, the CLI's check-receiver): its cases, what it cannot check, its
// result and how it reads.
export { formatReceiverCheck, RECEIVER_CASES, UNCHECKED_RECEIVER_STATEMENTS } from './grading/receiver-check.js';
export type {
  ReceiverCase,
  ReceiverCaseFailure,
  ReceiverCaseId,
  ReceiverCaseResult,
  ReceiverCaseSent,
  ReceiverCheck,
  ReceiverCheckOptions,
} from './grading/receiver-check.js';
// The report of what the emulator saw the integration do (emu.report()), and its Markdown.
export { formatReport, type Report, type ReceiverSummary } from './grading/report.js';
export type { ClientFinding } from './grading/findings.js';
export type { BehaviourCoverage, Coverage, OperationCoverage } from './grading/coverage.js';
export { apiDocument } from './openapi/document.js';
export { controlsDocument } from './openapi/controls.js';
export { openApiText, type OpenApiDocumentName } from './openapi/served.js';
// The service API's types, generated from openapi.json: `paths` for openapi-fetch, `components`, `operations`, and
// each component schema by its name (Catalog, ErrorBody, CreateCatalogRequest, …).
export type * from './openapi/types.js';
