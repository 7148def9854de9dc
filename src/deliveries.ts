/**
 * The delivery driver: runs the webhook tasks of the virtual clock. Each task calls one core transition and
 * hands the network's outcome back to the core; it holds no rule of its own (DESIGN §2).
 *
 *   webhook.tentativa      an attempt is due: beginAttempt, send, then finishAttempt (at once, or after a
 *                          virtual latency through webhook.resposta)
 *   webhook.tempo_esgotado the attempt's 15 s are up: finishAttempt with a time-out if it is still running
 *   webhook.resposta       a delayed answer arrives
 *   webhook.retencao       hourly: closed events older than 30 days are removed (a `job` fault can hold it back);
 *                          consecutive runs with nothing between them coalesce (one run at the last)
 *
 * The first three are work (runUntilIdle carries a delivery through to its end); retention is a deadline.
 * It is engine wiring (clock tasks that call core transitions), so it sits beside emulator.ts: src/network only
 * sends, and imports no core function.
 */
import type { VirtualClock } from './clock/clock.js';
import type { Context, State } from './core/state.js';
import { attemptTimeoutIntent, beginAttempt, finishAttempt, TASK_ATTEMPT, TASK_ATTEMPT_TIMEOUT, TASK_RESPONSE, type NetworkOutcome } from './core/webhooks/events.js';
import { purgeClosedEvents, TASK_RETENTION } from './core/webhooks/retention.js';
import { HOUR } from './core/time.js';
import type { FaultRegistry } from './control/faults.js';
import type { Transport } from './network/transport.js';
export const RETENTION_EVERY_MS = HOUR;

export interface DeliveryWorld {
  readonly state: State;
  readonly clock: VirtualClock;
  /** Runs a core transition with the world's Context and moves the task intents it left onto the clock. */
  apply<T>(fn: (state: State, ctx: Context) => T): T;
}

export function registerDeliveryTasks(world: DeliveryWorld, transport: Transport, faults: FaultRegistry): void {
  // world.state is read at each run, never captured: the handlers must act on the world's state as it is now.
  const { clock } = world;
  const finish = (eventId: string, tentativa: number, outcome: NetworkOutcome) => {
    world.apply((state, ctx) => finishAttempt(state, eventId, tentativa, outcome, ctx));
  };

  clock.handle(TASK_ATTEMPT, 'work', async (task) => {
    const { eventId, ciclo } = task.payload as { eventId: string; ciclo: number };
    // The attempt's Context: its start (now) and the delivery policy its time-out comes from.
    const [delivery, started] = world.apply((state, ctx) => [beginAttempt(state, eventId, ciclo, ctx), ctx] as const);
    if (!delivery) return;
    const now = started.now;
    const { outcome, latencyMs } = await transport.send({ ...delivery, now });
    // No answer, or one slower than the time-out: the attempt ends when its time-out fires.
    if (outcome.kind === 'no_answer' || latencyMs >= started.config.delivery.attemptTimeoutMs) {
      world.apply((state, ctx) => attemptTimeoutIntent(state, eventId, delivery.tentativa, now, ctx));
      return;
    }
    if (latencyMs > 0) {
      clock.schedule({ kind: TASK_RESPONSE, owner: delivery.companyId, payload: { eventId, tentativa: delivery.tentativa, ...outcome } }, now + latencyMs);
      return;
    }
    finish(eventId, delivery.tentativa, outcome);
  });

  clock.handle(TASK_ATTEMPT_TIMEOUT, 'work', (task) => {
    const { eventId, tentativa } = task.payload as { eventId: string; tentativa: number };
    finish(eventId, tentativa, { kind: 'timeout' });
  });

  clock.handle(TASK_RESPONSE, 'work', (task) => {
    const { eventId, tentativa, ...outcome } = task.payload as { eventId: string; tentativa: number } & NetworkOutcome;
    finish(eventId, tentativa, outcome as NetworkOutcome);
  });

  // Its fault-postponed extra run is of the same kind, so a deadline too. The purge is monotone in now (a run
  // removes everything an earlier one would have) and schedules nothing, so hourly runs with no other task
  // between them coalesce into the last one; not while a job fault that counts its runs is armed.
  clock.handle(TASK_RETENTION, 'deadline', () => {
    const fault = faults.takeJob({ kind: 'retencao_eventos', companyId: null })?.effect;
    if (fault && 'fail' in fault) return;
    if (fault && 'delayMs' in fault) {
      // Postponed: this run is skipped and a single extra run happens later.
      clock.schedule({ kind: TASK_RETENTION, owner: null }, clock.now() + fault.delayMs);
      return;
    }
    purgeClosedEvents(world.state, clock.now());
  }, { coalesce: () => !faults.armsJob({ kind: 'retencao_eventos', companyId: null }) });
}

/** The hourly retention run, first an hour after `start`. */
export function scheduleRetention(clock: VirtualClock, start: number): void {
  clock.schedule({ kind: TASK_RETENTION, owner: null, everyMs: RETENTION_EVERY_MS }, start + RETENTION_EVERY_MS);
}
