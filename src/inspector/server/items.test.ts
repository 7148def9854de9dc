import { describe, expect, it } from 'vitest';
import { jobItem, span, taskItem } from './items.js';

describe('span', () => {
  it('says a virtual span in its two largest units', () => {
    expect(
      [0, 250, 1_000, 5_000, 300_000, 305_000, 1_800_000, 7_200_000, 5_400_000, 86_400_000, 93_600_000, 90_061_000].map(
        span,
      ),
    ).toEqual(['+0ms', '+250ms', '+1s', '+5s', '+5m', '+5m5s', '+30m', '+2h', '+1h30m', '+1d', '+1d2h', '+1d1h']);
  });
});

describe('jobs and tasks in words', () => {
  const at = Date.parse('2026-01-01T00:00:00.000Z');
  it('names a job run by what it does and the record it works on, with its fault', () => {
    const job = {
      kind: 'job',
      at: '2026-01-01T00:00:00.000Z',
      task: 'analise.fim',
      companyId: 'c',
      subjectId: 'a1',
      fault: null,
      seq: 4,
      atMs: at,
      bytes: 1024,
    } as const;
    expect(jobItem(job)).toEqual({
      id: 'job:4',
      kind: 'job',
      at: '2026-01-01T00:00:00.000Z',
      title: 'end of analysis a1',
      status: null,
      tone: 'info',
      tags: ['analise.fim'],
      detail: true,
    });
    expect(jobItem({ ...job, fault: 'failed' })).toMatchObject({
      title: 'end of analysis a1 failed by a fault',
      tone: 'error',
      tags: ['analise.fim', 'fault failed'],
    });
    expect(jobItem({ ...job, task: 'ingestao.validacao', fault: 'delayed' })).toMatchObject({
      title: 'validation of ingestion a1 postponed by a fault',
      tone: 'warn',
    });
    expect(jobItem({ ...job, task: 'outra.coisa', subjectId: null })).toMatchObject({ title: 'outra.coisa' });
  });

  it('names a task ahead, a deadline as such', () => {
    expect(
      taskItem({
        id: 9,
        due: at,
        kind: 'ingestao.expiracao',
        owner: 'c',
        payload: { ingestionId: 'i1' },
        nature: 'deadline',
      }),
    ).toEqual({
      id: 'task:9',
      kind: 'deadline',
      at: '2026-01-01T00:00:00.000Z',
      title: 'deadline: expiry of ingestion i1',
      status: null,
      tone: 'pending',
      tags: ['ingestao.expiracao'],
      detail: true,
    });
    expect(
      taskItem({
        id: 3,
        due: at,
        kind: 'webhook.tempo_esgotado',
        owner: 'c',
        payload: { eventId: 'e1', tentativa: 2 },
        nature: 'work',
      }),
    ).toMatchObject({ kind: 'task', title: 'time-out of attempt 2 of event e1' });
  });
});
