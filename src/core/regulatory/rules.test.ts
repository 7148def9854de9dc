import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Result } from '../refusal.js';
import { DAY } from '../time.js';
import { evaluateProduct, FINDING_TYPES, type Finding, type ProductToEvaluate } from './rules.js';
import {
  initialSnapshot,
  publishSnapshot,
  rulesFingerprint,
  type AttributeDefinition,
  type RegulatorySnapshot,
  type SnapshotChange,
} from './snapshot.js';

const T0 = Date.UTC(2026, 0, 1);
const NOW = T0 + 3 * DAY;
const S = initialSnapshot(T0, 'snap-1');

function value<T>(result: Result<T>): T {
  if (!result.ok) throw new Error(`refused: ${result.refusal.codigo} at ${result.refusal.caminho ?? '-'}`);
  return result.value;
}

type Attrs = Record<string, string[]>;
const product = (
  ncm: string,
  atributos: Attrs = {},
  descricao: string | null | undefined = 'Produto de teste',
): ProductToEvaluate => ({
  id: 'prod-1',
  ncm,
  descricao,
  atributos: Object.entries(atributos).map(([codigo, valores]) => ({ codigo, valores })),
});
const NOTEBOOK_OK: Attrs = { ATT_0005: ['bivolt'], ATT_0003: ['Marca X'], ATT_0004: ['Modelo 14'] };

const evaluate = (p: ProductToEvaluate, s: RegulatorySnapshot = S) => evaluateProduct(p, s, NOW);
const kinds = (findings: readonly Finding[]) => findings.map((f) => f.tipo);
const brief = (findings: readonly Finding[]) => findings.map((f) => [f.tipo, f.detalhe]);

