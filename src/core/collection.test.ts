/** The collection of a kind of record: its writes noted only while watched, and its per-company lists. */
import { describe, expect, it } from 'vitest';
import { Collection, type Watched } from './collection.js';

interface Thing {
  readonly id: string;
  readonly companyId: string;
  readonly position: number;
}

const thing = (id: string, companyId: string, position: number): Thing => ({ id, companyId, position });
const listing = { company: (t: Thing) => t.companyId, position: (t: Thing) => t.position };
const listed = (things: Collection<Thing>, companyId: string) => things.listOf(companyId).entries();
const noted = (watched: Watched) => [...(watched.written?.get('things') ?? [])];

describe('Collection', () => {
  it('notes nothing while no change log watches', () => {
    const watched: Watched = { written: undefined };
    const things = new Collection<Thing>(watched, 'things', listing);
    things.set('a', thing('a', 'c1', 1));
    things.delete('a');
    expect(watched.written).toBeUndefined();
  });

  it('notes each key written, once, in the order first written; a deleted key is flagged and moves to the end', () => {
    const watched: Watched = { written: new Map() };
    const things = new Collection<Thing>(watched, 'things');
    things.set('a', thing('a', 'c1', 1));
    things.set('b', thing('b', 'c1', 2));
    things.set('a', thing('a', 'c1', 1));
    expect(noted(watched)).toEqual([
      ['a', false],
      ['b', false],
    ]);
    things.delete('a');
    things.set('a', thing('a', 'c1', 1));
    expect(noted(watched)).toEqual([
      ['b', false],
      ['a', true],
    ]);
    // Deleting what is not there writes nothing.
    expect(things.delete('zz')).toBe(false);
    expect(noted(watched)).toEqual([
      ['b', false],
      ['a', true],
    ]);
  });

  it('touch notes a record changed in place, and only one that is there', () => {
    const watched: Watched = { written: new Map() };
    const things = new Collection<Thing>(watched, 'things');
    things.touch('a');
    expect(watched.written!.size).toBe(0);
    things.set('a', thing('a', 'c1', 1));
    watched.written = new Map();
    things.touch('a');
    expect(noted(watched)).toEqual([['a', false]]);
  });

  it('notes the writes of a collection inside a record under the key of its item in the slice', () => {
    const watched: Watched = { written: new Map() };
    const answers = new Collection<string>(watched, 'things', undefined, (key) => `c1 ${key}`);
    answers.set('k1', 'x');
    answers.clear();
    expect(noted(watched)).toEqual([['c1 k1', true]]);
  });

  it("keeps each company's list in position order: a new record joins it, a replaced one keeps its place, a deleted one leaves", () => {
    const things = new Collection<Thing>({ written: undefined }, 'things', listing);
    things.set('a', thing('a', 'c1', 1));
    things.set('b', thing('b', 'c2', 2));
    things.set('c', thing('c', 'c1', 3));
    things.set('a', thing('a', 'c1', 1));
    expect(listed(things, 'c1')).toEqual([
      ['a', 1],
      ['c', 3],
    ]);
    expect(listed(things, 'c2')).toEqual([['b', 2]]);
    things.delete('a');
    expect(listed(things, 'c1')).toEqual([['c', 3]]);
    expect([...things.lists()].map(([companyId]) => companyId)).toEqual(['c1', 'c2']);
  });

  it("drops a company: its records (each noted as deleted) and its list, the other companies' kept", () => {
    const watched: Watched = { written: undefined };
    const things = new Collection<Thing>(watched, 'things', listing);
    things.set('a', thing('a', 'c1', 1));
    things.set('b', thing('b', 'c2', 2));
    things.set('c', thing('c', 'c1', 3));
    watched.written = new Map();
    things.dropCompany('c1');
    expect([...things.keys()]).toEqual(['b']);
    expect(noted(watched)).toEqual([
      ['a', true],
      ['c', true],
    ]);
    expect([...things.lists()].map(([companyId]) => companyId)).toEqual(['c2']);
    things.dropCompany('nobody');
    expect([...things.keys()]).toEqual(['b']);
  });
});
