import { describe, expect, it } from 'vitest';
import type { Result } from '../refusal.js';
import { DAY } from '../time.js';
import { ATTRIBUTES, NCM_TABLE, requiredAttributesFor } from './ncm-table.js';
import {
  initialSnapshot,
  publishSnapshot,
  rulesFingerprint,
  snapshotView,
  type Publication,
  type RegulatorySnapshot,
  type SnapshotChange,
} from './snapshot.js';

const T0 = Date.UTC(2026, 0, 1);
const T1 = T0 + 40 * DAY; // 2026-02-10

function value<T>(result: Result<T>): T {
  if (!result.ok) throw new Error(`refused: ${result.refusal.codigo} at ${result.refusal.caminho ?? '-'}`);
  return result.value;
}

const publish = (current: RegulatorySnapshot, change: SnapshotChange, id = 'snap-2'): Publication =>
  value(publishSnapshot(current, change, T1, id));

function refusalOf(result: Result<unknown>) {
  if (result.ok) throw new Error('expected a refusal');
  return { kind: result.refusal.kind, codigo: result.refusal.codigo, caminho: result.refusal.caminho };
}

const sorted = (values: Iterable<string>) => [...values].sort();

describe('the shipped NCM table', () => {
  const codes = NCM_TABLE.map((e) => e.codigo);
  const attributeCodes = new Set(ATTRIBUTES.map((a) => a.codigo));

  it('has between 250 and 350 codes, all 8 digits and unique', () => {
    expect(codes.length).toBeGreaterThanOrEqual(250);
    expect(codes.length).toBeLessThanOrEqual(350);
    for (const code of codes) expect(code).toMatch(/^\d{8}$/);
    expect(new Set(codes).size).toBe(codes.length);
  });

  it('spans at least 8 chapters, each a chapter of the nomenclature (01–97, no 77)', () => {
    const chapters = new Set(codes.map((c) => Number(c.slice(0, 2))));
    expect(chapters.size).toBeGreaterThanOrEqual(8);
    for (const chapter of chapters) {
      expect(chapter).toBeGreaterThanOrEqual(1);
      expect(chapter).toBeLessThanOrEqual(97);
      expect(chapter).not.toBe(77);
    }
  });

  it('gives every code a non-blank Portuguese description', () => {
    for (const e of NCM_TABLE) expect(e.descricao.trim(), e.codigo).not.toBe('');
  });

  it('marks 5 to 10 codes extinct, each with a real ISO date; valid codes have none', () => {
    const extinct = NCM_TABLE.filter((e) => e.extinta);
    expect(extinct.length).toBeGreaterThanOrEqual(5);
    expect(extinct.length).toBeLessThanOrEqual(10);
    for (const e of extinct) {
      expect(e.extintaDesde, e.codigo).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(new Date(`${e.extintaDesde}T00:00:00.000Z`).toISOString().slice(0, 10)).toBe(e.extintaDesde);
    }
    for (const e of NCM_TABLE.filter((x) => !x.extinta)) expect(e.extintaDesde, e.codigo).toBeNull();
  });

  it('ships the successors of the codes split in a revision', () => {
    const valid = new Set(NCM_TABLE.filter((e) => !e.extinta).map((e) => e.codigo));
    const successors: Record<string, string[]> = {
      '02071200': ['02071210', '02071220'],
      '02071400': ['02071411', '02071422'],
      '39239000': ['39239010', '39239090'],
      '94032000': ['94032010', '94032090'],
      '85171231': ['85171300', '85171431'],
    };
    for (const [extinct, next] of Object.entries(successors)) {
      expect(NCM_TABLE.find((e) => e.codigo === extinct)?.extinta, extinct).toBe(true);
      for (const code of next) expect(valid.has(code), code).toBe(true);
    }
  });

  it('requires 0 to 3 attributes per code, all defined in the dictionary, none twice', () => {
    for (const e of NCM_TABLE) {
      expect(e.obrigatorios.length, e.codigo).toBeLessThanOrEqual(3);
      expect(new Set(e.obrigatorios).size, e.codigo).toBe(e.obrigatorios.length);
      for (const code of e.obrigatorios) expect(attributeCodes.has(code), `${e.codigo} requires ${code}`).toBe(true);
    }
    expect(NCM_TABLE.some((e) => e.obrigatorios.length === 0)).toBe(true);
    expect(NCM_TABLE.some((e) => e.obrigatorios.length === 3)).toBe(true);
  });

  it('assigns required attributes by the documented rule: heading first, then chapter', () => {
    const req = (code: string) => NCM_TABLE.find((e) => e.codigo === code)?.obrigatorios;
    expect(req('84713012')).toEqual(['ATT_0005', 'ATT_0003', 'ATT_0004']); // 84.71: voltagem, marca, modelo
    expect(req('84212300')).toEqual(['ATT_0003', 'ATT_0004']); // chapter 84: marca, modelo
    expect(req('85171300')).toEqual(['ATT_0018', 'ATT_0003', 'ATT_0004']); // 85.17: ANATEL
    expect(req('22030000')).toEqual(['ATT_0010', 'ATT_0001', 'ATT_0002']); // alcoholic: teor alcoólico
    expect(req('22011000')).toEqual(['ATT_0001', 'ATT_0002']); // water: no teor alcoólico
    expect(req('61091000')).toEqual(['ATT_0008', 'ATT_0007', 'ATT_0009']); // apparel
    expect(req('30049099')).toEqual(['ATT_0011', 'ATT_0012', 'ATT_0003']); // medicines: ANVISA
    expect(req('33051000')).toEqual(['ATT_0011', 'ATT_0031', 'ATT_0002']); // cosmetics: ANVISA
    expect(req('97011000')).toEqual([]);
    for (const e of NCM_TABLE) expect(e.obrigatorios).toEqual(requiredAttributesFor(e.codigo));
  });

  it('defines 20 to 40 attributes with unique ATT_ codes, names, and non-empty domains without blanks or repeats', () => {
    expect(ATTRIBUTES.length).toBeGreaterThanOrEqual(20);
    expect(ATTRIBUTES.length).toBeLessThanOrEqual(40);
    expect(attributeCodes.size).toBe(ATTRIBUTES.length);
    for (const a of ATTRIBUTES) {
      expect(a.codigo).toMatch(/^ATT_\d+$/);
      expect(a.nome.trim()).not.toBe('');
      if (a.dominio !== undefined) {
        expect(a.dominio.length, a.codigo).toBeGreaterThan(0);
        expect(new Set(a.dominio).size, a.codigo).toBe(a.dominio.length);
        for (const v of a.dominio) expect(v.trim(), a.codigo).not.toBe('');
      }
    }
    expect(ATTRIBUTES.find((a) => a.codigo === 'ATT_0005')).toEqual({
      codigo: 'ATT_0005',
      nome: 'voltagem',
      dominio: ['110V', '220V', 'bivolt'],
    });
  });
});

