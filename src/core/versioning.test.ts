import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashString, hex32 } from './random.js';
import { ENTITY_TAGS, etag, opaqueTag, readIfMatch, requireMatch } from './versioning.js';

describe('etag', () => {
  it('is a strong, quoted, opaque tag', () => {
    const tag = etag('product', '019b76da-a800-7f02-a38a-2ab47ab69367', 1);
    expect(tag).toMatch(/^"[0-9a-f]{16}"$/);
    expect(tag.startsWith('W/')).toBe(false);
  });

  it('is deterministic: the same kind, id and versao give the same tag', () => {
    expect(etag('catalog', 'abc', 7)).toBe(etag('catalog', 'abc', 7));
  });

  it("keeps the tags it has always given (they are in snapshots and clients' caches)", () => {
    expect(etag('product', '019b76da-a800-7f02-a38a-2ab47ab69367', 1)).toBe('"fff22433b36d712b"');
    expect(etag('produto', '019b76da-a800-7520-a337-1f12323dcd57', 12345)).toBe('"9692c5b4bddcdb60"');
    expect(etag('vigilancia', 'x', 4294967297)).toBe('"8cd29bd2102fd9bd"');
  });

  it('is the hash of the text `kind:id:versao`, then of that text followed by `:` and the first half, for any kind, id and versao', () => {
    const mix = (h: number) => {
      h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
      h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
      return (h ^ (h >>> 16)) >>> 0;
    };
    fc.assert(
      fc.property(fc.string(), fc.string({ unit: 'binary' }), fc.maxSafeNat(), (kind, id, versao) => {
        const text = `${kind}:${id}:${versao}`;
        const high = mix(hashString(text));
        const low = mix(hashString(`${text}:${high}`) ^ high);
        expect(etag(kind, id, versao)).toBe(`"${hex32(high)}${hex32(low)}"`);
      }),
    );
  });

  it('differs when versao, id or kind differ', () => {
    const base = etag('product', 'id-1', 1);
    expect(etag('product', 'id-1', 2)).not.toBe(base);
    expect(etag('product', 'id-2', 1)).not.toBe(base);
    expect(etag('catalog', 'id-1', 1)).not.toBe(base);
  });

  it('gives 1000 consecutive versions of one resource 1000 distinct tags that do not look like counters', () => {
    const tags = Array.from({ length: 1000 }, (_, i) => etag('establishment', 'e', i + 1));
    expect(new Set(tags).size).toBe(1000);
    // Neighbouring versions share no long common prefix.
    let sharedPrefix = 0;
    for (let i = 1; i < tags.length; i++) {
      const a = tags[i - 1]!;
      const b = tags[i]!;
      let n = 0;
      while (n < a.length && a[n] === b[n]) n++;
      sharedPrefix = Math.max(sharedPrefix, n);
    }
    expect(sharedPrefix).toBeLessThan(8);
  });
});

describe('requireMatch', () => {
  const current = etag('product', 'p1', 3);

  it('refuses a missing If-Match with precondition_required (428) precondicao_ausente at header.if-match', () => {
    const result = requireMatch(undefined, current, 'product');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.refusal).toMatchObject({
      kind: 'precondition_required',
      codigo: 'precondicao_ausente',
      caminho: 'header.if-match',
    });
    expect(result.refusal.mensagem).toContain('product');
  });

  it('refuses a stale tag with precondition_failed (412) precondicao_falhou naming the current ETag', () => {
    const result = requireMatch([etag('product', 'p1', 2)], current, 'product');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.refusal).toMatchObject({
      kind: 'precondition_failed',
      codigo: 'precondicao_falhou',
      caminho: 'header.if-match',
    });
    expect(result.refusal.mensagem).toContain(current);
  });

  it('refuses an empty list of tags with 412, not 428', () => {
    const result = requireMatch([], current, 'product');
    expect(!result.ok && result.refusal.kind).toBe('precondition_failed');
  });

  it('refuses the current tag without its quotes or as a weak tag', () => {
    expect(requireMatch([current.slice(1, -1)], current, 'product').ok).toBe(false);
    expect(requireMatch([`W/${current}`], current, 'product').ok).toBe(false);
  });

  it('accepts the current tag', () => {
    expect(requireMatch([current], current, 'product')).toEqual({ ok: true, value: undefined });
  });

  it('accepts when one of several tags is the current one', () => {
    expect(requireMatch([etag('product', 'p1', 1), current, etag('product', 'p1', 2)], current, 'product').ok).toBe(
      true,
    );
  });
});

describe('readIfMatch', () => {
  it.each<[string, string, '*' | readonly string[] | undefined]>([
    ['one strong tag', '"a1"', ['"a1"']],
    ['a list, spaced any way (around commas, at the ends)', ' "a" ,\t"b",  "c"\t', ['"a"', '"b"', '"c"']],
    ['weak tags, kept as sent', 'W/"a", "b"', ['W/"a"', '"b"']],
    ['a comma inside a tag, part of it', '"a,b", "c"', ['"a,b"', '"c"']],
    ['an empty tag', '""', ['""']],
    ['*, spaced', ' * ', '*'],
    ['* in a list', '"a", *', undefined],
    ['a tag without its quotes', 'a1', undefined],
    ['two tags with no comma', '"a" "b"', undefined],
    ['an empty element', '"a",,"b"', undefined],
    ['a lowercase w/', 'w/"a"', undefined],
    ['a quote inside a tag', '"a"b"', undefined],
    ['nothing', '', undefined],
  ])('%s', (_, value, tags) => {
    expect(readIfMatch(value)).toEqual(tags);
  });

  it('reads every list the If-Match pattern accepts into the tags it was made of', () => {
    const opaque = fc.stringMatching(/^[\x21\x23-\x7e]{0,6}$/);
    const tag = fc.tuple(fc.boolean(), opaque).map(([weak, text]) => `${weak ? 'W/' : ''}"${text}"`);
    const space = fc.stringMatching(/^[ \t]{0,2}$/);
    fc.assert(
      fc.property(fc.array(fc.tuple(space, tag, space), { minLength: 1, maxLength: 5 }), (parts) => {
        const value = parts.map(([before, t, after]) => `${before}${t}${after}`).join(',');
        expect(ENTITY_TAGS.test(value)).toBe(true);
        expect(readIfMatch(value)).toEqual(parts.map(([, t]) => t));
      }),
    );
  });

  it("gives a tag's opaque part, weak or strong", () => {
    expect([opaqueTag('W/"a"'), opaqueTag('"a"'), opaqueTag('"W/a"')]).toEqual(['"a"', '"a"', '"W/a"']);
  });
});
