/**
 * A world: everything a reset or a restore replaces — the state, the clock with its tasks, the random sources —
 * with the handlers of every task kind registered on its clock. World.apply is the one place a core transition
 * runs: it builds the Context and moves the task intents the transition left in the outbox onto the clock.
 */
import { VirtualClock, type ClockReading, type PersistedTask } from '../clock/clock.js';
import { createCompany, type CreatedCompany } from '../core/companies.js';
import type { Result } from '../core/refusal.js';
import type { RegulatorySnapshot } from '../core/regulatory/snapshot.js';
import { drainOutbox } from '../core/outbox.js';
import { createRandom, seedRandom, type RandomSource, type RandomState } from '../core/random.js';
import { type Context, type State } from '../core/state.js';
import { createState } from '../core/slices.js';
import { rearmStartedAttempts } from '../core/webhooks/events.js';
import type { ActivityFeed } from './activity.js';
import type { FaultRegistry } from './faults.js';
import type { Transport } from '../network/transport.js';
import type { CompanyOptions, Config } from './config.js';
import { registerDeliveryTasks } from './deliveries.js';
import { registerJobs, schedulePeriodicJobs, type TaskWorld } from './jobs.js';
import type { SeededCompany, Seeder } from './fixtures.js';

/** A company as its creator needs it: its ids and the token of its first credential. */
export interface CreatedCompanyInfo {
  readonly companyId: string;
  readonly cnpjRoot: string;
  readonly token: string;
  readonly headOffice: { readonly id: string; readonly cnpj: string };
}

export interface World extends TaskWorld {
  /**
   * Runs a core transition against this world: builds its Context (the clock's now, or `at`; the world's random;
   * the configuration), runs `fn`, then moves the task intents it left in the outbox onto the clock.
   */
  apply<T>(fn: (state: State, ctx: Context) => T, at?: number): T;
  readonly state: State;
  readonly clock: VirtualClock;
  /** Keys of the requests being processed (transient: a snapshot or reset never carries them). */
  readonly inFlight: Map<string, string>;
  /** The companies of EmulatorOptions.companies, as created in this world. */
  readonly initialCompanies: readonly CreatedCompanyInfo[];
  readonly random: RandomSource;
  /** The request ids' own source, so that ids of records do not depend on how many requests were made. */
  readonly requestRandom: RandomSource;
  /** The company a world of its own belongs to (a company on its own clock); null for the shared world. */
  readonly owner: string | null;
  /** What the fixtures made in this world (EmulatorOptions.fixtures), as created; empty without fixtures. */
  readonly seeded: readonly SeededCompany[];
  /** How many times its clock has moved (a task run, an advance): the change feed tells the clock's now when it did. */
  readonly moves: number;
}

/** What the task handlers of a world reach outside it: the network, the job faults and the activity stream. */
export interface WorldServices {
  readonly transport: Transport;
  readonly faults: FaultRegistry;
  /** Told of every transition a world runs: what a snapshot carries may have changed (Engine.stateVersion). */
  changed(): void;
  /** Where the delivery attempts and job steps are told (when anyone listens or records), and the clock's moves recorded. */
  readonly activity: ActivityFeed;
}

/** A world as a snapshot saves it (checked before it gets here). */
export interface SavedWorld {
  readonly state: State;
  readonly now: number;
  readonly tasks: readonly PersistedTask[];
  readonly random: RandomState;
  readonly requestRandom: RandomState;
  readonly initialCompanies: readonly CreatedCompanyInfo[];
  /** What the fixtures made in the world it was taken from (kept for the companies the state still has). */
  readonly seeded?: readonly SeededCompany[];
}

/**
 * A fresh world from the seed: the periodic jobs scheduled from the start and the configured companies created
 * at the start instant itself, not clock.now(): in real mode the wall clock moves on while the emulator is
 * built, and ids are UUIDv7 of their creation time, so a reset would otherwise recreate them with other ids.
 * Throws a TypeError naming a configured company that cannot be created (`companies[1]: …`). Then `seed` (the
 * fixtures) creates its records, at the start instant too; its companies count among the initial ones.
 */
export function freshWorld(config: Config, services: WorldServices, seed?: Seeder): World {
  const { start } = config;
  const world = assemble(config, services, {
    state: createState(start),
    start,
    random: seedRandom(config.seed),
    requestRandom: seedRandom(`${typeof config.seed}:${String(config.seed)}:requests`),
    initialCompanies: [],
    owner: null,
  });
  schedulePeriodicJobs(world.clock, start);
  config.companies.forEach((options, i) => {
    const created = world.apply((state, ctx) => createCompany(state, options, ctx), start);
    if (!created.ok) throw new TypeError(`companies[${i}]: ${created.refusal.mensagem}`);
    world.initialCompanies.push(describeCompany(created.value));
  });
  if (seed) {
    world.seeded = seed(world, start, config);
    for (const { companyId, cnpjRoot, token, headOffice } of world.seeded)
      world.initialCompanies.push({ companyId, cnpjRoot, token, headOffice });
  }
  return world;
}

