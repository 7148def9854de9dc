/**
 * One company's data on its own: removing it leaves exactly the other companies' records and derived tables;
 * exporting it and importing it back (beside the others, or in place of its later records) gives the state it was
 * exported from; an import that would break the state is refused with the path of the record, changing nothing.
 */
import { describe, expect, it } from 'vitest';
import {
  companyProblem,
  exportCompany,
  importCompany,
  removeCompany,
  replaceCompany,
  resetCompany,
  type CompanyData,
} from './company-data.js';
import { updateCompany } from './companies.js';
import { createProduct } from './products.js';
import { SLICES } from './slices.js';
import { checkIntegrity, exportState, importState, type StateData } from './snapshot.js';
import { derived, richState } from './testing/rich.js';
import { seededWorld, T0, unwrap } from './testing/support.js';

/** Company-owned record lists of `data` without `companyId`'s records, found without the slices' own ownerOf. */
function without(data: StateData, companyId: string): StateData {
  const catalogOwner = new Map(data.catalogs.map((c) => [c.id, c.companyId]));
  const ownerOf = (key: string, record: any): string =>
    key === 'companies'
      ? record.id
      : key === 'origins'
        ? record.company.id
        : key === 'links'
          ? catalogOwner.get(record[0])!
          : Array.isArray(record)
            ? record[0]
            : record.companyId;
  const filtered = Object.fromEntries(
    Object.entries(data).map(([key, value]) => [
      key,
      key === 'regulatory' || !Array.isArray(value)
        ? value
        : value.filter((record) => ownerOf(key, record) !== companyId),
    ]),
  );
  return filtered as unknown as StateData;
}

/** Each list of `data` in a fixed order, so two states are compared whatever order their maps were filled in. */
const unordered = (data: object) =>
  Object.fromEntries(
    Object.entries(data).map(([key, value]) => [
      key,
      Array.isArray(value) ? value.map((v) => JSON.stringify(v)).sort() : value,
    ]),
  );

/** What a state derives from its records, each per-company table in a fixed order (the retention queue as it is: its order matters). */
function derivedUnordered(state: Parameters<typeof derived>[0]) {
  const d = derived(state);
  const sorted = <T>(list: readonly T[]) => [...list].sort((x, y) => (JSON.stringify(x) < JSON.stringify(y) ? -1 : 1));
  return {
    ...d,
    indexes: sorted(d.indexes),
    surveillance: sorted(d.surveillance),
    openAnalyses: sorted(d.openAnalyses),
    openIngestions: sorted(d.openIngestions),
    pendingCnpjCorrections: sorted(d.pendingCnpjCorrections),
  };
}

describe('removeCompany', () => {
  it("every slice but the global ones (sequence, regulatory) says whose each record is and how a company's records leave", () => {
    for (const slice of SLICES) {
      const global = slice.key === 'sequence' || slice.key === 'regulatory';
      expect('ownerOf' in slice && 'removeCompany' in slice, slice.key).toBe(!global);
    }
  });

  it("leaves exactly the export of the other companies' records, and the derived tables a fresh import of it rebuilds", () => {
    const { state, ids } = richState(3, 3);
    const [a, b, c] = ids as [string, string, string];
    const before = structuredClone(exportState(state));
    for (const key of [
      'products',
      'webhookEvents',
      'analyses',
      'executions',
      'ingestions',
      'cnpjCorrections',
      'idempotency',
      'links',
    ] as const) {
      for (const id of [a, b, c])
        expect(exportCompany(state, id)[key].length, `${key} of a company`).toBeGreaterThan(0);
    }
    expect(state.closedWebhookEvents.some(([, id]) => state.webhookEvents.get(id)?.companyId === b)).toBe(true);

    removeCompany(state, b);
    const after = exportState(state);
    expect(after).toEqual(without(before, b));
    expect(checkIntegrity(after)).toBeUndefined();
    expect(derived(state)).toEqual(derived(importState(structuredClone(after))));
    expect(JSON.stringify(derived(state))).not.toContain(b);
    expect([...state.credentials.values()].map((credential) => credential.companyId)).not.toContain(b);
    expect(exportState(state).sequence).toBe(before.sequence);
  });

  it('of a company that does not exist changes nothing', () => {
    const { state } = richState(2, 1);
    const before = exportState(state);
    removeCompany(state, '0190a000-0000-7000-8000-000000000000');
    expect(exportState(state)).toEqual(before);
  });
});