describe('initialSnapshot', () => {
  it('holds the shipped table and dictionary under the given id and time', () => {
    const s = initialSnapshot(T0, 'snap-1');
    expect(s.id).toBe('snap-1');
    expect(s.publicadoEm).toBe(T0);
    expect(s.ncms.size).toBe(NCM_TABLE.length);
    expect(s.attributes.size).toBe(ATTRIBUTES.length);
    expect(s.ncms.get('84713012')).toEqual(NCM_TABLE.find((e) => e.codigo === '84713012'));
  });
});

describe('publishSnapshot', () => {
  const base = () => initialSnapshot(T0, 'snap-1');

  it('extinguishes codes from the publication date, keeping description and required attributes', () => {
    const before = base();
    const { snapshot, affected, atributosAlterados } = publish(before, { extinguir: ['84713012', '61091000'] });
    expect(snapshot.id).toBe('snap-2');
    expect(snapshot.publicadoEm).toBe(T1);
    expect(snapshot.ncms.get('84713012')).toEqual({
      ...before.ncms.get('84713012')!,
      extinta: true,
      extintaDesde: '2026-02-10',
    });
    expect(sorted(affected)).toEqual(['61091000', '84713012']);
    expect(atributosAlterados.size).toBe(0);
  });

  it('adds codes with their required attributes, and only they are affected', () => {
    const { snapshot, affected } = publish(base(), {
      adicionar: [
        { codigo: '84713099', descricao: '  Nova subposição de teste ', obrigatorios: ['ATT_0005', 'ATT_0003'] },
      ],
    });
    expect(snapshot.ncms.get('84713099')).toEqual({
      codigo: '84713099',
      descricao: 'Nova subposição de teste',
      extinta: false,
      extintaDesde: null,
      obrigatorios: ['ATT_0005', 'ATT_0003'],
    });
    expect(sorted(affected)).toEqual(['84713099']);
    expect(snapshot.ncms.size).toBe(NCM_TABLE.length + 1);
  });

  it('adds a code without required attributes when obrigatorios is omitted', () => {
    const { snapshot } = publish(base(), { adicionar: [{ codigo: '84713098', descricao: 'Outra' }] });
    expect(snapshot.ncms.get('84713098')?.obrigatorios).toEqual([]);
  });

  it('replaces required attributes; a code given the same list is not affected', () => {
    const before = base();
    const same = [...before.ncms.get('61091000')!.obrigatorios];
    const { snapshot, affected } = publish(before, {
      obrigatorios: { '84713012': ['ATT_0003'], '61091000': same, '22030000': ['ATT_0002', 'ATT_0001', 'ATT_0010'] },
    });
    expect(snapshot.ncms.get('84713012')?.obrigatorios).toEqual(['ATT_0003']);
    // 22030000 got its own attributes in another order: the rules did not change.
    expect(sorted(affected)).toEqual(['84713012']);
  });

  it('replacing the required attributes of an extinct code changes no rule (extinct codes are not checked for them)', () => {
    const { affected } = publish(base(), { obrigatorios: { '85171231': ['ATT_0003'] } });
    expect(affected.size).toBe(0);
  });

  it('adds an attribute definition usable in the same change', () => {
    const { snapshot, affected, atributosAlterados } = publish(base(), {
      atributos: [{ codigo: 'ATT_0901', nome: 'selo Procel', dominio: ['sim', 'não'] }],
      obrigatorios: { '84182100': ['ATT_0005', 'ATT_0901'] },
    });
    expect(snapshot.attributes.get('ATT_0901')).toEqual({
      codigo: 'ATT_0901',
      nome: 'selo Procel',
      dominio: ['sim', 'não'],
    });
    expect(sorted(atributosAlterados)).toEqual(['ATT_0901']);
    expect(sorted(affected)).toEqual(['84182100']);
  });

  it('replacing a definition affects exactly the valid codes that require it', () => {
    const before = base();
    const { affected, atributosAlterados } = publish(before, {
      atributos: [{ codigo: 'ATT_0005', nome: 'voltagem', dominio: ['127V', '220V', 'bivolt'] }],
    });
    const requiring = NCM_TABLE.filter((e) => !e.extinta && e.obrigatorios.includes('ATT_0005')).map((e) => e.codigo);
    expect(requiring.length).toBeGreaterThan(10);
    expect(sorted(affected)).toEqual(sorted(requiring));
    expect(sorted(atributosAlterados)).toEqual(['ATT_0005']);
  });

  it('renaming a free-text attribute affects the codes requiring it (the name is in the finding)', () => {
    const { affected } = publish(base(), { atributos: [{ codigo: 'ATT_0010', nome: 'graduação alcoólica' }] });
    expect(sorted(affected)).toEqual(
      NCM_TABLE.filter((e) => !e.extinta && e.obrigatorios.includes('ATT_0010'))
        .map((e) => e.codigo)
        .sort(),
    );
  });

  it('an identical definition changes nothing', () => {
    const { affected, atributosAlterados } = publish(base(), {
      atributos: [{ codigo: 'ATT_0005', nome: 'voltagem', dominio: ['110V', '220V', 'bivolt'] }],
    });
    expect(affected.size).toBe(0);
    expect(atributosAlterados.size).toBe(0);
  });

  it('an empty change publishes a new snapshot with the same rules', () => {
    const before = base();
    const { snapshot, affected } = publish(before, {}, 'snap-9');
    expect(snapshot.id).toBe('snap-9');
    expect(affected.size).toBe(0);
    expect(snapshotView(snapshot)).toEqual({
      ...snapshotView(before),
      id: 'snap-9',
      publicadoEm: '2026-02-10T00:00:00.000Z',
    });
  });

  it('leaves the previous snapshot exactly as it was, whatever the change', () => {
    const before = base();
    const view = snapshotView(before);
    const entry = before.ncms.get('84713012');
    publish(before, {
      extinguir: ['84713012'],
      adicionar: [{ codigo: '84713099', descricao: 'Nova', obrigatorios: ['ATT_0901'] }],
      obrigatorios: { '61091000': ['ATT_0003'] },
      atributos: [
        { codigo: 'ATT_0005', nome: 'tensão', dominio: ['127V'] },
        { codigo: 'ATT_0901', nome: 'novo' },
      ],
    });
    expect(snapshotView(before)).toEqual(view);
    expect(before.ncms.get('84713012')).toBe(entry);
    expect(before.ncms.has('84713099')).toBe(false);
    expect(before.attributes.has('ATT_0901')).toBe(false);
    expect(before.attributes.get('ATT_0005')?.dominio).toEqual(['110V', '220V', 'bivolt']);
  });

  it('chains: a later publication builds on the previous one', () => {
    const second = publish(base(), { extinguir: ['84713012'] }).snapshot;
    const third = value(
      publishSnapshot(second, { adicionar: [{ codigo: '84713099', descricao: 'Sucessora' }] }, T1 + DAY, 'snap-3'),
    );
    expect(third.snapshot.ncms.get('84713012')?.extinta).toBe(true);
    expect(third.snapshot.ncms.get('84713099')?.extinta).toBe(false);
    expect(sorted(third.affected)).toEqual(['84713099']);
  });

  describe('refuses a change whole, naming where the problem is', () => {
    const cases: [string, SnapshotChange, { kind: string; codigo: string; caminho: string }][] = [
      [
        'an unknown code to extinguish',
        { extinguir: ['84713012', '12345678'] },
        { kind: 'invalid', codigo: 'ncm_desconhecida', caminho: 'body.extinguir[1]' },
      ],
      [
        'a code extinguished twice',
        { extinguir: ['84713012', '84713012'] },
        { kind: 'invalid', codigo: 'valor_duplicado', caminho: 'body.extinguir[1]' },
      ],
      [
        'an already extinct code',
        { extinguir: ['85171231'] },
        { kind: 'conflict', codigo: 'ncm_ja_extinta', caminho: 'body.extinguir[0]' },
      ],
      [
        'adding an existing code',
        { adicionar: [{ codigo: '84713012', descricao: 'x' }] },
        { kind: 'conflict', codigo: 'ncm_existente', caminho: 'body.adicionar[0].codigo' },
      ],
      [
        'adding an existing extinct code',
        { adicionar: [{ codigo: '85171231', descricao: 'x' }] },
        { kind: 'conflict', codigo: 'ncm_existente', caminho: 'body.adicionar[0].codigo' },
      ],
      [
        'adding a code that is not 8 digits',
        { adicionar: [{ codigo: '8471.30.99', descricao: 'x' }] },
        { kind: 'invalid', codigo: 'valor_invalido', caminho: 'body.adicionar[0].codigo' },
      ],
      [
        'adding a code twice',
        {
          adicionar: [
            { codigo: '84713099', descricao: 'x' },
            { codigo: '84713099', descricao: 'y' },
          ],
        },
        { kind: 'invalid', codigo: 'valor_duplicado', caminho: 'body.adicionar[1].codigo' },
      ],
      [
        'adding a code without description',
        { adicionar: [{ codigo: '84713099', descricao: '  ' }] },
        { kind: 'invalid', codigo: 'valor_invalido', caminho: 'body.adicionar[0].descricao' },
      ],
      [
        'adding a code requiring an unknown attribute',
        { adicionar: [{ codigo: '84713099', descricao: 'x', obrigatorios: ['ATT_0003', 'ATT_9999'] }] },
        { kind: 'invalid', codigo: 'atributo_desconhecido', caminho: 'body.adicionar[0].obrigatorios[1]' },
      ],
      [
        'requiring an unknown attribute',
        { obrigatorios: { '84713012': ['ATT_9999'] } },
        { kind: 'invalid', codigo: 'atributo_desconhecido', caminho: 'body.obrigatorios.84713012[0]' },
      ],
      [
        'requiring an attribute twice',
        { obrigatorios: { '84713012': ['ATT_0003', 'ATT_0003'] } },
        { kind: 'invalid', codigo: 'valor_duplicado', caminho: 'body.obrigatorios.84713012[1]' },
      ],
      [
        'requirements for an unknown code',
        { obrigatorios: { '12345678': ['ATT_0003'] } },
        { kind: 'invalid', codigo: 'ncm_desconhecida', caminho: 'body.obrigatorios.12345678' },
      ],
      [
        'an attribute code not in the ATT_ style',
        { atributos: [{ codigo: 'ATTR-1', nome: 'x' }] },
        { kind: 'invalid', codigo: 'valor_invalido', caminho: 'body.atributos[0].codigo' },
      ],
      [
        'an attribute defined twice',
        {
          atributos: [
            { codigo: 'ATT_0901', nome: 'x' },
            { codigo: 'ATT_0901', nome: 'y' },
          ],
        },
        { kind: 'invalid', codigo: 'valor_duplicado', caminho: 'body.atributos[1].codigo' },
      ],
      [
        'an attribute without name',
        { atributos: [{ codigo: 'ATT_0901', nome: ' ' }] },
        { kind: 'invalid', codigo: 'valor_invalido', caminho: 'body.atributos[0].nome' },
      ],
      [
        'an empty domain',
        { atributos: [{ codigo: 'ATT_0901', nome: 'x', dominio: [] }] },
        { kind: 'invalid', codigo: 'valor_invalido', caminho: 'body.atributos[0].dominio' },
      ],
      [
        'a blank domain value',
        { atributos: [{ codigo: 'ATT_0901', nome: 'x', dominio: ['a', ''] }] },
        { kind: 'invalid', codigo: 'valor_invalido', caminho: 'body.atributos[0].dominio[1]' },
      ],
      [
        'a repeated domain value',
        { atributos: [{ codigo: 'ATT_0901', nome: 'x', dominio: ['a', 'b', 'a'] }] },
        { kind: 'invalid', codigo: 'valor_duplicado', caminho: 'body.atributos[0].dominio[2]' },
      ],
      [
        'several problems: atributos are checked first',
        { extinguir: ['12345678'], atributos: [{ codigo: 'bad', nome: 'x' }] },
        { kind: 'invalid', codigo: 'valor_invalido', caminho: 'body.atributos[0].codigo' },
      ],
      [
        'several problems: extinguir before adicionar',
        { adicionar: [{ codigo: '84713012', descricao: 'x' }], extinguir: ['12345678'] },
        { kind: 'invalid', codigo: 'ncm_desconhecida', caminho: 'body.extinguir[0]' },
      ],
    ];
    it.each(cases)('%s', (_, change, expected) => {
      const before = base();
      const view = snapshotView(before);
      expect(refusalOf(publishSnapshot(before, change, T1, 'snap-2'))).toEqual(expected);
      expect(snapshotView(before)).toEqual(view);
    });
  });
});

