/**
 * The demo gate: a teaching scenario (src/demos) run against a server, held before each of its steps until someone
 * says "next" — the inspector page's "Next step" button (POST /_emulator/inspector/demo/next) or, from the CLI,
 * Enter on the terminal. The gate keeps what the page shows of the run: each step's title and the narration printed
 * during it. It is found from a control request by the emulator the scenario runs on (begin() registers it), so an
 * emulator without a demo answers 404 and nothing is kept for it.
 */
import type { DemoState } from '../wire.js';
import { maskText } from './mask.js';

type Step = DemoState['steps'][number];

/** The emulator each gate paces (a WeakMap: a closed emulator's gate goes with it). */
const gates = new WeakMap<object, DemoGate>();

/** The gate pacing a scenario on this emulator, if any. */
export function demoGateOf(emulator: object): DemoGate | undefined {
  return gates.get(emulator);
}

/** How long POST …/demo/next waits for the step it released to reach the next gate (or the end) before answering. */
const STEP_SETTLE_MS = 10_000;

/**
 * Paces one run of a scenario: pass it to `demo.run(print, gate)` and feed it the narration with `line()`. Each
 * step waits until next() releases it; when the gate is waiting, the last of its steps is the one next() releases
 * (its title is known, its lines not yet).
 */
export class DemoGate {
  readonly #name: string;
  readonly #summary: string;
  readonly #steps: Step[] = [];
  /** Steps released so far: narration goes to the last of them (lines printed before the first are the terminal's only). */
  #released = 0;
  #release: (() => void) | undefined;
  /** The text the scenario prints as the heading of the step just released: its title is already the step's. */
  #heading: string | undefined;
  #done = false;
  #emulator: object | undefined;
  /** Who waits for the scenario to reach its next gate or its end (POST …/demo/next). */
  readonly #settled = new Set<() => void>();

  constructor(demo: { readonly name: string; readonly summary: string }) {
    this.#name = demo.name;
    this.#summary = demo.summary;
  }

  /** The scenario's emulator, as soon as it exists: from now on its control routes answer for this gate. */
  begin(emulator: object): void {
    if (this.#emulator !== undefined) throw new Error(`the gate of demo ${this.#name} paces one run`);
    this.#emulator = emulator;
    gates.set(emulator, this);
  }

  /** Awaited by the scenario before step `n` (whose text's first line is its title): resolves when next() releases it. */
  step(n: number, text: string): Promise<void> {
    const title = text.split('\n')[0] ?? '';
    this.#steps.push({ n, title, lines: [] });
    return new Promise<void>((resolve) => {
      this.#release = () => {
        this.#heading = `\n${text}`;
        this.#released = this.#steps.length;
        resolve();
      };
      this.#settle();
    });
  }

  /** One printed piece of narration (it may hold several lines). */
  line(text: string): void {
    const step = this.#released === 0 ? undefined : this.#steps[this.#released - 1];
    if (step === undefined) return;
    let lines = text.split('\n');
    // The step's heading, printed once the step runs: its first line is the title; the rest (if any) is narration.
    if (text === this.#heading) {
      this.#heading = undefined;
      lines = lines.slice(2);
    }
    step.lines.push(...lines.map(maskText));
  }

  /** The scenario ended (or stopped: `failure` says why, as the last line of the step it stopped in). */
  finish(failure?: string): void {
    if (failure !== undefined) {
      const step = this.#steps[this.#released - 1];
      if (step) step.lines.push(`The demo stopped: ${failure}`);
    }
    this.#done = true;
    this.#release = undefined;
    this.#settle();
  }

  get waiting(): boolean {
    return this.#release !== undefined;
  }

  get done(): boolean {
    return this.#done;
  }

  /** What GET /_emulator/inspector/demo answers: a copy, so a reader cannot change the run's record. */
  state(): DemoState {
    return {
      name: this.#name,
      summary: this.#summary,
      steps: this.#steps.map((step) => ({ n: step.n, title: step.title, lines: [...step.lines] })),
      waiting: this.waiting,
      done: this.#done,
    };
  }

  /** Releases the step the scenario waits at; false when it waits at none (a step is running, or the run ended). */
  next(): boolean {
    const release = this.#release;
    if (release === undefined) return false;
    this.#release = undefined;
    release();
    return true;
  }

  /**
   * Resolves once the scenario waits at a step or has ended — at once if it does now — or after `timeoutMs`
   * (a step that runs longer is still running then: the answer says waiting false, done false).
   */
  settled(timeoutMs = STEP_SETTLE_MS): Promise<void> {
    if (this.waiting || this.#done) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#settled.delete(done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.#settled.add(done);
    });
  }

  #settle(): void {
    for (const done of [...this.#settled]) done();
  }
}
