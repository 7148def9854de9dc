import { describe, expect, it } from 'vitest';
import { concurrentEditImpossible } from '../core/concurrent-edit.js';
import { IF_MATCH_OPERATIONS } from '../core/versioning.js';
import { operations } from './app.js';
import { guardOf } from './pipeline.js';

describe('the If-Match table', () => {
  it('names only operations the API has, each once, and each is the guard of exactly that operation', () => {
    const keys = IF_MATCH_OPERATIONS.map((o) => `${o.method} ${o.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const row of IF_MATCH_OPERATIONS) {
      const registered = operations.filter((op) => op.guard === row);
      expect(
        registered.map((op) => `${op.method} ${op.path}`),
        `${row.method} ${row.path}`,
      ).toEqual([`${row.method} ${row.path.replace(/\{(\w+)\}/g, ':$1')}`]);
    }
    expect(operations.filter((op) => op.guard !== undefined)).toHaveLength(IF_MATCH_OPERATIONS.length);
  });

  it('never lists a read, and names the path parameter of every guarded resource that has an id', () => {
    for (const row of IF_MATCH_OPERATIONS) {
      expect(row.method).not.toBe('GET');
      if (row.guardedBy !== undefined) expect(row.path).toContain(`{${row.guardedBy}}`);
      else expect(['surveillanceSelection', 'webhookDestination']).toContain(row.guards);
    }
  });

  it('finds a row by the method and the hono path of its operation', () => {
    expect(guardOf('PUT', '/v1/catalogos/:id/produtos/:produto_id')).toMatchObject({
      guards: 'product',
      guardedBy: 'produto_id',
    });
    expect(guardOf('POST', '/v1/catalogos')).toBeUndefined();
    expect(guardOf('GET', '/v1/catalogos/:id')).toBeUndefined();
  });

  it('lets the concurrentEdit fault fire everywhere but on the ingestion application, and says why there', () => {
    expect(
      IF_MATCH_OPERATIONS.filter((o) => concurrentEditImpossible(o) !== undefined).map((o) => `${o.method} ${o.path}`),
    ).toEqual(['POST /v1/catalogos/ingestoes/{id}/aplicacao']);
  });
});