describe('snapshotView', () => {
  it('is JSON-safe, sorted by code, with ISO time and null for free-text domains', () => {
    const view = snapshotView(initialSnapshot(T0, 'snap-1'));
    expect(JSON.parse(JSON.stringify(view))).toEqual(view);
    expect(view.id).toBe('snap-1');
    expect(view.publicadoEm).toBe('2026-01-01T00:00:00.000Z');
    expect(view.ncms.map((n) => n.codigo)).toEqual(NCM_TABLE.map((e) => e.codigo).sort());
    expect(view.ncms.find((n) => n.codigo === '85171231')).toEqual({
      codigo: '85171231',
      descricao: 'Telefones celulares portáteis',
      extinta: true,
      extintaDesde: '2022-04-01',
      obrigatorios: ['ATT_0018', 'ATT_0003', 'ATT_0004'],
    });
    expect(view.atributos.find((a) => a.codigo === 'ATT_0003')).toEqual({
      codigo: 'ATT_0003',
      nome: 'marca',
      dominio: null,
    });
    expect(view.atributos.map((a) => a.codigo)).toEqual(ATTRIBUTES.map((a) => a.codigo).sort());
  });

  it('hands out copies: changing the view does not change the snapshot', () => {
    const s = initialSnapshot(T0, 'snap-1');
    const view = snapshotView(s);
    view.ncms.find((n) => n.codigo === '84713012')!.obrigatorios.push('ATT_0001');
    view.atributos.find((a) => a.codigo === 'ATT_0005')!.dominio!.push('127V');
    expect(s.ncms.get('84713012')?.obrigatorios).toEqual(['ATT_0005', 'ATT_0003', 'ATT_0004']);
    expect(s.attributes.get('ATT_0005')?.dominio).toEqual(['110V', '220V', 'bivolt']);
  });
});

