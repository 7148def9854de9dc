/**
 * The globs of fault matches (`match.path` of api faults, `match.url` of delivery faults): `*` is any run of
 * characters but `/`, `**` any run at all, everything else itself, case-insensitively.
 *
 * A glob is run as a small automaton, never as a backtracking regular expression: matching costs at most
 * (pattern length × text length) steps, whatever the pattern, so a fault can't stall the server that checks
 * every request against it. The same automaton tells whether a glob can match any path of an operation
 * (`overlapsTemplate`), which is how a fault that could never fire is refused when it is added.
 */

/** The longest glob a fault's match or a journal filter takes: a bound on what checking one costs. */
export const MAX_GLOB = 2048;

/** One step of a glob: a literal character (lowercased), `*` or `**`. */
type GlobToken = { readonly literal: string } | { readonly star: 'segment' | 'any' };

/**
 * What a template path consumes at one position: a literal character, or a path parameter (`{id}`). Every path
 * parameter of the API is a uuid (spec "Endpoints": path `{id}` is a uuid), so a parameter is one or more hex
 * digits and hyphens: two steps, one such character, then any more.
 */
type TemplateToken = { readonly literal: string } | { readonly parameter: 'first' | 'rest' };

export class Glob {
  private readonly tokens: readonly GlobToken[];

  constructor(readonly pattern: string) {
    const tokens: GlobToken[] = [];
    for (let i = 0; i < pattern.length; i++) {
      if (pattern[i] === '*') {
        const any = pattern[i + 1] === '*';
        if (any) i++;
        // Runs of stars collapse: `***` is `**`, and `*` beside `**` adds nothing.
        const previous = tokens[tokens.length - 1];
        if (previous && 'star' in previous) {
          if (any) tokens[tokens.length - 1] = { star: 'any' };
          continue;
        }
        tokens.push({ star: any ? 'any' : 'segment' });
      } else tokens.push({ literal: pattern[i]!.toLowerCase() });
    }
    this.tokens = tokens;
  }

  /**
   * Whether the whole of `text` matches, case-insensitively. The automaton's states are one bit each, packed in
   * 32-bit words, and every character moves all of them at once (shift-and): a 2,048-character pattern against a
   * 16 KB path is some 65 words × 16,000 characters, a few milliseconds, never a walk back through the text.
   */
  matches(text: string): boolean {
    const { words, stars, loopsOffSlash, accept } = this.automaton();
    let current = new Uint32Array(words);
    let next = new Uint32Array(words);
    current[0] = 1;
    closeOverStars(current, stars);
    for (let c = 0; c < text.length; c++) {
      const code = text.charCodeAt(c);
      // ASCII (every character of a URL) is lowercased and looked up by code, without a string per character.
      const ch = code < 128 ? '' : text[c]!.toLowerCase();
      const literals = code < 128 ? this.asciiMasks[code >= 65 && code <= 90 ? code + 32 : code] : this.literalMasks.get(ch);
      // On `/` only `**` loops; on any other character every star does.
      const loops = code === 47 ? loopsOffSlash : stars;
      let carry = 0;
      let starCarry = 0;
      let alive = 0;
      // One pass per character: the step, then the closure over stars (closeOverStars, fused in): a state a
      // star's closure reaches is never a star, so each word's closure needs only its own bits and a carry.
      for (let w = 0; w < words; w++) {
        const state = current[w]!;
        const moved = literals ? state & literals[w]! : 0;
        const stepped = ((moved << 1) | carry | (state & loops[w]!)) >>> 0;
        carry = moved >>> 31;
        const active = stepped & stars[w]!;
        const value = (stepped | (active << 1) | starCarry) >>> 0;
        starCarry = active >>> 31;
        next[w] = value;
        alive |= value;
      }
      if (alive === 0) return false;
      [current, next] = [next, current];
    }
    return (current[accept >>> 5]! & (1 << (accept & 31))) !== 0;
  }

  private compiled: Automaton | undefined;
  private readonly literalMasks = new Map<string, Uint32Array>();
  private readonly asciiMasks: (Uint32Array | undefined)[] = [];

