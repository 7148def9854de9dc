/**
 * Which operation a request of the API names, and what to answer when none does, decided as the API has always
 * decided it (the rules below). hono routes the whole API to one handler (app.ts) and this table does the rest:
 * with a route per operation, hono's RegExpRouter refuses `/v1/catalogos/:id` beside `/v1/catalogos/ingestoes`,
 * so hono fell back to its TrieRouter, and every request also ran the handlers of the 405 answers around the
 * operation's own, through hono's middleware chain.
 *
 * 1. A path without parameters is exactly that path: another method there is 405 at once, before a path with a
 *    parameter could take it (GET /v1/catalogos/ingestoes is not GET /v1/catalogos/{id} with id "ingestoes").
 * 2. Otherwise the first operation, in the order of the list, whose method and path template match (HEAD is
 *    routed as GET). A template matches segment by segment: a literal segment is equal, a parameter is any
 *    segment but an empty one, decoded as hono decodes a parameter.
 * 3. Otherwise a path some operation has, with another method: 405 with the methods of the first such path.
 * 4. Otherwise 404.
 *
 * Before them, rule 0: a path with a `.` or `..` segment or an encoded slash or backslash names no operation (see
 * unroutable), nor a control.
 */
import { tryDecodeURIComponent } from 'hono/utils/url';

/**
 * A `.` or `..` segment (`%2e` forms decode to it), an encoded slash (`%2f`, which hono's path keeps encoded) or a
 * backslash (`%5c` decoded, or sent as is), in hono's path.
 */
const STRAY = /\/\.\.?(?:\/|$)|%2f|\\/i;

/**
 * Rule 0: whether `path` (hono's: percent-decoded but for the reserved characters) names no route at all. A URL
 * resolves dot segments, encoded ones included, before anything routes it: over a socket the emulator routes the
 * target as sent (server.ts), and such a path answers 404 instead of reaching the route it would resolve to
 * (`POST /_emulator/companies/%2e%2e/reset` is not the reset of the whole emulator). An encoded slash or backslash
 * would put a separator inside a parameter: no id of the service holds one.
 */
export const unroutable = (path: string): boolean => STRAY.test(path);

interface Routed {
  readonly method: string;
  /** hono's template, e.g. `/v1/catalogos/:id`. */
  readonly path: string;
}

/**
 * A template as its literal runs and its parameters: `/v1/catalogos/:id/produtos` is `/v1/catalogos/`, id,
 * `/produtos`. Matched in place: cutting the request's path into segments cost an array and a string each.
 */
interface Template<T> {
  readonly parts: readonly (string | { readonly param: string })[];
  readonly target: T;
}

export type Route<T> =
  | { readonly kind: 'operation'; readonly target: T; readonly params: Readonly<Record<string, string>> }
  | { readonly kind: 'not_allowed'; readonly allow: string };

const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});

export class Router<T extends Routed> {
  /** Rule 1: the paths without parameters, and the methods each allows. */
  private readonly literal = new Map<string, { readonly methods: readonly string[]; readonly allow: string }>();
  /** Rule 2: by method, the operations in their order. */
  private readonly byMethod = new Map<string, Template<T>[]>();
  /** Rule 3: every path, in the order of their first operation, with its Allow header. */
  private readonly paths: Template<string>[] = [];

  constructor(operations: readonly T[]) {
    const methodsByPath = new Map<string, string[]>();
    for (const op of operations) {
      methodsByPath.set(op.path, [...(methodsByPath.get(op.path) ?? []), op.method]);
      let list = this.byMethod.get(op.method);
      if (!list) this.byMethod.set(op.method, (list = []));
      list.push(compile(op.path, op));
    }
    for (const [path, methods] of methodsByPath) {
      const allowed = [...new Set(methods.includes('GET') ? [...methods, 'HEAD'] : methods)];
      const allow = allowed.join(', ');
      if (!path.includes(':')) this.literal.set(path, { methods: allowed, allow });
      this.paths.push(compile(path, allow));
    }
  }

  /** The route of `method` on `path` (hono's path: percent-decoded but for the reserved characters), or undefined: 404. */
  find(method: string, path: string): Route<T> | undefined {
    if (unroutable(path)) return undefined;
    const literal = this.literal.get(path);
    if (literal !== undefined && !literal.methods.includes(method))
      return { kind: 'not_allowed', allow: literal.allow };
    const templates = this.byMethod.get(method === 'HEAD' ? 'GET' : method);
    if (templates !== undefined) {
      for (const template of templates) {
        const params = match(template, path);
        if (params !== undefined) return { kind: 'operation', target: template.target, params };
      }
    }
    for (const template of this.paths)
      if (match(template, path) !== undefined) return { kind: 'not_allowed', allow: template.target };
    return undefined;
  }
}

function compile<T>(path: string, target: T): Template<T> {
  const parts: (string | { readonly param: string })[] = [];
  for (const [i, segment] of path.split('/').entries()) {
    const text = i === 0 ? segment : `/${segment}`;
    if (segment.startsWith(':')) parts.push('/', { param: segment.slice(1) });
    else parts.push(text);
  }
  // Neighbouring literal runs joined: `/v1` + `/catalogos` + `/` is `/v1/catalogos/`.
  const runs: (string | { readonly param: string })[] = [];
  for (const part of parts) {
    const last = runs.at(-1);
    if (typeof part === 'string' && typeof last === 'string') runs[runs.length - 1] = last + part;
    else runs.push(part);
  }
  return { parts: runs, target };
}

/** A literal run is equal; a parameter is the text up to the next slash, not empty. */
function match(template: Template<unknown>, path: string): Readonly<Record<string, string>> | undefined {
  let at = 0;
  let params: Record<string, string> | undefined;
  for (const part of template.parts) {
    if (typeof part === 'string') {
      if (!path.startsWith(part, at)) return undefined;
      at += part.length;
    } else {
      const slash = path.indexOf('/', at);
      const end = slash < 0 ? path.length : slash;
      if (end === at) return undefined;
      (params ??= {})[part.param] = tryDecodeURIComponent(path.slice(at, end));
      at = end;
    }
  }
  return at === path.length ? (params ?? NO_PARAMS) : undefined;
}
