import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TextArena } from './text-arena.js';

const SLOT = 2 ** 16;

describe('TextArena', () => {
  it('gives back each text exactly: empty, ASCII, Latin-1, wider characters, an emoji, a lone surrogate, line breaks', () => {
    const arena = new TextArena();
    const texts = [
      '',
      'a',
      '{"descricao":"Café com açúcar"}\n',
      'ÿ\u0000\u00ff',
      'fim — ok',
      '😀',
      'x\ud800y',
      '\udfff',
      'a\nb\r\nc',
      '\u0080\u07ff\u0800\uffff',
    ];
    const handles = texts.map((t) => arena.add(t));
    expect(handles.map((h) => arena.text(h))).toEqual(texts);
  });

  it('gives back a text larger than a chunk, and one longer than a single String.fromCharCode call takes', () => {
    const arena = new TextArena();
    const big = 'ab'.repeat(70_000);
    const wide = 'é—😀'.repeat(30_000);
    const small = 'after';
    const [h1, h2, h3] = [arena.add(big), arena.add(wide), arena.add(small)];
    expect(arena.text(h1)).toBe(big);
    expect(arena.text(h2)).toBe(wide);
    expect(arena.text(h3)).toBe(small);
  });

  it('reads the first bytes of a text alone', () => {
    const arena = new TextArena();
    const h = arena.add('1777593600000\n200\nrest');
    expect(arena.head(h, 24)).toBe('1777593600000\n200\nrest');
    expect(arena.head(h, 13)).toBe('1777593600000');
    // A text kept as UTF-16 code units (it holds a lone surrogate): its first units.
    const units = arena.add('12\ud80034');
    expect(arena.head(units, 4)).toBe('12\ud8003');
  });

  it('writes a text where the last ended while it fits, non-ASCII or empty, and in a new chunk when not', () => {
    const arena = new TextArena();
    const texts: string[] = [];
    const handles: number[] = [];
    // Texts of 1 to 3 bytes a character, and empty ones, filling chunk after chunk to their last bytes.
    for (let i = 0; i < 3000; i++) {
      const text = ['', 'a'.repeat(i % 50), 'ç'.repeat(i % 37), '€'.repeat(i % 23), 'x😀'.repeat(i % 7)][i % 5]!;
      texts.push(text);
      handles.push(arena.add(text));
    }
    expect(handles.map((h) => arena.text(h))).toEqual(texts);
  });

  it('a handle is a small whole number, and chunks emptied oldest first are reused: 200,000 texts through a window of 1,000', () => {
    const arena = new TextArena();
    const text = `{"id":"0198c3a0-5b4e-7c1d-9e2f-3a4b5c6d7e8f","sku":"SKU-1","descricao":"${'x'.repeat(200)}"}`;
    const window: number[] = [];
    let largest = 0;
    for (let i = 0; i < 200_000; i++) {
      const h = arena.add(text);
      largest = Math.max(largest, h);
      window.push(h);
      if (window.length > 1_000) arena.remove(window.shift()!);
    }
    expect(Number.isInteger(largest)).toBe(true);
    // 1,000 texts of ~300 bytes take five chunks of 64 KiB, after the seven smaller first ones; without the chunks
    // emptied coming back, the 60 MB written would have taken some 900 indexes.
    expect(Math.floor(largest / SLOT)).toBeLessThan(16);
    for (const h of window) expect(arena.text(h)).toBe(text);
  });

  it('a removed text whose chunk was freed is refused loudly, and so is a handle it never gave', () => {
    const arena = new TextArena();
    const first = arena.add('x'.repeat(600));
    arena.add('y'.repeat(2000)); // in a second chunk: the first is no longer the one written
    arena.remove(first);
    expect(() => arena.text(first)).toThrow(new RangeError(`no text at handle ${first}`));
    expect(() => arena.remove(first)).toThrow(RangeError);
    expect(() => arena.text(40 * SLOT)).toThrow(new RangeError(`no text at handle ${40 * SLOT}`));
  });

  it('keeps every live text whatever the adds and removes (property, against a map)', () => {
    const text = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.string({ maxLength: 3000, unit: 'binary' }),
      fc.string({ maxLength: 70_000, unit: 'grapheme-ascii' }),
      fc.string({ maxLength: 40_000, unit: 'grapheme' }),
    );
    const op = fc.oneof(
      { weight: 3, arbitrary: text.map((t) => ({ add: t })) },
      { weight: 2, arbitrary: fc.nat().map((n) => ({ remove: n })) },
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 120 }), (ops) => {
        const arena = new TextArena();
        const live = new Map<number, string>();
        for (const o of ops) {
          if ('add' in o) {
            const h = arena.add(o.add);
            expect(live.has(h)).toBe(false);
            live.set(h, o.add);
          } else if (live.size > 0) {
            const h = [...live.keys()][o.remove % live.size]!;
            arena.remove(h);
            live.delete(h);
          }
          for (const [h, t] of live) expect(arena.text(h)).toBe(t);
        }
      }),
      { numRuns: 150 },
    );
  });
});