  /** The bit masks of the automaton, built on first use. */
  private automaton(): Automaton {
    if (this.compiled) return this.compiled;
    const count = this.tokens.length;
    const words = (count >>> 5) + 1;
    const stars = new Uint32Array(words);
    const loopsOffSlash = new Uint32Array(words);
    this.tokens.forEach((token, state) => {
      const bit = 1 << (state & 31);
      if ('literal' in token) {
        let mask = this.literalMasks.get(token.literal);
        if (!mask) {
          this.literalMasks.set(token.literal, (mask = new Uint32Array(words)));
          if (token.literal.length === 1 && token.literal.charCodeAt(0) < 128) this.asciiMasks[token.literal.charCodeAt(0)] = mask;
        }
        mask[state >>> 5]! |= bit;
      } else {
        stars[state >>> 5]! |= bit;
        if (token.star === 'any') loopsOffSlash[state >>> 5]! |= bit;
      }
    });
    this.compiled = { words, stars, loopsOffSlash, accept: count };
    return this.compiled;
  }

  /**
   * Whether some path of `template` (e.g. `/v1/catalogos/{id}/produtos/{produto_id}`) matches: a search of
   * the pairs (glob state, template state) reachable on a character both steps accept.
   */
  overlapsTemplate(template: string): boolean {
    const steps = templateTokens(template);
    const width = steps.length + 1;
    const seen = new Uint8Array((this.tokens.length + 1) * width);
    const pending: [number, number][] = [];
    const reach = (g: number, t: number) => {
      if (seen[g * width + t]) return;
      seen[g * width + t] = 1;
      pending.push([g, t]);
    };
    reach(0, 0);
    while (pending.length > 0) {
      const [g, t] = pending.pop()!;
      if (g === this.tokens.length && t === steps.length) return true;
      const globToken = this.tokens[g];
      const step = steps[t];
      // Moves that read nothing: a star may match nothing, and so may the rest of a parameter.
      if (globToken && 'star' in globToken) reach(g + 1, t);
      if (step && 'parameter' in step && step.parameter === 'rest') reach(g, t + 1);
      if (globToken && step && accepts(globToken, step)) {
        reach('star' in globToken ? g : g + 1, 'parameter' in step && step.parameter === 'rest' ? t : t + 1);
      }
    }
    return false;
  }
}

/** The bit masks of a glob's automaton: state i is bit i; state `accept` (past the last token) is a whole match. */
interface Automaton {
  readonly words: number;
  readonly stars: Uint32Array;
  readonly loopsOffSlash: Uint32Array;
  readonly accept: number;
}

/**
 * Adds the states reachable without reading a character: a star may match nothing. Runs of stars collapse to
 * one token, so the state after a star is never a star, and one shift reaches all of them.
 */
function closeOverStars(states: Uint32Array, stars: Uint32Array): void {
  let carry = 0;
  for (let w = 0; w < states.length; w++) {
    const active = states[w]! & stars[w]!;
    states[w] = (states[w]! | (active << 1) | carry) >>> 0;
    carry = active >>> 31;
  }
}

function templateTokens(template: string): TemplateToken[] {
  const tokens: TemplateToken[] = [];
  for (let i = 0; i < template.length; i++) {
    if (template[i] === '{') {
      const end = template.indexOf('}', i);
      if (end < 0) throw new Error(`Unclosed parameter in ${template}`);
      tokens.push({ parameter: 'first' }, { parameter: 'rest' });
      i = end;
    } else tokens.push({ literal: template[i]!.toLowerCase() });
  }
  return tokens;
}

const UUID_CHARACTER = /^[0-9a-f-]$/;

/** Whether some single character is accepted by both steps. */
function accepts(glob: GlobToken, step: TemplateToken): boolean {
  if ('literal' in step) {
    if ('literal' in glob) return glob.literal === step.literal;
    return glob.star === 'any' || step.literal !== '/';
  }
  // Either star can match a hex digit; a literal only if it is one.
  return 'literal' in glob ? UUID_CHARACTER.test(glob.literal) : true;
}
