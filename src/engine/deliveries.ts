/**
 * The delivery driver: runs the webhook tasks of the virtual clock. Each task calls one core transition and
 * hands the network's outcome back to the core; it holds no rule of its own
 * (ARCHITECTURE.md "The path of a webhook delivery").
 *
 *   webhook.tentativa      an attempt is due: beginAttempt, send, then finishAttempt (at once, or after a
 *                          virtual latency through webhook.resposta)
 *   webhook.tempo_esgotado the attempt's 15 s are up: finishAttempt with a time-out if it is still running
 *   webhook.resposta       a delayed answer arrives
 *
 * All three are work: runUntilIdle carries a delivery through to its end. Event retention is a job of the core's
 * registry (src/core/jobs.ts), registered with the others by src/engine/jobs.ts.
 * It is engine wiring (clock tasks that call core transitions), so it sits in src/engine: src/network only sends,
 * and imports no core function.
 */
import {
  attemptTimeoutIntent,
  beginAttempt,
  finishAttempt,
  TASK_ATTEMPT,
  TASK_ATTEMPT_TIMEOUT,
  TASK_RESPONSE,
  type NetworkOutcome,
} from '../core/webhooks/events.js';
import type { Transport, TransportResult } from '../network/transport.js';
import type { State } from '../core/state.js';
import { isoString } from '../core/time.js';
import type { ActivityFeed, DeliveryActivity } from './activity.js';
import type { TaskWorld } from './jobs.js';

export function registerDeliveryTasks(world: TaskWorld, transport: Transport, activity: ActivityFeed): void {
  // world.state is read at each run, never captured: the handlers must act on the world's state as it is now.
  const { clock } = world;
  const finish = (eventId: string, tentativa: number, outcome: NetworkOutcome) => {
    world.apply((state, ctx) => {
      // Only an attempt still running ends here (a late answer after its time-out changes nothing): that one is told.
      const running = state.webhookEvents.get(eventId)?.attempts[tentativa - 1]?.estado === 'iniciada';
      finishAttempt(state, eventId, tentativa, outcome, ctx);
      if (!running) return;
      activity.observer?.attemptEnded(state, eventId, tentativa);
      if (activity.wanted)
        activity.tell(deliveryActivity(state, eventId, tentativa, ctx.config.delivery.maxAttemptsPerCycle));
    });
  };

  clock.handle(TASK_ATTEMPT, 'work', (task) => {
    const { eventId, ciclo } = task.payload as { eventId: string; ciclo: number };
    // The attempt's Context: its start (now) and the delivery policy its time-out comes from.
    const [delivery, started] = world.apply((state, ctx) => [beginAttempt(state, eventId, ciclo, ctx), ctx] as const);
    if (!delivery) return;
    const now = started.now;
    const answered = ({ outcome, latencyMs, receiver }: TransportResult) => {
      if (receiver !== null) {
        const { companyId, tentativa } = delivery;
        const timeoutMs = started.config.delivery.attemptTimeoutMs;
        activity.observer?.received({ companyId, eventId, tentativa, at: now, timeoutMs, answer: receiver });
      }
      // No answer, or one slower than the time-out: the attempt ends when its time-out fires.
      if (outcome.kind === 'no_answer' || latencyMs >= started.config.delivery.attemptTimeoutMs) {
        world.apply((state, ctx) => attemptTimeoutIntent(state, eventId, delivery.tentativa, now, ctx));
        return;
      }
      if (latencyMs > 0) {
        clock.schedule(
          {
            kind: TASK_RESPONSE,
            owner: delivery.companyId,
            payload: { eventId, tentativa: delivery.tentativa, ...outcome },
          },
          now + latencyMs,
        );
        return;
      }
      finish(eventId, delivery.tentativa, outcome);
    };
    // Most attempts are answered at once (see Transport.send): then the task ends without a promise.
    const sent = transport.send({ ...delivery, now });
    return sent instanceof Promise ? sent.then(answered) : answered(sent);
  });

  clock.handle(TASK_ATTEMPT_TIMEOUT, 'work', (task) => {
    const { eventId, tentativa } = task.payload as { eventId: string; tentativa: number };
    finish(eventId, tentativa, { kind: 'timeout' });
  });

  clock.handle(TASK_RESPONSE, 'work', (task) => {
    const { eventId, tentativa, ...outcome } = task.payload as { eventId: string; tentativa: number } & NetworkOutcome;
    finish(eventId, tentativa, outcome as NetworkOutcome);
  });
}

/** The activity entry of attempt `tentativa` of an event, just ended, read from the state it left. */
function deliveryActivity(
  state: State,
  eventId: string,
  tentativa: number,
  attemptsPerCycle: number,
): DeliveryActivity {
  const event = state.webhookEvents.get(eventId)!;
  const attempt = event.attempts[tentativa - 1]!;
  let attemptInCycle = 0;
  for (const a of event.attempts) if (a.ciclo === attempt.ciclo && a.tentativa <= tentativa) attemptInCycle++;
  const destination = state.webhookDestinations.get(event.companyId);
  return {
    kind: 'delivery',
    at: isoString(attempt.iniciadaEm),
    companyId: event.companyId,
    eventId,
    eventType: event.tipo,
    attempt: tentativa,
    cycle: attempt.ciclo,
    attemptInCycle,
    attemptsPerCycle,
    url: destination?.url ?? '',
    outcome: attempt.estado === 'iniciada' ? 'incerta' : attempt.estado,
    failure: attempt.codigoFalha,
    status: attempt.statusHttp,
    durationMs: (attempt.terminadaEm ?? attempt.iniciadaEm) - attempt.iniciadaEm,
    nextAttemptAt: event.proximaTentativaEm === null ? null : isoString(event.proximaTentativaEm),
    eventState: event.estado,
  };
}
