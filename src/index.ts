/** The public entry of catalog-emulator. */
export { createEmulator, Emulator, ControlError, ClockLimitError, DEFAULT_SEED, DEFAULT_START, PERMISSIONS } from './emulator.js';
export type {
  ClockInfo,
  ClockMode,
  CompanyOptions,
  CreatedCompanyInfo,
  EmulatorInfo,
  EmulatorOptions,
  FaultInput,
  FaultView,
  JournalEntry,
  ListenOptions,
  NetworkRoute,
  Permission,
  RunningServer,
  Snapshot,
} from './emulator.js';
export { isValidCnpj, cnpjCheckDigits } from './core/cnpj.js';
export { VERSION } from './version.js';
export { demos, type Demo } from './demos/index.js';
