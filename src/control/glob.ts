/**
 * The globs of fault matches (`match.path` of api faults, `match.url` of delivery faults): `*` is any run of
 * characters but `/`, `**` any run at all, everything else itself, case-insensitively.
 *
 * A glob is run as a small automaton, never as a backtracking regular expression: matching costs at most
 * (pattern length × text length) steps, whatever the pattern, so a fault can't stall the server that checks
 * every request against it. The same automaton tells whether a glob can match any path of an operation
 * (`overlapsTemplate`), which is how a fault that could never fire is refused when it is added.
 */

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

  /** Whether the whole of `text` matches, case-insensitively. */
  matches(text: string): boolean {
    const count = this.tokens.length;
    let current = new Uint8Array(count + 1);
    let next = new Uint8Array(count + 1);
    current[0] = 1;
    this.close(current);
    for (let c = 0; c < text.length; c++) {
      const ch = text[c]!.toLowerCase();
      next.fill(0);
      let alive = false;
      for (let state = 0; state < count; state++) {
        if (!current[state]) continue;
        const token = this.tokens[state]!;
        const target = 'literal' in token ? (token.literal === ch ? state + 1 : -1) : token.star === 'any' || ch !== '/' ? state : -1;
        if (target >= 0) {
          next[target] = 1;
          alive = true;
        }
      }
      if (!alive) return false;
      this.close(next);
      [current, next] = [next, current];
    }
    return current[count] === 1;
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

  /** Adds the states reachable without reading a character: a star may match nothing. */
  private close(states: Uint8Array): void {
    for (let state = 0; state < this.tokens.length; state++) {
      if (states[state] && 'star' in this.tokens[state]!) states[state + 1] = 1;
    }
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
