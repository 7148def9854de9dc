import { describe, expect, it } from 'vitest';
import { isFinal, RUN_LIFECYCLE, RUN_PHASE, type Lifecycle, type RunState } from './lifecycle.js';

const STATES = Object.keys(RUN_LIFECYCLE) as RunState[];

/** The states a run in `from` can come to, `from` included. */
function reachable(from: RunState): Set<RunState> {
  const seen = new Set<RunState>([from]);
  for (const state of seen) for (const to of Object.values(RUN_LIFECYCLE[state])) if (to !== undefined) seen.add(to);
  return seen;
}

describe('lifecycle tables', () => {
  it('a state is final exactly when it takes no event', () => {
    const table: Lifecycle<'a' | 'b' | 'c', 'go' | 'back'> = { a: { go: 'b' }, b: { back: 'a', go: 'c' }, c: {} };
    expect((['a', 'b', 'c'] as const).map((state) => isFinal(table, state))).toEqual([false, false, true]);
    expect(STATES.filter((state) => isFinal(RUN_LIFECYCLE, state))).toEqual(['concluida', 'falhou']);
  });

  it('a run starts pendente, is impeded only before it runs, and every state is reached and comes to an end', () => {
    expect(RUN_LIFECYCLE.pendente).toEqual({ iniciar: 'executando', impedir: 'falhou' });
    expect(RUN_LIFECYCLE.executando).toEqual({ concluir: 'concluida', falhar: 'falhou' });
    expect([...reachable('pendente')].sort()).toEqual([...STATES].sort());
    expect(STATES.filter((state) => ![...reachable(state)].some((to) => isFinal(RUN_LIFECYCLE, to)))).toEqual([]);
  });

  it('each state of a run has its phase', () => {
    expect(RUN_PHASE).toEqual({
      pendente: 'na_fila',
      executando: 'avaliando',
      concluida: 'publicada',
      falhou: 'encerrada',
    });
  });
});