describe('rulesFingerprint', () => {
  const s = initialSnapshot(T0, 'snap-1');

  it('is stable and does not depend on the snapshot id or time', () => {
    const again = initialSnapshot(T1, 'other');
    for (const code of ['84713012', '85171231', '12345678', '97011000'])
      expect(rulesFingerprint(s, code)).toBe(rulesFingerprint(again, code));
  });

  it('tells a missing, an extinct and a valid code apart', () => {
    const prints = new Set([
      rulesFingerprint(s, '12345678'),
      rulesFingerprint(s, '85171231'),
      rulesFingerprint(s, '85171300'),
    ]);
    expect(prints.size).toBe(3);
  });

  it('does not depend on the order of required attributes', () => {
    const a = publish(s, { obrigatorios: { '84713012': ['ATT_0003', 'ATT_0004', 'ATT_0005'] } }).snapshot;
    expect(rulesFingerprint(a, '84713012')).toBe(rulesFingerprint(s, '84713012'));
  });

  it('with the product’s attribute codes, also covers their definitions', () => {
    const renamedDomain = publish(s, {
      atributos: [{ codigo: 'ATT_0007', nome: 'tamanho', dominio: ['P', 'M', 'G'] }],
    }).snapshot;
    // A notebook does not require ATT_0007, so its NCM rules are the same…
    expect(rulesFingerprint(renamedDomain, '84713012')).toBe(rulesFingerprint(s, '84713012'));
    // …but a notebook carrying ATT_0007 is judged by its domain.
    expect(rulesFingerprint(renamedDomain, '84713012', ['ATT_0007'])).not.toBe(
      rulesFingerprint(s, '84713012', ['ATT_0007']),
    );
    // A free-text attribute's name is never in a finding about a product carrying it.
    const renamedFree = publish(s, { atributos: [{ codigo: 'ATT_0021', nome: 'cor predominante' }] }).snapshot;
    expect(rulesFingerprint(renamedFree, '84713012', ['ATT_0021'])).toBe(rulesFingerprint(s, '84713012', ['ATT_0021']));
    // An unknown code that becomes defined changes the rules for products carrying it.
    const defined = publish(s, { atributos: [{ codigo: 'ATT_0901', nome: 'novo' }] }).snapshot;
    expect(rulesFingerprint(defined, '84713012', ['ATT_0901'])).not.toBe(rulesFingerprint(s, '84713012', ['ATT_0901']));
  });
});
