/**
 * What a client sent, as the emulator keeps it: cut to a bounded length, marked by "…", and a cut text told from a
 * whole one by its length alone, whatever characters the sender used.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CUT, keptPath, keptTags, keptText, MAX_HEADER, MAX_PATH } from './kept-text.js';

describe('keptText', () => {
  it('keeps a text of up to the bound whole, and cuts a longer one to its start and "…"', () => {
    expect(keptText('abc', 3)).toBe('abc');
    expect(keptText('abcd', 3)).toBe('abc…');
    expect(keptPath(`/v1/${'a'.repeat(MAX_PATH - 4)}`)).toHaveLength(MAX_PATH);
    expect(keptPath(`/v1/${'a'.repeat(15_000)}`)).toBe(`/v1/${'a'.repeat(MAX_PATH - 4)}…`);
  });

  it('never splits a surrogate pair: the pair is kept whole before the mark', () => {
    const emoji = '\u{1F600}';
    expect(keptText(`ab${emoji}cd`, 3)).toBe(`ab${emoji}…`);
    expect(keptText(`abc${emoji}`, 3)).toBe('abc…');
  });

  it('a kept text is cut exactly when it is longer than the bound, and starts with what was sent', () => {
    const text = fc.string({ unit: fc.constantFrom('a', '/', '…', '\u{1F600}', 'é'), maxLength: 40 });
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 20 }), (sent, max) => {
        const kept = keptText(sent, max);
        const cut = sent.length > max;
        expect(kept.length > max).toBe(cut);
        if (!cut) expect(kept).toBe(sent);
        else {
          expect(kept.endsWith(CUT)).toBe(true);
          expect(sent.startsWith(kept.slice(0, -CUT.length))).toBe(true);
          expect(kept.length).toBeLessThanOrEqual(max + 2);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('keptTags', () => {
  it('keeps the tags while they hold MAX_HEADER characters in all, then a "…" that no entity tag is', () => {
    const tag = `"${'f'.repeat(16)}"`;
    const many = Array.from({ length: 200 }, () => tag);
    const kept = keptTags(many);
    expect(kept.at(-1)).toBe(CUT);
    expect(kept.slice(0, -1).join('').length).toBeLessThanOrEqual(MAX_HEADER);
    expect(kept.length - 1).toBe(Math.floor(MAX_HEADER / tag.length));
    const few = [tag, tag];
    expect(keptTags(few)).toBe(few);
    expect(keptTags([`"${'x'.repeat(MAX_HEADER)}"`])).toEqual([CUT]);
  });
});
