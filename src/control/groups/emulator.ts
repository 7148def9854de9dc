/**
 * The emulator itself: what is running (emu.info(), GET /_emulator) and a reset to a fresh emulator (emu.reset(),
 * POST /_emulator/reset).
 */
import * as z from 'zod';
import type { ClockMode } from '../../clock/clock.js';
import { isoString } from '../../core/time.js';
import { VERSION } from '../../version.js';
import type { ControlContext } from '../context.js';
import { control, type Control } from '../row.js';
import { named } from '../schemas.js';

export interface EmulatorInfo {
  readonly name: 'catalog-emulator';
  readonly version: string;
  readonly now: string;
  readonly clockMode: ClockMode;
  readonly seed: number | string;
}

/** emu.info(). */
export function info({ engine }: ControlContext): EmulatorInfo {
  const { mode, seed } = engine.config;
  return {
    name: 'catalog-emulator',
    version: VERSION,
    now: isoString(engine.world.clock.now()),
    clockMode: mode,
    seed,
  };
}

/** emu.reset(). */
export function reset(context: ControlContext): void {
  context.engine.reset();
  context.receiverChecks.clear();
}

/** What GET /_emulator answers, and every control that answers with the emulator after changing it. */
export const emulatorInfo = named('EmulatorInfo', () =>
  z.strictObject({
    name: z.literal('catalog-emulator'),
    version: z.string(),
    now: z.string(),
    clockMode: z.enum(['manual', 'real']),
    seed: z.union([z.number(), z.string()]),
  }),
);

export const ROWS = [
  control({
    method: 'GET',
    path: '/',
    id: 'getEmulatorInfo',
    summary: 'Version, now, clock mode and seed',
    tag: 'Emulator',
    scope: 'emulator',
    success: { 200: { description: 'The emulator.', body: emulatorInfo } },
    errors: {},
    run: ({ emu }) => emu.info(),
    sample: () => ({ path: '/' }),
  }),
  control({
    method: 'POST',
    path: '/reset',
    id: 'resetEmulator',
    summary:
      'Back to a fresh emulator: clock at its start, only the initial companies and configured routes, no faults or ' +
      'journal',
    tag: 'Emulator',
    scope: 'emulator',
    success: { 200: { description: 'The emulator after the reset.', body: emulatorInfo } },
    errors: {},
    run: ({ emu }) => {
      emu.reset();
      return emu.info();
    },
    describe: (answer) => ({ detail: `now ${answer.now}` }),
    sample: () => ({ path: '/reset' }),
  }),
] as const satisfies readonly Control[];