describe('evaluateProduct', () => {
  it('finds nothing on a product that meets every rule', () => {
    expect(evaluate(product('84713012', NOTEBOOK_OK))).toEqual([]);
    expect(evaluate(product('84212300', { ATT_0003: ['M'], ATT_0004: ['F-1'] }))).toEqual([]);
  });

  it('fills the finding fields from the product, the snapshot and the evaluation instant', () => {
    const [finding] = evaluate(product('84713012', { ...NOTEBOOK_OK, ATT_0005: [] }));
    expect(finding).toEqual({
      produto_id: 'prod-1',
      ncm: '84713012',
      tipo: 'atributo_obrigatorio_ausente',
      detalhe: 'Atributo obrigatório ATT_0005 (voltagem) ausente para a NCM 84713012',
      avaliado_em: NOW,
      snapshot_id: 'snap-1',
    });
  });

  describe('ncm_inexistente', () => {
    it('is found for a code not in the table, and then no attribute is required', () => {
      expect(brief(evaluate(product('12345678')))).toEqual([
        ['ncm_inexistente', 'A NCM 12345678 não existe na tabela NCM de referência'],
      ]);
    });
    it('is not found for a code in the table', () => {
      expect(kinds(evaluate(product('84713012', NOTEBOOK_OK)))).not.toContain('ncm_inexistente');
    });
    it('still judges the product’s attributes against the dictionary', () => {
      expect(kinds(evaluate(product('12345678', { ATT_0005: ['127V'], ATT_9999: ['x'] })))).toEqual([
        'ncm_inexistente',
        'atributo_valor_invalido',
        'atributo_desconhecido',
      ]);
    });
  });

  describe('ncm_extinta', () => {
    it('is found for an extinct code, with its date, and its required attributes are not checked', () => {
      expect(brief(evaluate(product('85171231')))).toEqual([
        ['ncm_extinta', 'A NCM 85171231 foi extinta em 2022-04-01; reclassifique o produto'],
      ]);
    });
    it('is not found for a valid code', () => {
      expect(
        kinds(evaluate(product('85171300', { ATT_0018: ['12345-67-8901'], ATT_0003: ['M'], ATT_0004: ['X'] }))),
      ).toEqual([]);
    });
    it('follows an extinction published later', () => {
      const later = value(publishSnapshot(S, { extinguir: ['84713012'] }, NOW, 'snap-2')).snapshot;
      expect(brief(evaluate(product('84713012', NOTEBOOK_OK), later))).toEqual([
        ['ncm_extinta', 'A NCM 84713012 foi extinta em 2026-01-04; reclassifique o produto'],
      ]);
    });
  });

  describe('atributo_obrigatorio_ausente', () => {
    it('is found once per missing required attribute, in attribute code order', () => {
      expect(brief(evaluate(product('84713012')))).toEqual([
        ['atributo_obrigatorio_ausente', 'Atributo obrigatório ATT_0003 (marca) ausente para a NCM 84713012'],
        ['atributo_obrigatorio_ausente', 'Atributo obrigatório ATT_0004 (modelo) ausente para a NCM 84713012'],
        ['atributo_obrigatorio_ausente', 'Atributo obrigatório ATT_0005 (voltagem) ausente para a NCM 84713012'],
      ]);
    });
    it('counts an attribute listed without values as missing', () => {
      expect(kinds(evaluate(product('84713012', { ...NOTEBOOK_OK, ATT_0003: [] })))).toEqual([
        'atributo_obrigatorio_ausente',
      ]);
    });
    it('is not found when every required attribute is there, and not for codes requiring none', () => {
      expect(evaluate(product('84713012', NOTEBOOK_OK))).toEqual([]);
      const later = value(
        publishSnapshot(S, { adicionar: [{ codigo: '11110001', descricao: 'Sem requisitos' }] }, NOW, 'snap-2'),
      ).snapshot;
      expect(evaluate(product('11110001'), later)).toEqual([]);
    });
    it('follows required attributes published later', () => {
      const later = value(
        publishSnapshot(S, { obrigatorios: { '84713012': ['ATT_0003', 'ATT_0021'] } }, NOW, 'snap-2'),
      ).snapshot;
      expect(brief(evaluate(product('84713012', NOTEBOOK_OK), later))).toEqual([
        ['atributo_obrigatorio_ausente', 'Atributo obrigatório ATT_0021 (cor) ausente para a NCM 84713012'],
      ]);
    });
  });

  describe('atributo_valor_invalido', () => {
    it('is found once per attribute with values outside its domain, listing them', () => {
      expect(
        brief(evaluate(product('84713012', { ...NOTEBOOK_OK, ATT_0005: ['127V', 'bivolt', '12V', '127V'] }))),
      ).toEqual([
        [
          'atributo_valor_invalido',
          'Valores "127V", "12V" fora do domínio do atributo ATT_0005 (voltagem); permitidos: 110V, 220V, bivolt',
        ],
      ]);
    });
    it('judges attributes the NCM does not require too', () => {
      expect(brief(evaluate(product('84713012', { ...NOTEBOOK_OK, ATT_0007: ['XXG'] })))).toEqual([
        [
          'atributo_valor_invalido',
          'Valor "XXG" fora do domínio do atributo ATT_0007 (tamanho); permitidos: PP, P, M, G, GG, XG, único',
        ],
      ]);
    });
    it('compares values exactly', () => {
      expect(kinds(evaluate(product('84713012', { ...NOTEBOOK_OK, ATT_0005: ['Bivolt'] })))).toEqual([
        'atributo_valor_invalido',
      ]);
    });
    it('is not found for values in the domain, nor for free-text attributes', () => {
      expect(
        evaluate(product('84713012', { ...NOTEBOOK_OK, ATT_0005: ['110V', '220V'], ATT_0021: ['qualquer cor'] })),
      ).toEqual([]);
    });
  });

  describe('atributo_desconhecido', () => {
    it('is found once per code missing from the dictionary, in code order', () => {
      expect(brief(evaluate(product('84713012', { ...NOTEBOOK_OK, ATT_9999: ['x'], ATT_0999: ['y'] })))).toEqual([
        ['atributo_desconhecido', 'Atributo ATT_0999 não consta do dicionário de atributos'],
        ['atributo_desconhecido', 'Atributo ATT_9999 não consta do dicionário de atributos'],
      ]);
    });
    it('is not found for dictionary codes, and stops once the code is defined', () => {
      expect(evaluate(product('84713012', NOTEBOOK_OK))).toEqual([]);
      const later = value(
        publishSnapshot(S, { atributos: [{ codigo: 'ATT_9999', nome: 'novo' }] }, NOW, 'snap-2'),
      ).snapshot;
      expect(evaluate(product('84713012', { ...NOTEBOOK_OK, ATT_9999: ['x'] }), later)).toEqual([]);
    });
  });

  describe('a code listed in several entries (the spec does not forbid it)', () => {
    const entries = (ncm: string, list: [string, string[]][]): ProductToEvaluate => ({
      id: 'prod-1',
      ncm,
      descricao: 'Produto de teste',
      atributos: list.map(([codigo, valores]) => ({ codigo, valores })),
    });

    it('is one attribute holding every value of its entries: one atributo_valor_invalido listing the bad ones in list order', () => {
      const p = entries('84713012', [
        ['ATT_0003', ['Marca X']],
        ['ATT_0005', ['12V']],
        ['ATT_0004', ['Modelo 14']],
        ['ATT_0005', ['bivolt', '', '12V', '127V']],
      ]);
      expect(brief(evaluate(p))).toEqual([
        [
          'atributo_valor_invalido',
          'Valores "12V", "", "127V" fora do domínio do atributo ATT_0005 (voltagem); permitidos: 110V, 220V, bivolt',
        ],
      ]);
    });

    it('is carried when any of its entries has a value', () => {
      const p = entries('84713012', [
        ['ATT_0003', ['Marca X']],
        ['ATT_0004', []],
        ['ATT_0005', ['bivolt']],
        ['ATT_0004', ['Modelo 14']],
      ]);
      expect(evaluate(p)).toEqual([]);
    });

    it('gives one atributo_desconhecido per unknown code, however often it is listed', () => {
      const p = entries('84713012', [...Object.entries(NOTEBOOK_OK), ['ATT_9999', ['x']], ['ATT_9999', ['y']]]);
      expect(brief(evaluate(p))).toEqual([
        ['atributo_desconhecido', 'Atributo ATT_9999 não consta do dicionário de atributos'],
      ]);
    });
  });

  describe('descricao_ausente', () => {
    it.each([null, undefined, '', '   \n'])('is found for description %j', (descricao) => {
      const p: ProductToEvaluate = { ...product('84713012', NOTEBOOK_OK), descricao };
      expect(brief(evaluate(p))).toEqual([['descricao_ausente', 'Produto sem descrição']]);
    });
    it('is not found when there is a description', () => {
      expect(evaluate(product('84713012', NOTEBOOK_OK, 'Notebook 14"'))).toEqual([]);
    });
  });

  it('orders findings by rule, then attribute code, whatever the order of the product’s attributes', () => {
    const attrs: Attrs = { ATT_9999: ['x'], ATT_0007: ['XXG'], ATT_0004: ['M1'], ATT_0005: ['127V'], ATT_0888: ['y'] };
    const expected = [
      'atributo_obrigatorio_ausente:ATT_0003',
      'atributo_valor_invalido:ATT_0005',
      'atributo_valor_invalido:ATT_0007',
      'atributo_desconhecido:ATT_0888',
      'atributo_desconhecido:ATT_9999',
      'descricao_ausente:',
    ];
    const summary = (fs: readonly Finding[]) => fs.map((f) => `${f.tipo}:${/ATT_\d+/.exec(f.detalhe)?.[0] ?? ''}`);
    expect(summary(evaluate(product('84713012', attrs, null)))).toEqual(expected);
    const reversed = product('84713012', Object.fromEntries(Object.entries(attrs).reverse()), null);
    expect(evaluate(reversed)).toEqual(evaluate(product('84713012', attrs, null)));
    expect(kinds(evaluate(product('85171231', attrs, ' ')))).toEqual([
      'ncm_extinta',
      'atributo_valor_invalido',
      'atributo_valor_invalido',
      'atributo_desconhecido',
      'atributo_desconhecido',
      'descricao_ausente',
    ]);
  });

  it('judges a code repeated with 1,000,000 values in all without overflowing the stack', () => {
    const many = Array.from({ length: 500_000 }, () => 'bivolt');
    const p: ProductToEvaluate = {
      id: 'prod-1',
      ncm: '84713012',
      descricao: 'Notebook',
      atributos: [
        { codigo: 'ATT_0005', valores: many },
        { codigo: 'ATT_0005', valores: [...many.slice(1), '127V'] },
        { codigo: 'ATT_0003', valores: ['M'] },
        { codigo: 'ATT_0004', valores: ['F'] },
      ],
    };
    expect(kinds(evaluate(p))).toEqual(['atributo_valor_invalido']);
  });

  it('gives the same findings for the same input (deterministic)', () => {
    const p = product('61091000', { ATT_0007: ['XXG'], ATT_1234: ['a'] }, '');
    expect(evaluate(p)).toEqual(evaluate(p));
  });
});

