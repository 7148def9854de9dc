import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Glob, globSteps } from './glob.js';

/** The glob as a regular expression, the obvious (backtracking) way: the reference the automaton must agree with. */
function reference(pattern: string): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '*' && pattern[i + 1] === '*') {
      source += '.*';
      i++;
    } else if (ch === '*') source += '[^/]*';
    else source += ch.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 'is');
}

/**
 * The tokens of a glob, read independently of Glob: a literal character (lowercased), `*`, or `**` for a run of two
 * stars or more (any run, then a run without `/`, is any run).
 */
function tokensOf(pattern: string): string[] {
  return (pattern.match(/\*\*+|\*|[^*]/g) ?? []).map((t) => (t.startsWith('**') ? '**' : t.toLowerCase()));
}

/** For each length j, whether the glob's tokens match the first j characters of `text`: dynamic programming. */
function prefixes(tokens: readonly string[], text: string): boolean[] {
  let row = Array.from({ length: text.length + 1 }, (_, j) => j === 0);
  for (const token of tokens) {
    const next = Array.from({ length: text.length + 1 }, () => false);
    for (let j = 0; j <= text.length; j++) {
      const ch = text[j - 1]?.toLowerCase();
      if (token === '**') next[j] = row[j]! || (j > 0 && next[j - 1]!);
      else if (token === '*') next[j] = row[j]! || (j > 0 && ch !== '/' && next[j - 1]!);
      else next[j] = j > 0 && row[j - 1]! && ch === token;
    }
    row = next;
  }
  return row;
}

/** Whether the whole of `text` matches: the reference for any length (no backtracking). */
const dynamic = (pattern: string, text: string): boolean => prefixes(tokensOf(pattern), text)[text.length]!;

/** Whether every text starting with `start` matches: the glob ends in ** and what is before it matches a start. */
function everyStart(pattern: string, start: string): boolean {
  const tokens = tokensOf(pattern);
  if (tokens.at(-1) !== '**') return false;
  return prefixes(tokens.slice(0, -1), start).some(Boolean);
}

