/**
 * The options of `serve` a container sets through its environment (a compose file's `environment:`, `docker run
 * -e`): each variable stands for its flag when the flag is not given — the flag wins — and an empty variable counts
 * as unset, as shells and compose files make it easy to leave one so.
 */

/** Each option's variable. PORT is the one hosting platforms and container images set for a server's port. */
export const SERVE_VARIABLES = {
  port: 'PORT',
  seed: 'CATALOG_EMULATOR_SEED',
  clock: 'CATALOG_EMULATOR_CLOCK',
  fixtures: 'CATALOG_EMULATOR_FIXTURES',
  state: 'CATALOG_EMULATOR_STATE',
  'allow-host': 'CATALOG_EMULATOR_ALLOW_HOSTS',
  'control-token': 'CATALOG_EMULATOR_CONTROL_TOKEN',
  'history-entries': 'CATALOG_EMULATOR_HISTORY_ENTRIES',
  'history-bytes': 'CATALOG_EMULATOR_HISTORY_BYTES',
} as const;

type Option = keyof typeof SERVE_VARIABLES;

/** The options as the command line gives them: `--allow-host` repeatable, the rest single. */
type Given = { [O in Option]?: O extends 'allow-host' ? string[] : string };

export interface Settled<F extends Given> {
  /** The flags, each absent one filled from its variable where that is set. */
  readonly flags: F;
  /** Where an option's value came from, for a message about it: `--clock`, or `CATALOG_EMULATOR_CLOCK`. */
  readonly origin: (option: Option) => string;
}

/**
 * `flags` completed from `env`; a string saying what is wrong (naming the variable) for a value no flag could take
 * either. Each value is checked where the flag's is (the origin names the variable then): this only reads.
 */
export function withEnvironment<F extends Given>(
  flags: F,
  env: Readonly<Record<string, string | undefined>>,
): Settled<F> | string {
  const filled: Given = { ...flags };
  const fromEnv = new Set<Option>();
  for (const option of Object.keys(SERVE_VARIABLES) as Option[]) {
    const value = env[SERVE_VARIABLES[option]];
    if (flags[option] !== undefined || value === undefined || value === '') continue;
    fromEnv.add(option);
    if (option === 'allow-host') {
      // Comma-separated, as one variable holds what the flag takes repeated.
      const names = value.split(',').map((name) => name.trim());
      if (names.includes(''))
        return `${SERVE_VARIABLES[option]} takes host names separated by commas, e.g. emulator,catalog-emulator (got "${value}")`;
      filled[option] = names;
    } else filled[option] = value;
  }
  return { flags: filled as F, origin: (option) => (fromEnv.has(option) ? SERVE_VARIABLES[option] : `--${option}`) };
}