describe('FINDING_TYPES', () => {
  it('lists the six types in rule order, each explained', () => {
    expect(FINDING_TYPES.map((t) => t.tipo)).toEqual([
      'ncm_inexistente',
      'ncm_extinta',
      'atributo_obrigatorio_ausente',
      'atributo_valor_invalido',
      'atributo_desconhecido',
      'descricao_ausente',
    ]);
    for (const t of FINDING_TYPES) expect(t.explicacao.length).toBeGreaterThan(10);
  });
});

/**
 * Properties: over random chains of publications, `rulesFingerprint` changes exactly when the findings a
 * product with that NCM can get change, and `affected` is exactly the set of codes whose fingerprint changed.
 */
describe('rulesFingerprint tracks the rules (property)', () => {
  // 150 runs each evaluating whole tables: 4–6 s on a loaded 2-core machine, past vitest's default 5 s.
  const TABLE_CODES = [
    '84713012',
    '84212300',
    '85171300',
    '85171231',
    '22030000',
    '22011000',
    '61091000',
    '04090000',
    '97011000',
    '39239000',
    '94032010',
  ];
  const NEW_CODES = ['11110001', '11110002', '11110003'];
  const UNIVERSE = [...TABLE_CODES, ...NEW_CODES, '99999999'];
  const ATTRS = ['ATT_0001', 'ATT_0003', 'ATT_0005', 'ATT_0007', 'ATT_0010', 'ATT_0021', 'ATT_0901', 'ATT_0902'];
  const VALUES = ['110V', '220V', 'bivolt', 'P', 'M', 'lata'];

  const definition: fc.Arbitrary<AttributeDefinition> = fc.record(
    {
      codigo: fc.constantFrom(...ATTRS),
      nome: fc.constantFrom('voltagem', 'tensão', 'cor', 'marca'),
      dominio: fc.uniqueArray(fc.constantFrom(...VALUES), { minLength: 1, maxLength: 3 }),
    },
    { requiredKeys: ['codigo', 'nome'] },
  );

  /** What a step wants; `toChange` keeps the part that is valid against the current snapshot. */
  const intent = fc.record({
    extinguir: fc.subarray(TABLE_CODES.concat(NEW_CODES), { maxLength: 2 }),
    adicionar: fc.uniqueArray(
      fc.record({ codigo: fc.constantFrom(...NEW_CODES), obrigatorios: fc.subarray(ATTRS, { maxLength: 3 }) }),
      { selector: (a) => a.codigo, maxLength: 2 },
    ),
    obrigatorios: fc.uniqueArray(fc.tuple(fc.constantFrom(...UNIVERSE), fc.subarray(ATTRS, { maxLength: 3 })), {
      selector: (t) => t[0],
      maxLength: 3,
    }),
    atributos: fc.uniqueArray(definition, { selector: (d) => d.codigo, maxLength: 2 }),
  });
  type Intent = typeof intent extends fc.Arbitrary<infer T> ? T : never;

  function toChange(current: RegulatorySnapshot, i: Intent): SnapshotChange {
    const defined = new Set(i.atributos.map((d) => d.codigo));
    const known = (c: string) => current.attributes.has(c) || defined.has(c);
    return {
      atributos: i.atributos,
      extinguir: i.extinguir.filter((c) => current.ncms.get(c)?.extinta === false),
      adicionar: i.adicionar
        .filter((a) => !current.ncms.has(a.codigo))
        .map((a) => ({
          codigo: a.codigo,
          descricao: `Código ${a.codigo}`,
          obrigatorios: a.obrigatorios.filter(known),
        })),
      obrigatorios: Object.fromEntries(
        i.obrigatorios.filter(([c]) => current.ncms.has(c)).map(([c, req]) => [c, req.filter(known)]),
      ),
    };
  }

  /**
   * Products that tell two rule sets for `ncm` apart when they differ: no attributes, and one checked required
   * attribute at a time with every telling value. (Products carrying other attributes are judged by those
   * attributes' definitions too: the second property covers them.)
   */
  function probes(ncm: string, a: RegulatorySnapshot, b: RegulatorySnapshot): ProductToEvaluate[] {
    const checked = (s: RegulatorySnapshot) => {
      const e = s.ncms.get(ncm);
      return e === undefined || e.extinta ? [] : e.obrigatorios;
    };
    const codes = new Set([...checked(a), ...checked(b)]);
    const out = [product(ncm)];
    for (const code of codes) {
      const values = new Set([
        ...(a.attributes.get(code)?.dominio ?? []),
        ...(b.attributes.get(code)?.dominio ?? []),
        '__fora__',
      ]);
      for (const v of values) out.push(product(ncm, { [code]: [v] }));
    }
    return out;
  }

  const steps = fc.array(intent, { minLength: 1, maxLength: 3 });

  it('changes exactly when some product with that NCM would get other findings, and affected is exactly those codes', () => {
    fc.assert(
      fc.property(steps, (intents) => {
        let current = S;
        intents.forEach((i, n) => {
          const { snapshot: next, affected } = value(
            publishSnapshot(current, toChange(current, i), T0 + (n + 1) * DAY, `snap-${n + 2}`),
          );
          for (const ncm of UNIVERSE) {
            const changed = rulesFingerprint(current, ncm) !== rulesFingerprint(next, ncm);
            const findingsChanged = probes(ncm, current, next).some(
              (p) => JSON.stringify(brief(evaluate(p, current))) !== JSON.stringify(brief(evaluate(p, next))),
            );
            expect(changed, `fingerprint of ${ncm} at step ${n}`).toBe(findingsChanged);
            expect(affected.has(ncm), `affected ${ncm} at step ${n}`).toBe(changed);
          }
          current = next;
        });
      }),
      { numRuns: 150 },
    );
  }, 30_000);

  const someProduct = fc.record({
    ncm: fc.constantFrom(...UNIVERSE),
    // Codes may repeat: the spec does not forbid a code in several entries.
    atributos: fc.array(
      fc.record({
        codigo: fc.constantFrom(...ATTRS, 'ATT_9999'),
        valores: fc.subarray([...VALUES, 'outro', ''], { maxLength: 2 }),
      }),
      { maxLength: 4 },
    ),
    descricao: fc.constantFrom<string | null>('Produto', null),
  });

  it('with the product’s attribute codes, an unchanged fingerprint means unchanged findings for that product', () => {
    fc.assert(
      fc.property(steps, fc.array(someProduct, { minLength: 1, maxLength: 5 }), (intents, products) => {
        let current = S;
        intents.forEach((i, n) => {
          const next = value(
            publishSnapshot(current, toChange(current, i), T0 + (n + 1) * DAY, `snap-${n + 2}`),
          ).snapshot;
          for (const p of products) {
            const input: ProductToEvaluate = { id: 'prod-1', ...p };
            const codes = p.atributos.map((a) => a.codigo);
            if (rulesFingerprint(current, p.ncm, codes) === rulesFingerprint(next, p.ncm, codes)) {
              expect(brief(evaluate(input, next))).toEqual(brief(evaluate(input, current)));
            }
          }
          current = next;
        });
      }),
      { numRuns: 150 },
    );
  }, 30_000);
});
