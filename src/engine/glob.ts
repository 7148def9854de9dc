/**
 * The globs of fault matches (`match.path` of api faults, `match.url` of delivery faults) and of the journal's `path`
 * filter: `*` is any run of characters but `/`, `**` any run at all, everything else itself, case-insensitively.
 *
 * A glob is run as a small automaton, never as a backtracking regular expression, and every match counts its steps
 * (globSteps): one step is one 32-bit word of the automaton's states moved over one character. A match takes at most
 * (text length × ⌈(tokens + 1) / 32⌉) steps, whatever the pattern, and usually one a character: the states a star
 * makes worthless are dropped (see matchFrom), so a glob of `**` and short pieces (`/**a**a…b`) or of `*` within one
 * segment costs one or two steps a character, however long. Cost is linear in the text for any glob; tests prove it
 * by these steps, never by a clock. The same automaton tells whether a glob can match any path of an operation
 * (`overlapsTemplate`), which is how a fault that could never fire is refused when it is added.
 */

/** The longest glob a fault's match or a journal filter takes: a bound on what checking one costs. */
export const MAX_GLOB = 2048;

/**
 * The steps every match has taken, in this process (see above): what a query of the journal spends is counted by its
 * glob (Glob.steps), and tests prove what a match costs by them, never by a clock.
 */
