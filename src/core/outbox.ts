/**
 * The core never touches the clock: a transition that needs work done later (the next delivery attempt, a
 * time-out) appends a task intent here, and the shell moves every intent onto the virtual clock right after
 * the change (after each request and each task). The outbox is therefore always empty between changes, and
 * a snapshot never holds it.
 */
import type { State } from './state.js';
import type { Instant } from './time.js';

export interface TaskIntent {
  readonly kind: string;
  /** The company the work belongs to (its clock, once companies get their own). */
  readonly owner: string;
  readonly due: Instant;
  readonly payload: Readonly<Record<string, string | number>>;
}

export function schedule(state: State, intent: TaskIntent): void {
  state.outbox.push(intent);
}

export function drainOutbox(state: State): TaskIntent[] {
  return state.outbox.splice(0, state.outbox.length);
}