describe('exportCompany and importCompany', () => {
  it("export holds only the company's records and the state's sequence; importing it back beside the others gives the original state", () => {
    const { state, ids } = richState(3, 3);
    const b = ids[1]!;
    const original = structuredClone(exportState(state));
    const data = structuredClone(exportCompany(state, b));
    expect(data.sequence).toBe(original.sequence);
    expect('regulatory' in data).toBe(false);
    expect(data.companies.map((company) => company.id)).toEqual([b]);
    const { regulatory, ...onlyB } = without(without(original, ids[0]!), ids[2]!);
    expect(regulatory).toEqual(original.regulatory);
    expect(unordered(data)).toEqual(unordered(onlyB));

    removeCompany(state, b);
    expect(importCompany(state, data)).toBeUndefined();
    expect(unordered(exportState(state))).toEqual(unordered(original));
    expect(checkIntegrity(exportState(state))).toBeUndefined();
    expect(derivedUnordered(state)).toEqual(derivedUnordered(importState(structuredClone(original))));
  });

  it('imports into another state lacking the company, and positions handed out after it come after its records', () => {
    const { state, ids } = richState(2, 1);
    const data = structuredClone(exportCompany(state, ids[0]!));
    const { state: other, ctx } = seededWorld(7);
    expect(importCompany(other, data)).toBeUndefined();
    expect(checkIntegrity(exportState(other))).toBeUndefined();
    expect(other.sequence).toBe(data.sequence);
    const catalogId = data.catalogs[0]!.id;
    const product = unwrap(createProduct(other, ids[0]!, catalogId, { origem: 'erp', ncm: '84713012' }, ctx(T0)));
    expect(product.position).toBe(data.sequence + 1);
  });

  it('refuses, naming the path within the data and changing nothing: a company already there, not one company, a record of another company or naming one outside, a CNPJ root, token or position another company has', () => {
    const { state, ids } = richState(3, 2);
    const [a, b] = ids as [string, string];
    const data = structuredClone(exportCompany(state, b));
    const before = JSON.stringify(exportState(state));
    const changed = (change: (d: any) => void): CompanyData => {
      const copy = structuredClone(data);
      change(copy);
      return copy;
    };
    expect(importCompany(state, data)).toEqual({
      path: ['companies', 0, 'id'],
      problem: `company ${b} is already in the emulator`,
    });
    removeCompany(state, b);
    const removed = JSON.stringify(exportState(state));
    expect(
      importCompany(
        state,
        changed((d) => {
          d.companies = [];
        }),
      ),
    ).toEqual({ path: ['companies'], problem: "one company's data holds exactly one company; this holds 0" });
    expect(
      importCompany(
        state,
        changed((d) => {
          d.products[1].companyId = a;
        }),
      ),
    ).toEqual({ path: ['products', 1], problem: `belongs to company ${a}, not to ${b}, whose data this is` });
    const otherCatalog = exportCompany(state, a).catalogs[0]!.id;
    expect(
      importCompany(
        state,
        changed((d) => {
          d.links[0][0] = otherCatalog;
        }),
      ),
    ).toEqual({ path: ['links', 0], problem: `names a record that is not one of company ${b}'s` });
    const rootOfA = state.companies.get(a)!.cnpjRoot;
    expect(
      importCompany(
        state,
        changed((d) => {
          d.companies[0].cnpjRoot = rootOfA;
        }),
      ),
    ).toEqual({ path: ['companies', 0, 'cnpjRoot'], problem: `CNPJ root ${rootOfA} appears twice` });
    const tokenOfA = [...state.credentials.values()].find((credential) => credential.companyId === a)!.token;
    expect(
      importCompany(
        state,
        changed((d) => {
          d.credentials[0].token = tokenOfA;
        }),
      ),
    ).toEqual({ path: ['credentials', 0, 'token'], problem: 'a credential token appears twice' });
    const positionOfA = state.products.get(exportCompany(state, a).products[0]!.id)!.position;
    const collision = importCompany(
      state,
      changed((d) => {
        d.analyses[0].position = positionOfA;
      }),
    );
    expect(collision?.path).toEqual(['analyses', 0, 'position']);
    expect(collision?.problem).toMatch(new RegExp(`^position ${positionOfA} is also that of products\\.`));
    expect(JSON.stringify(exportState(state))).toBe(removed);
    expect(importCompany(state, data)).toBeUndefined();
    expect(unordered(JSON.parse(JSON.stringify(exportState(state))))).toEqual(unordered(JSON.parse(before)));
  });
});

describe('replaceCompany', () => {
  it("puts a company's saved records in place of its later ones, leaving the others; refuses data of another company", () => {
    const { state, ids } = richState(3, 3);
    const [a, b] = ids as [string, string];
    const saved = structuredClone(exportCompany(state, b));
    const original = structuredClone(exportState(state));
    const { ctx } = seededWorld(3);
    unwrap(createProduct(state, b, saved.catalogs[0]!.id, { origem: 'erp', ncm: '84713012' }, ctx(T0)));
    removeCompany(state, ids[2]!);
    const othersNow = JSON.stringify(without(exportState(state), b));

    expect(replaceCompany(state, b, structuredClone(exportCompany(state, a)))).toEqual({
      path: ['companies', 0, 'id'],
      problem: `the data is of company ${a}, not of ${b}`,
    });
    expect(companyProblem(state, saved, b)).toBeUndefined();
    expect(replaceCompany(state, b, saved)).toBeUndefined();
    expect(JSON.stringify(without(exportState(state), b))).toBe(othersNow);
    expect(unordered(exportCompany(state, b))).toEqual(unordered({ ...saved, sequence: state.sequence }));
    expect(unordered(exportCompany(state, b))).toEqual(
      unordered({ ...exportCompany(importState(original), b), sequence: state.sequence }),
    );
    expect(checkIntegrity(exportState(state))).toBeUndefined();
  });
});

