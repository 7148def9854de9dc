/**
 * Lifecycles as explicit transition tables, written as the spec and docs/ write theirs: in each state, the
 * events it takes and the state each one leads to (`table[state][event]`, undefined when the state does not take
 * the event: the caller refuses, or leaves the record as it is). A state that takes no event is final.
 *
 * And the one lifecycle two aggregates share: a run, work accepted now and done later on the virtual clock (an
 * analysis, a surveillance execution). What starts, impedes or fails each is its module's (analyses.ts,
 * surveillance-executions.ts); the states and the moves between them are this table's.
 */

export type Lifecycle<S extends string, E extends string> = { readonly [From in S]: { readonly [On in E]?: S } };

/** Whether `state` takes no event: the record's lifecycle is over. */
export function isFinal<S extends string, E extends string>(table: Lifecycle<S, E>, state: S): boolean {
  for (const _ in table[state]) return false;
  return true;
}

/** spec: ANA-02 (an analysis's states; a surveillance execution's are the same). */
export type RunState = 'pendente' | 'executando' | 'concluida' | 'falhou';
type RunEvent = 'iniciar' | 'impedir' | 'concluir' | 'falhar';

/**
 * The spec shows the states of a run, not its transitions (spec "Analysis"): these are the emulator's.
 *
 *   pendente   --iniciar-->   executando  after its start delay; an analysis takes one unit of allowance here,
 *                                         not at its acceptance (spec: ANA-06)
 *   pendente   --impedir-->   falhou      it cannot start (an analysis without allowance, an execution without
 *                                         surveillance)
 *   executando --concluir-->  concluida   its findings are published
 *   executando --falhar-->    falhou      the run failed (a `job` fault)
 *   concluida, falhou are final.
 */
export const RUN_LIFECYCLE: Lifecycle<RunState, RunEvent> = {
  pendente: { iniciar: 'executando', impedir: 'falhou' },
  executando: { concluir: 'concluida', falhar: 'falhou' },
  concluida: {},
  falhou: {},
};

/** `fase`: where a run is, one for each state. */
export const RUN_PHASE: Readonly<Record<RunState, 'na_fila' | 'avaliando' | 'publicada' | 'encerrada'>> = {
  pendente: 'na_fila',
  executando: 'avaliando',
  concluida: 'publicada',
  falhou: 'encerrada',
};
