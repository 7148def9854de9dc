/** The public entry of catalog-emulator. */
export { createEmulator, Emulator, ControlError, ClockDisposedError, ClockLimitError, ClockRangeError, DEFAULT_SEED, DEFAULT_START, PERMISSIONS } from './emulator.js';
export type {
  ClockInfo,
  ClockMode,
  CompanyOptions,
  CreatedCompanyInfo,
  EmulatorInfo,
  EmulatorOptions,
  EventData,
  FaultInput,
  FaultView,
  InboxEntry,
  ReceiverHandler,
  JournalEntry,
  ListenOptions,
  NetworkRoute,
  Permission,
  RunningServer,
  Snapshot,
} from './emulator.js';
export { isValidCnpj, cnpjCheckDigits } from './core/cnpj.js';
export { signatureOf, signWebhook, verifyWebhook, type VerifyFailure, type VerifyResult, type WebhookEnvelope } from './network/signature.js';
export { EVENT_KINDS, FAILURE_CODES, DEFAULT_DELIVERY_POLICY, type EventKind } from './core/webhooks/events.js';
export { FaultInputError, JOB_KINDS, type JobKind } from './engine/faults.js';
export { IF_MATCH_OPERATIONS, type IfMatchOperation, type GuardedResource } from './core/versioning.js';
export { VERSION } from './version.js';
export { demos, type Demo } from './demos/index.js';
