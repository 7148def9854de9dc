/**
 * The account of an exploration: its transitions as the module's table says them (begun running; each run counted,
 * the last 20 kept; ended once, by its verdict, and told nothing after), and its lines.
 */
import { describe, expect, it } from 'vitest';
import {
  beginExploration,
  endExploration,
  explorationLine,
  explorationSection,
  runLine,
  tellRun,
} from './exploration.js';

const LOST = { target: 'api', method: 'POST', path: '/v1/catalogos', nth: 1, effect: 'loseResponse' } as const;

describe('an exploration', () => {
  it('is running once begun, counts every run told and keeps the last 20, oldest first', () => {
    let exploration = beginExploration('exploracao-1', { seed: 3, runs: 30 });
    expect(exploration).toMatchObject({ state: 'running', told: 0, recent: [], verdict: null, command: null });
    for (let n = 1; n <= 25; n++) exploration = tellRun(exploration, { phase: 'search', plan: [LOST], reasons: [] })!;
    expect(exploration.told).toBe(25);
    expect(exploration.recent.map((r) => r.n)).toEqual(Array.from({ length: 20 }, (_, i) => i + 6));
    expect(runLine(exploration.recent.at(-1)!)).toBe(
      'run 25 (search): loseResponse on the 1st POST /v1/catalogos → passed',
    );
    expect(explorationLine(exploration)).toBe('running (seed 3): 25 runs told, 30 plans asked');
  });

  it('ends by its verdict (failed, incomplete or passed), and is told nothing after it ended', () => {
    const begun = beginExploration('exploracao-1', { seed: 3, runs: 30, command: 'python3 sync.py' });
    const failure = {
      plan: [LOST],
      shrunkFrom: [LOST],
      reasons: [{ kind: 'exit', message: 'exited with code 1' }] as const,
      findings: [],
      outcomeDiff: [],
      replay: 'replay line',
      faultFree: false,
    };
    const failed = endExploration(begun, { runs: 4, passed: 3, failure, incomplete: null })!;
    expect(failed.state).toBe('failed');
    expect(explorationLine(failed)).toBe('failed (seed 3, 4 runs): loseResponse on the 1st POST /v1/catalogos');
    expect(explorationSection(failed)).toEqual([
      '## The last exploration: failed (seed 3, 4 runs): loseResponse on the 1st POST /v1/catalogos',
      '',
      'Command: python3 sync.py',
      '',
      `Minimal plan: \`${JSON.stringify([LOST])}\``,
      '- exit: exited with code 1',
      'Replay: replay line',
      '',
      'Last runs (0 of 0):',
    ]);
    expect(endExploration(begun, { runs: 1, passed: 0, failure: null, incomplete: 'cut' })!.state).toBe('incomplete');
    expect(endExploration(begun, { runs: 30, passed: 30, failure: null, incomplete: null })!.state).toBe('passed');
    expect(tellRun(failed, { phase: 'search', plan: [], reasons: [] })).toBeNull();
    expect(endExploration(failed, { runs: 30, passed: 30, failure: null, incomplete: null })).toBeNull();
  });
});