export const globSteps = { total: 0 };

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
  /** How many literal characters it has: a text shorter than that can't match. */
  private readonly literals: number;
  /** The steps this glob's matches have taken (see globSteps). */
  steps = 0;

  constructor(readonly pattern: string) {
    const tokens: GlobToken[] = [];
    let literals = 0;
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
      } else {
        tokens.push({ literal: pattern[i]!.toLowerCase() });
        literals++;
      }
    }
    this.tokens = tokens;
    this.literals = literals;
  }

  /** Whether the whole of `text` matches, case-insensitively. */
  matches(text: string): boolean {
    return text.length >= this.literals && this.matchFrom(text, false);
  }

  /**
   * Whether every text that starts with `start` matches, whatever follows it: what can be said of a text of which
   * only its start is known (a path the journal cut, docs/journal.md). Only a glob that ends in `**` can, once
   * `start` has brought the automaton to that last `**`.
   */
  matchesEveryTextStartingWith(start: string): boolean {
    const last = this.tokens[this.tokens.length - 1];
    const endsInAnyRun = last !== undefined && 'star' in last && last.star === 'any';
    return endsInAnyRun && start.length >= this.literals && this.matchFrom(start, true);
  }

  /**
   * The automaton run over `text` (shift-and: its states are one bit each, packed in 32-bit words, and every
   * character moves all of them at once), over the words from the lowest state worth moving to the highest active.
   * A star's state makes those before it worthless when it can read whatever text they still could before reaching
   * it: a `**` always (it reads any run, then goes on as they would from there), a `*` when no `/` and no `**` lies
   * between them (what they read on the way is then a run without `/`, which it reads too). So once such a star is
   * active, every state before it is dropped: a glob of `**` and short pieces (`/**a**a…b`), or of `*` within one
   * segment (`*a*a…`), moves a word or two a character, however long. `open`: the text is the start of a longer
   * one (matchesEveryTextStartingWith): true as soon as the last `**` is reached, false at the end otherwise.
   */
  private matchFrom(text: string, open: boolean): boolean {
    const automaton = this.automaton();
    if (automaton.words === 1) return this.matchWord(text, open, automaton);
    const { words, stars, anyStars, anyStarred, accept, lastAnyStar, floors, none } = automaton;
    const ascii = this.asciiMasks;
    let current = this.bufferA!;
    let next = this.bufferB!;
    current.fill(0);
    next.fill(0);
    current[0] = 1;
    closeOverStars(current, stars);
    // [low, high]: the words that may hold a state worth moving; below `low` every state is dropped (see above).
    let low = 0;
    let high = 0;
    /** The state below which every state is dropped. */
    let floor = 0;
    /** The highest word of `next` that may hold a state from an earlier character (cleared before it is read). */
    let stale = 0;
    let steps = 0;
    let reached = lastAnyStar === 0;
    let dead = false;
    for (let c = 0; c < text.length && !reached; c++) {
      const code = text.charCodeAt(c);
      // ASCII (every character of a URL) is lowercased and looked up by code, without a string per character.
      const literals = code < 128 ? ascii[lowerAscii(code)]! : (this.literalMasks.get(text[c]!.toLowerCase()) ?? none);
      // On `/` only `**` loops; on any other character every star does.
      const loops = code === 47 ? anyStars : stars;
      let carry = 0;
      let starCarry = 0;
      let top = -1;
      let topStar = -1;
      // One pass per character: the step, then the closure over stars (closeOverStars, fused in): a state a
      // star's closure reaches is never a star, so each word's closure needs only its own bits and a carry.
      for (let w = low; w <= high; w++) {
        const state = current[w]!;
        const moved = state & literals[w]!;
        const stepped = ((moved << 1) | carry | (state & loops[w]!)) >>> 0;
        carry = moved >>> 31;
        const active = stepped & stars[w]!;
        const value = (stepped | (active << 1) | starCarry) >>> 0;
        starCarry = active >>> 31;
        next[w] = value;
        if (value !== 0) top = w;
        if (active !== 0) topStar = w;
      }
      let last = high;
      // The word after the highest, which holds no state, only for what the highest carries into it.
      if ((carry | starCarry) !== 0 && high + 1 < words) {
        last = high + 1;
        const active = carry & stars[last]!;
        next[last] = (carry | (active << 1) | starCarry) >>> 0;
        top = last;
        if (active !== 0) topStar = last;
      }
      steps += last - low + 1;
      // Words past `last` may still hold the states of two characters ago: cleared, so that `next` holds only these.
      for (let w = last + 1; w <= stale; w++) next[w] = 0;
      if (top < 0) {
        dead = true;
        break;
      }
      const star = topStar < 0 ? -1 : topStar * 32 + 31 - Math.clz32(next[topStar]! & stars[topStar]!);
      if (star > floor) {
        // The highest active star that makes every state before it worthless: the highest `**`, or a `*` above it.
        let drop = -1;
        for (let w = topStar; w >= low && drop < 0 && anyStarred; w--) {
          const any = next[w]! & anyStars[w]!;
          if (any !== 0) drop = w * 32 + 31 - Math.clz32(any);
        }
        if (star > drop && lowestState(next, low) > floors[star]!) drop = star;
        if (drop > floor) {
          floor = drop;
          low = drop >>> 5;
          // The states below it in its word are dropped; the words below `low` are never read again.
          next[low] = (next[low]! & ~((1 << (drop & 31)) - 1)) >>> 0;
          reached = drop === lastAnyStar;
        }
      }
      stale = high;
      high = top;
      const swap = current;
      current = next;
      next = swap;
    }
    this.steps += steps;
    globSteps.total += steps;
    if (dead) return false;
    if (reached) return true;
    return !open && (current[accept >>> 5]! & (1 << (accept & 31))) !== 0;
  }

  /**
   * matchFrom for a glob of fewer than 32 tokens (nearly every glob): its states in one number, each character one
   * step, as the words above.
   */
  private matchWord(text: string, open: boolean, automaton: Automaton): boolean {
    const { accept, lastAnyStar, floors } = automaton;
    const stars = automaton.stars[0]!;
    const anyStars = automaton.anyStars[0]!;
    const ascii = this.asciiWords;
    let states = (1 | ((1 & stars) << 1)) >>> 0;
    let floor = 0;
    let reached = lastAnyStar === 0;
    let c = 0;
    for (; c < text.length && !reached; c++) {
      const code = text.charCodeAt(c);
      const other = code < 128 ? undefined : this.literalMasks.get(text[c]!.toLowerCase());
      const literals = code < 128 ? ascii[lowerAscii(code)]! : (other?.[0] ?? 0);
      const stepped = (((states & literals) << 1) | (states & (code === 47 ? anyStars : stars))) >>> 0;
      states = (stepped | ((stepped & stars) << 1)) >>> 0;
      if (states === 0) break;
      const active = states & stars;
      const star = active === 0 ? -1 : 31 - Math.clz32(active);
      if (star > floor) {
        const any = states & anyStars;
        let drop = any === 0 ? -1 : 31 - Math.clz32(any);
        if (star > drop && 31 - Math.clz32(states & -states) > floors[star]!) drop = star;
        if (drop > floor) {
          floor = drop;
          states = (states & ~((1 << drop) - 1)) >>> 0;
          reached = drop === lastAnyStar;
        }
      }
    }
    // One step a character read (the one that left no state alive included).
    const steps = c < text.length && !reached ? c + 1 : c;
    this.steps += steps;
    globSteps.total += steps;
    if (reached) return true;
    return !open && (states & (1 << accept)) !== 0;
  }

  private compiled: Automaton | undefined;
  private readonly literalMasks = new Map<string, Uint32Array>();
  /** The literal masks of the ASCII characters, by code (a character no literal reads: the automaton's `none`). */
  private asciiMasks: readonly Uint32Array[] = [];
  /** The same, of a glob in one word (matchWord): the mask itself. */
  private asciiWords = new Uint32Array(0);
  /** The two state vectors a match moves between, made with the automaton (a match ends before another starts). */
  private bufferA: Uint32Array | undefined;
  private bufferB: Uint32Array | undefined;

  /** The bit masks of the automaton, built on first use. */
  private automaton(): Automaton {
    if (this.compiled) return this.compiled;
    const count = this.tokens.length;
    const words = (count >>> 5) + 1;
    const stars = new Uint32Array(words);
    const anyStars = new Uint32Array(words);
    this.tokens.forEach((token, state) => {
      const bit = 1 << (state & 31);
      if ('literal' in token) {
        let mask = this.literalMasks.get(token.literal);
        if (!mask) {
          this.literalMasks.set(token.literal, (mask = new Uint32Array(words)));
        }
        mask[state >>> 5]! |= bit;
      } else {
        stars[state >>> 5]! |= bit;
        if (token.star === 'any') anyStars[state >>> 5]! |= bit;
      }
    });
    const last = this.tokens[count - 1];
    const lastAnyStar = last !== undefined && 'star' in last && last.star === 'any' ? count - 1 : -1;
    // For each state, the last `/` or `**` before it (-1: none).
    const floors = new Int32Array(count + 1);
    let floor = -1;
    this.tokens.forEach((token, state) => {
      floors[state] = floor;
      if ('literal' in token ? token.literal === '/' : token.star === 'any') floor = state;
    });
    floors[count] = floor;
    this.bufferA = new Uint32Array(words);
    this.bufferB = new Uint32Array(words);
    const none = new Uint32Array(words);
    const maskOf = (code: number) => this.literalMasks.get(String.fromCharCode(code)) ?? none;
    this.asciiMasks = Array.from({ length: 128 }, (_, code) => maskOf(code));
    this.asciiWords = Uint32Array.from(this.asciiMasks, (mask) => mask[0]!);
    const anyStarred = this.tokens.some((token) => 'star' in token && token.star === 'any');
    this.compiled = { words, stars, anyStars, anyStarred, accept: count, lastAnyStar, floors, none };
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
  /** The `**` states: the only ones that loop on `/`, and those that make the states before them worthless. */
  readonly anyStars: Uint32Array;
  /** Whether it has a `**` at all. */
  readonly anyStarred: boolean;
  readonly accept: number;
  /** The state of the glob's last token when it is `**` (a text that reaches it matches, whatever follows); else -1. */
  readonly lastAnyStar: number;
  /**
   * For each state, the last state before it that reads `/` or is `**` (-1: none): a `*` makes the active states
   * worthless only if all of them are above its floor.
   */
  readonly floors: Int32Array;
  /** The mask of a character no literal reads. */
  readonly none: Uint32Array;
}

/** The code of an ASCII character lowercased: every character of a URL is one, read without a string of its own. */
const lowerAscii = (code: number): number => (code >= 65 && code <= 90 ? code + 32 : code);

/** The lowest active state of `states`, looked for from the word `from` on (one of them is active). */
function lowestState(states: Uint32Array, from: number): number {
  let w = from;
  while (states[w] === 0) w++;
  const word = states[w]!;
  return w * 32 + 31 - Math.clz32(word & -word);
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