describe('companyProblem beside other worlds', () => {
  it("refuses an id or token a company of another world has, as it does one of its own world's; positions are each world's", () => {
    const { state: whole, ids } = richState(3, 3);
    const [a, b] = ids as [string, string];
    // Company a in a world of its own, b and the third in another.
    const own = importState(structuredClone(exportState(whole)));
    for (const id of ids.slice(1)) removeCompany(own, id);
    const shared = importState(structuredClone(exportState(whole)));
    removeCompany(shared, a);
    const ofA = exportCompany(own, a);
    const saved = exportCompany(shared, b);
    expect(companyProblem(shared, saved, b, [own])).toBeUndefined();
    // b's data with one of its ids (or its token) renamed to a's wherever it names it: whole, but one record is a's.
    const renamed = (from: string, to: string) => JSON.parse(JSON.stringify(saved).replaceAll(from, to)) as CompanyData;
    const pairs = [
      [saved.catalogs[0]!.id, ofA.catalogs[0]!.id, 'catalogs', `catalog ${ofA.catalogs[0]!.id}`],
      [saved.products[0]!.id, ofA.products[0]!.id, 'products', `product ${ofA.products[0]!.id}`],
      [
        saved.establishments[0]!.id,
        ofA.establishments[0]!.id,
        'establishments',
        `establishment ${ofA.establishments[0]!.id}`,
      ],
      [
        saved.webhookEvents[0]!.id,
        ofA.webhookEvents[0]!.id,
        'webhookEvents',
        `webhook event ${ofA.webhookEvents[0]!.id}`,
      ],
      [saved.analyses[0]!.id, ofA.analyses[0]!.id, 'analyses', `analysis ${ofA.analyses[0]!.id}`],
      [saved.credentials[0]!.token, ofA.credentials[0]!.token, 'credentials', 'a credential token'],
    ] as const;
    for (const [from, to, list, what] of pairs) {
      const data = renamed(from, to);
      const inOneWorld = companyProblem(whole, data, b);
      expect(inOneWorld?.path.slice(0, 1), list).toEqual([list]);
      expect(inOneWorld?.problem, list).toBe(`${what} appears twice`);
      expect(companyProblem(shared, data, b, [own]), list).toEqual(inOneWorld);
    }
    // A position is the world's own: one of a's, refused in one world, is no clash across two.
    const position = structuredClone(saved);
    (position.products[0] as { position: number }).position = ofA.products[0]!.position;
    expect(companyProblem(whole, position, b)?.path).toEqual(['products', 0, 'position']);
    expect(companyProblem(shared, position, b, [own])).toBeUndefined();
  });
});

describe('resetCompany', () => {
  it('puts the company back as it was created (its record, head office and first credential, nothing else), leaving the others', () => {
    const fresh = seededWorld();
    const created = [fresh.company(), fresh.company()];
    const asCreated = structuredClone(exportCompany(fresh.state, created[1]!));
    const { state, ids } = richState(3, 3);
    expect(ids.slice(0, 2)).toEqual(created);
    const b = ids[1]!;
    unwrap(updateCompany(state, b, { name: 'Renamed', analysisAllowance: 1 }, seededWorld(9).ctx(T0)));
    const others = JSON.stringify(without(exportState(state), b));

    expect(resetCompany(state, b)).toEqual({ ok: true, value: state.origins.get(b) });
    expect(JSON.stringify(without(exportState(state), b))).toBe(others);
    expect(exportCompany(state, b)).toEqual({ ...asCreated, sequence: state.sequence });
    expect(derivedUnordered(state)).toEqual(derivedUnordered(importState(structuredClone(exportState(state)))));
    expect(checkIntegrity(exportState(state))).toBeUndefined();
  });

  it('refuses a company that is not there (404) and one without its creation record (409), changing nothing', () => {
    const { state, ids } = richState(2, 1);
    expect(resetCompany(state, '0190a000-0000-7000-8000-000000000000')).toMatchObject({
      ok: false,
      refusal: { kind: 'not_found', codigo: 'empresa_nao_encontrada', caminho: 'path.companyId' },
    });
    state.origins.delete(ids[0]!);
    const before = JSON.stringify(exportState(state));
    expect(resetCompany(state, ids[0]!)).toMatchObject({
      ok: false,
      refusal: { kind: 'conflict', codigo: 'criacao_desconhecida', caminho: 'path.companyId' },
    });
    expect(JSON.stringify(exportState(state))).toBe(before);
  });
});
