/**
 * Property: on any operation that takes If-Match, a `concurrentEdit` fault yields 412 and changes nothing but
 * what another client's save of the guarded resource changes — its version stamp (`versao` + 1 and
 * `atualizadoEm`), and for the webhook destination, which no save leaves with its old secret, the secret (the old
 * one kept as its previous secret).
 *
 * Any row of the If-Match table (all but the ingestion application, where the fault is refused), any other
 * records around it, the fault matched by exact path or by glob, its method in any case, firing once, twice
 * or until removed. The whole service state (GET /_emulator/state) is compared record by record before and
 * after.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectError } from '../support/expect.js';
import { RACEABLE, SCENES, sceneKey, send } from '../support/guarded-operations.js';
import { product } from '../support/client.js';
import { branchCatalog } from '../support/fixtures.js';
import { lab, PROPERTY_TIMEOUT, runs } from './support/lab.js';

type Records = Record<string, unknown>;

/** The records of a state snapshot that differ between two snapshots, as "collection:key". */
function changedRecords(before: Records, after: Records): Map<string, [unknown, unknown]> {
  const changed = new Map<string, [unknown, unknown]>();
  for (const collection of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const a = before[collection];
    const b = after[collection];
    if (Array.isArray(a) && Array.isArray(b)) {
      const keyed = (list: unknown[]) => new Map(list.map((r, i) => [recordKey(r, i), r] as const));
      const ka = keyed(a);
      const kb = keyed(b);
      for (const key of new Set([...ka.keys(), ...kb.keys()])) {
        if (JSON.stringify(ka.get(key)) !== JSON.stringify(kb.get(key)))
          changed.set(`${collection}:${key}`, [ka.get(key), kb.get(key)]);
      }
    } else if (JSON.stringify(a) !== JSON.stringify(b)) changed.set(collection, [a, b]);
  }
  return changed;
}

function recordKey(record: unknown, index: number): string {
  if (typeof record === 'object' && record !== null && !Array.isArray(record)) {
    const r = record as Records;
    if (typeof r.id === 'string') return r.id;
    if (typeof r.companyId === 'string') return r.companyId;
  }
  return `#${index}`;
}

const COLLECTION_OF = {
  catalog: 'catalogs',
  product: 'products',
  establishment: 'establishments',
  surveillanceSelection: 'surveillance',
  webhookDestination: 'webhookDestinations',
} as const;

describe('concurrentEdit', { timeout: PROPERTY_TIMEOUT }, () => {
  it("on any operation that takes If-Match yields 412 and changes nothing but the guarded resource's version (and a destination's secret)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...RACEABLE),
        fc.nat({ max: 3 }),
        fc.constantFrom('exact', 'glob'),
        fc.constantFrom<(m: string) => string>(
          (m) => m,
          (m) => m.toLowerCase(),
          (m) => m[0] + m.slice(1).toLowerCase(),
        ),
        fc.constantFrom<number | null>(1, 2, null),
        async (operation, others, matchBy, methodCase, times) => {
          const w = lab();
          // Other records around the guarded one: products in a branch's catalog.
          if (others > 0) {
            const elsewhere = await branchCatalog(w);
            for (let i = 0; i < others; i++) await product(w, elsewhere.id, { sku: `OTHER-${i}` });
          }
          const request = await SCENES[sceneKey(operation)]!(w);
          const path = matchBy === 'exact' ? request.path : request.path.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '*');
          const { id } = w.emu.faults.add({
            target: 'api',
            match: { method: methodCase(operation.method), path, companyId: w.company.companyId },
            effect: { concurrentEdit: true },
            times,
          });
          const before = w.emu.snapshot();

          expectError(await send(w, request), 412, 'precondicao_falhou', 'header.if-match');

          const after = w.emu.snapshot();
          const fault = w.emu.faults.list().find((f) => f.id === id);
          if (times === 1) expect(fault).toBeUndefined();
          else expect(fault).toMatchObject({ hits: 1, times: times === null ? null : times - 1 });

          const changed = changedRecords(before.state as unknown as Records, after.state as unknown as Records);
          expect([...changed.keys()].map((k) => k.split(':')[0])).toEqual([
            COLLECTION_OF[operation.guards as keyof typeof COLLECTION_OF],
          ]);
          const [was, is] = [...changed.values()][0]! as [Records, Records];
          const allowed = new Set([
            'versao',
            'atualizadoEm',
            ...(operation.guards === 'webhookDestination' ? ['secret', 'previousSecret'] : []),
          ]);
          for (const field of new Set([...Object.keys(was), ...Object.keys(is)])) {
            if (!allowed.has(field)) expect(is[field], `${field} of the guarded record`).toEqual(was[field]);
          }
          expect(is.versao).toBe((was.versao as number) + 1);
          if (operation.guards === 'webhookDestination') expect(is.previousSecret).toBe(was.secret);
          if ('atualizadoEm' in is) expect(is.atualizadoEm).toBe(after.now);
        },
      ),
      { numRuns: runs(60) },
    );
  });
});