describe('Glob.matches', () => {
  it.each([
    ['/v1/produtos/*', '/v1/produtos/0192', true],
    ['/v1/produtos/*', '/v1/produtos/0192/x', false],
    ['/v1/produtos/*', '/v1/produtos/', true],
    ['/v1/**', '/v1/catalogos/1/produtos/2', true],
    ['/v1/**/produtos', '/v1/catalogos/1/produtos', true],
    ['/V1/Produtos/*', '/v1/produtos/AbC', true],
    ['https://hooks.example.com/**', 'https://hooks.example.com/a/b?c=d', true],
    ['https://hooks.example.com/**', 'https://hooks.example.com.evil.test/a', false],
    ['/v1/a.b', '/v1/aXb', false],
    ['***', 'a/b', true],
    ['', '', true],
    ['', 'a', false],
  ])('%s against %s is %s', (pattern, text, expected) => {
    expect(new Glob(pattern).matches(text)).toBe(expected);
  });

  it('agrees with the backtracking regular expression on any pattern and text', () => {
    const alphabet = fc.constantFrom('a', 'b', '/', '*', '.', 'A');
    const text = fc.array(fc.constantFrom('a', 'b', '/', '.', 'A', 'B'), { maxLength: 12 }).map((a) => a.join(''));
    fc.assert(
      fc.property(
        fc.array(alphabet, { maxLength: 10 }).map((a) => a.join('')),
        text,
        (pattern, subject) => {
          expect(new Glob(pattern).matches(subject)).toBe(reference(pattern).test(subject));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('agrees with a dynamic-programming reference on long patterns (several words of states) and long texts', () => {
    // Patterns of 30 to 110 tokens: two to four 32-bit words of states, so that states move between words, stars
    // drop those before them, and a word falls out of use and back in.
    const piece = fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom('a', 'b', '/') },
      { weight: 2, arbitrary: fc.constantFrom('*', '**') },
      { weight: 1, arbitrary: fc.constantFrom('A', '.', 'é') },
    );
    const pattern = fc.array(piece, { minLength: 30, maxLength: 110 }).map((a) => a.join(''));
    const characters = fc.constantFrom('a', 'b', '/', 'A', 'B', '.', 'é', 'É');
    const text = fc.array(characters, { maxLength: 160 }).map((a) => a.join(''));
    fc.assert(
      fc.property(pattern, text, (p, t) => {
        expect(new Glob(p).matches(t)).toBe(dynamic(p, t));
      }),
      { numRuns: 2000 },
    );
  });

  it("agrees on texts that are long runs of one pattern's characters (the states a star keeps alive)", () => {
    const pieces = fc.constantFrom('a', 'b', '/', '*', '**');
    const unit = fc.array(pieces, { minLength: 1, maxLength: 4 }).map((a) => a.join(''));
    const pattern = fc.tuple(unit, fc.integer({ min: 1, max: 40 })).map(([u, times]) => u.repeat(times));
    const run = fc.constantFrom('a', 'ab', 'a/', 'b/a');
    const end = fc.constantFrom('', 'b', '/');
    const text = fc.tuple(run, fc.integer({ min: 0, max: 120 }), end).map(([r, count, last]) => r.repeat(count) + last);
    fc.assert(
      fc.property(pattern, text, (p, t) => {
        expect(new Glob(p).matches(t)).toBe(dynamic(p, t));
        expect(new Glob(p).matchesEveryTextStartingWith(t)).toBe(everyStart(p, t));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('Glob.matchesEveryTextStartingWith', () => {
  it.each([
    ['/v1/**', '/v1/produtos/aaaa', true],
    ['/v1/produtos/**', '/v1/produtos/aaaa', true],
    ['/v1/produtos/**', '/v1/prod', false],
    ['**', '', true],
    ['/v1/produtos/*', '/v1/produtos/aaaa', false],
    ['/v1/**/x', '/v1/aaa/x', false],
    ['/v1/*/**', '/v1/aaa/b', true],
    ['/v1/*/**', '/v1/aaa', false],
    ['/V1/**', '/v1/a', true],
    ['/v1/**a**', '/v1/bbb', false],
    ['/v1/**a**', '/v1/bba', true],
  ])('%s, given a text starting %s: %s', (pattern, start, expected) => {
    expect(new Glob(pattern).matchesEveryTextStartingWith(start)).toBe(expected);
  });

  it('is true exactly when the glob ends in ** and what comes before it matches some start of the text', () => {
    const alphabet = fc.constantFrom('a', 'b', '/', '*', '**');
    const text = fc.array(fc.constantFrom('a', 'b', '/'), { maxLength: 40 }).map((a) => a.join(''));
    fc.assert(
      fc.property(
        fc.array(alphabet, { maxLength: 60 }).map((a) => a.join('')),
        text,
        (pattern, start) => {
          expect(new Glob(pattern).matchesEveryTextStartingWith(start)).toBe(everyStart(pattern, start));
        },
      ),
      { numRuns: 4000 },
    );
  });
});

/**
 * What a match costs, in the steps it counts (globSteps): never a clock, which on a busy machine measures the
 * machine. A match's steps grow with the text no faster than the text: `linear` asks it of a matcher for a bounded
 * pattern at a few lengths.
 */
describe('what a match costs', () => {
  /** The steps `run` counted while it ran. */
  const stepsOf = (run: () => unknown): number => {
    const before = globSteps.total;
    run();
    return globSteps.total - before;
  };

  /**
   * Whether `cost(n)` (the steps of one match against a text of n characters) grows linearly: at most
   * `perCharacter` steps a character, overall and for each character added from one length to the next (what a
   * cost that grows faster than the text exceeds sooner or later), give or take the pattern's own few steps.
   */
  function linear(cost: (n: number) => number, perCharacter: number): { holds: boolean; costs: number[] } {
    const lengths = [1_536, 3_072, 6_144, 12_288];
    const costs: number[] = [];
    for (const [i, n] of lengths.entries()) {
      const c = cost(n);
      costs.push(c);
      // Stops at the first length past the bound: a cost that grows faster would only take longer to measure.
      const added = i === 0 ? 0 : c - costs[i - 1]! - perCharacter * (n - lengths[i - 1]!);
      if (c > perCharacter * n + 100 || added > 100) return { holds: false, costs };
    }
    return { holds: true, costs };
  }

  /** A text of `start` and then `unit` repeated, of about n characters. */
  const run = (start: string, unit: string) => (n: number) => start + unit.repeat(Math.floor(n / unit.length));

  it.each([
    // `/v1/produtos/**a**a…!` against a path with no "!": a backtracking regular expression takes seconds here.
    ['stars and a missing last character', `/v1/produtos/${'**a'.repeat(30)}!`, run('/v1/produtos/', 'a'), false, 1],
    // The longest glob a fault takes (65 words of states) against paths up to as long as Node lets a request line be.
    ['the longest glob of ** and pieces', `/v1/produtos/${'**a'.repeat(678)}!`, run('/v1/produtos/', 'a'), false, 2],
    // Once the text is past the pattern's length, the last star's state and the whole match's are a word apart.
    ['segment stars that all match', '*a'.repeat(1024), run('', 'a'), true, 2],
    ['segment stars across slashes', '*/'.repeat(1024), run('', 'ab/'), false, 1],
    // No star makes the others worthless here: every word moves, the bound the pattern's length sets.
    ['a piece repeated after ** (partial matches everywhere)', `**${'ab/'.repeat(40)}c`, run('', 'ab/'), false, 4],
  ])('a match grows linearly with the text: %s', (_name, pattern, textOf, expected, perCharacter) => {
    const glob = new Glob(pattern);
    expect(glob.matches(textOf(1_536))).toBe(expected);
    const { holds, costs } = linear((n) => stepsOf(() => glob.matches(textOf(n))), perCharacter);
    expect(holds, `steps at 1,536 to 12,288 characters: ${costs.join(', ')}`).toBe(true);
  });

  it('never more steps a character than the glob has words of states, whatever the pattern and text', () => {
    const patterns = fc.array(fc.constantFrom('a', 'b', '/', '*', '**'), { maxLength: 300 }).map((a) => a.join(''));
    const texts = fc.array(fc.constantFrom('a', 'b', '/'), { maxLength: 300 }).map((a) => a.join(''));
    fc.assert(
      fc.property(patterns, texts, (pattern, text) => {
        const glob = new Glob(pattern);
        const tokens = pattern.replace(/\*+/g, '*').length;
        const words = (tokens >>> 5) + 1;
        expect(stepsOf(() => glob.matches(text))).toBeLessThanOrEqual(words * text.length);
        expect(stepsOf(() => glob.matchesEveryTextStartingWith(text))).toBeLessThanOrEqual(words * text.length);
      }),
      { numRuns: 500 },
    );
  });

  it('the linearity check catches a matcher that backtracks', () => {
    // The obvious recursive matcher, counting its comparisons: the mistake an automaton avoids.
    const backtracking = (pattern: string, text: string): number => {
      let steps = 0;
      const at = (p: number, t: number): boolean => {
        steps++;
        if (p === pattern.length) return t === text.length;
        if (pattern[p] === '*') {
          for (let end = t; end <= text.length; end++) if (at(p + 1, end)) return true;
          return false;
        }
        return t < text.length && pattern[p] === text[t] && at(p + 1, t + 1);
      };
      at(0, 0);
      return steps;
    };
    const { holds, costs } = linear((n) => backtracking('*a*!', 'a'.repeat(n)), 1);
    expect(holds).toBe(false);
    expect(costs[0]).toBeGreaterThan(1_536 * 100);
  });
});

describe('Glob.overlapsTemplate', () => {
  it.each([
    ['/v1/produtos/*', '/v1/produtos/{id}', true],
    ['/v1/produtos/**', '/v1/produtos/{id}', true],
    ['/v1/produtos/', '/v1/produtos/{id}', false],
    ['/v1/produtos/0192b2b4-0000-7000-8000-000000000001', '/v1/produtos/{id}', true],
    ['/v1/produtos/a/b', '/v1/produtos/{id}', false],
    ['/v1/catalogos/*', '/v1/catalogos/{id}/produtos/{produto_id}', false],
    // A parameter is a uuid: `ingestoes` can't stand for one, so this reaches the ingestion paths only.
    ['/v1/catalogos/ingestoes/*/aplicacao', '/v1/catalogos/{id}/produtos/{produto_id}', false],
    ['/v1/catalogos/ingestoes/*/aplicacao', '/v1/catalogos/ingestoes/{id}/aplicacao', true],
    ['/v1/produtos/x', '/v1/produtos/{id}', false],
    ['/v1/catalogos/**', '/v1/catalogos/{id}/produtos/{produto_id}', true],
    ['/v1/catalogos/*/produtos/*', '/v1/catalogos/{id}/produtos/{produto_id}', true],
    ['/v1/CATALOGOS/*', '/v1/catalogos/{id}', true],
    ['/v1/catalogos', '/v1/catalogos/{id}', false],
    ['**', '/v1/webhook', true],
    ['/v1/webhook/*', '/v1/webhook', false],
    ['/v1/webhook*', '/v1/webhook', true],
    ['*', '/v1/webhook', false],
  ])('%s can match a path of %s: %s', (pattern, template, expected) => {
    expect(new Glob(pattern).overlapsTemplate(template)).toBe(expected);
  });

  it('says yes whenever some concrete path of the template matches (a fault that could fire is never refused)', () => {
    const templates = ['/v1/produtos/{id}', '/v1/catalogos/{id}/produtos/{produto_id}', '/v1/webhook', '/a{x}b'];
    const glob = fc
      .array(fc.constantFrom('a', 'b', '/', '*', 'v', '1', 'p', '-'), { maxLength: 10 })
      .map((a) => a.join(''));
    // Parameters are uuids: hex digits and hyphens.
    const value = fc.array(fc.constantFrom('a', 'b', '1', '-'), { minLength: 1, maxLength: 4 }).map((a) => a.join(''));
    fc.assert(
      fc.property(glob, fc.constantFrom(...templates), value, value, (pattern, template, x, y) => {
        const g = new Glob(pattern);
        const path = template.replace(/\{[^}]+\}/, x).replace(/\{[^}]+\}/, y);
        if (g.matches(path)) expect(g.overlapsTemplate(template)).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });

  it('says yes exactly when some concrete path matches (exhaustive over a small alphabet)', () => {
    // A glob of at most 5 characters over a, b, x, / and * needs parameter values (hex: here a and b) of at most
    // 5 characters to witness a match, so trying every such value decides the question independently.
    const values: string[] = [];
    for (let length = 1; length <= 5; length++)
      for (let n = 0; n < 2 ** length; n++)
        values.push(n.toString(2).padStart(length, '0').replace(/0/g, 'a').replace(/1/g, 'b'));
    const glob = fc.array(fc.constantFrom('a', 'b', 'x', '/', '*'), { maxLength: 5 }).map((a) => a.join(''));
    fc.assert(
      fc.property(glob, fc.constantFrom('/a{x}', '{x}', '/{x}/b', 'a/{x}/{y}', 'x{x}'), (pattern, template) => {
        const g = new Glob(pattern);
        const parameters = template.match(/\{[^}]+\}/g) ?? [];
        const some =
          parameters.length === 1
            ? values.some((x) => g.matches(template.replace(parameters[0]!, x)))
            : values.some((x) =>
                values.some((y) => g.matches(template.replace(parameters[0]!, x).replace(parameters[1]!, y))),
              );
        expect(g.overlapsTemplate(template)).toBe(some);
      }),
      { numRuns: 400 },
    );
  });
});