/** What a company on its own clock is created from. */
export interface OwnCompany {
  readonly options: CompanyOptions;
  /** Its CNPJ root: given, or drawn by the shared world (it seeds the company's world). */
  readonly cnpjRoot: string;
  /**
   * The emulator's clock reading: its now is where the company's clock starts, and in real mode the company's clock
   * reads as the emulator's did (the wall clock's reading behind that now).
   */
  readonly start: ClockReading;
  /** The regulatory reference in force, which every world shares. */
  readonly regulatory: RegulatorySnapshot;
  /** The CNPJ roots of every other company of the emulator. */
  readonly rootsElsewhere: ReadonlySet<string>;
  /**
   * When it was first created, if before `start`'s now (its reset): it is created again at that instant, so that its
   * seeded ids (UUIDv7, which carry their instant) come out the same, and its clock then moves on to `start`.
   */
  readonly createdAt?: number;
}

/**
 * A world of its own for one company: its own state, clock and random sources, so that what it does never moves
 * another company's time, ids or positions, and advancing it costs only its own tasks. It is seeded by the
 * emulator's seed and the company's CNPJ root: the same company gets the same ids, tokens and answers on any
 * emulator with that seed, whatever other companies do. The periodic jobs run on its clock from its start.
 */
export function ownWorld(
  config: Config,
  services: WorldServices,
  company: OwnCompany,
): Result<{ world: World; created: CreatedCompanyInfo }> {
  const seed = `${typeof config.seed}:${String(config.seed)}:company:${company.cnpjRoot}`;
  const { now: start, wall } = company.start;
  const state = createState(start);
  state.regulatory = company.regulatory;
  const createdAt = company.createdAt ?? start;
  const draft = assemble(config, services, {
    state,
    start: createdAt,
    wallAtStart: createdAt === start ? wall : undefined,
    random: seedRandom(seed),
    requestRandom: seedRandom(`${seed}:requests`),
    initialCompanies: [],
    owner: null,
  });
  const created = draft.apply((s, ctx) =>
    createCompany(s, { ...company.options, cnpjRoot: company.cnpjRoot }, ctx, company.rootsElsewhere),
  );
  if (!created.ok) {
    draft.clock.dispose('closed');
    return created;
  }
  if (createdAt !== start) draft.clock.load(start, draft.clock.tasks(), undefined, wall);
  draft.owner = created.value.company.id;
  schedulePeriodicJobs(draft.clock, start);
  return { ok: true, value: { world: draft, created: describeCompany(created.value) } };
}

/**
 * A world around a saved one: its tasks back on a clock at its instant; attempts that were running end by their
 * time-out. `owner`: the company whose own world it is (null: the shared world).
 */
export function restoredWorld(
  config: Config,
  services: WorldServices,
  saved: SavedWorld,
  owner: string | null = null,
): World {
  const world = assemble(config, services, {
    state: saved.state,
    start: config.start,
    random: saved.random,
    requestRandom: saved.requestRandom,
    initialCompanies: [...saved.initialCompanies],
    owner,
  });
  world.seeded = saved.seeded ?? [];
  world.clock.load(saved.now, saved.tasks);
  // Requests in flight did not survive: attempts still running end by their time-out.
  world.apply(rearmStartedAttempts);
  return world;
}

export function describeCompany(created: CreatedCompany): CreatedCompanyInfo {
  return {
    companyId: created.company.id,
    cnpjRoot: created.company.cnpjRoot,
    token: created.credential.token,
    headOffice: { id: created.headOffice.id, cnpj: created.headOffice.cnpj },
  };
}

const NO_SEEDED: readonly SeededCompany[] = Object.freeze([]);

interface Origin {
  readonly state: State;
  readonly start: number;
  /** The wall clock's reading `start` was taken at, when it was another clock's (ClockOptions.wallAtStart). */
  readonly wallAtStart?: number | undefined;
  readonly random: RandomState;
  readonly requestRandom: RandomState;
  readonly initialCompanies: CreatedCompanyInfo[];
  readonly owner: string | null;
}

function assemble(
  config: Config,
  services: WorldServices,
  origin: Origin,
): World & { initialCompanies: CreatedCompanyInfo[]; owner: string | null; seeded: readonly SeededCompany[] } {
  const clock = new VirtualClock({
    mode: config.mode,
    start: origin.start,
    wallAtStart: origin.wallAtStart,
    onMove: () => {
      world.moves++;
      services.changed();
      services.activity.recorder?.clockMoved(world.owner);
    },
  });
  const world = {
    moves: 0,
    state: origin.state,
    clock,
    inFlight: new Map<string, string>(),
    initialCompanies: origin.initialCompanies,
    random: createRandom(origin.random),
    requestRandom: createRandom(origin.requestRandom),
    owner: origin.owner as string | null,
    seeded: NO_SEEDED,
    apply: <T>(fn: (state: State, ctx: Context) => T, at = clock.now()): T => {
      services.changed();
      const result = fn(world.state, { now: at, random: world.random, config: config.core });
      for (const task of drainOutbox(world.state))
        clock.schedule({ kind: task.kind, owner: task.owner, payload: task.payload }, task.due);
      return result;
    },
  };
  registerDeliveryTasks(world, services.transport, services.activity);
  registerJobs(world, services.faults, services.activity);
  return world;
}
