/**
 * Finds which spec statements each test says it checks. A test carries `spec: ID` in its name or in a comment on
 * the line(s) directly above its `it(`/`test(`; the same on a `describe` applies to every test inside it. After
 * `spec:` (up to the end of the name or of that comment line) every statement id counts, ranges `PROD-16..PROD-20`
 * (or `PROD-16..20`) and lists (`CAT-01, CAT-02`, `PROD-05/PROD-23`) included.
 *
 * Test files are read with the TypeScript parser, not with regular expressions, so that names spanning lines,
 * template literals and `it.each(…)(…)` are found where they are; nothing is executed.
 */
import ts from 'typescript';

const ID = /\b([A-Z]+(?:-[A-Z]+)*)-(\d{2,})\b(?:\.\.(?:([A-Z]+(?:-[A-Z]+)*)-)?(\d{2,})\b)?/g;

/** The statement ids a tag text cites, in order of appearance, ranges expanded, without repeats. */
export function idsIn(tag: string): string[] {
  const ids: string[] = [];
  for (const match of tag.matchAll(ID)) {
    const [whole, prefix, first, endPrefix, last] = match as unknown as [
      string,
      string,
      string,
      string | undefined,
      string | undefined,
    ];
    if (last === undefined) {
      ids.push(`${prefix}-${first}`);
      continue;
    }
    const from = Number(first);
    const to = Number(last);
    if ((endPrefix !== undefined && endPrefix !== prefix) || to < from)
      throw new Error(`"${whole}" is not a range of one kind of statement`);
    for (let n = from; n <= to; n++) ids.push(`${prefix}-${String(n).padStart(first.length, '0')}`);
  }
  return [...new Set(ids)];
}

/** The ids every `spec:` of a test name cites (the rest of the name after each `spec:`). */
export function idsInName(name: string): string[] {
  const parts = name.split(/\bspec:/).slice(1);
  return [...new Set(parts.flatMap(idsIn))];
}

/** The ids every `spec:` of a comment block cites (the rest of the line after each `spec:`). */
function idsInComments(lines: readonly string[]): string[] {
  const ids: string[] = [];
  for (const line of lines) {
    for (const part of line.split(/\bspec:/).slice(1)) ids.push(...idsIn(part));
  }
  return [...new Set(ids)];
}

/** One part of a test's or a suite's name: literal text, or a stretch only known when the test runs. */
export type NamePart = { readonly text: string } | { readonly unknown: string };

export interface ScannedTest {
  /** Path from the repository root, with `/`. */
  readonly file: string;
  /** 1-based line of the `it(`/`test(` call. */
  readonly line: number;
  /** The enclosing `describe` names, outermost first, then the test's own name. */
  readonly names: readonly (readonly NamePart[])[];
  /** Ids the test carries, its own and its suites', without repeats. */
  readonly ids: readonly string[];
}

const TEST = new Set(['it', 'test']);
const SUITE = new Set(['describe', 'suite']);
/** Modifiers that return the function itself or a function taking the same (name, fn) arguments. */
const MODIFIERS = new Set([
  'only',
  'skip',
  'todo',
  'concurrent',
  'sequential',
  'fails',
  'each',
  'for',
  'skipIf',
  'runIf',
  'shuffle',
]);

/** `it`, `it.concurrent`, `it.each(table)`, `it.skipIf(c)`…: the kind of call and whether its name is a printf-style template. */
function calleeKind(callee: ts.Expression): { kind: 'test' | 'suite'; templated: boolean } | undefined {
  let node = callee;
  let templated = false;
  for (;;) {
    if (ts.isIdentifier(node)) {
      if (TEST.has(node.text)) return { kind: 'test', templated };
      if (SUITE.has(node.text)) return { kind: 'suite', templated };
      return undefined;
    }
    if (ts.isPropertyAccessExpression(node) && MODIFIERS.has(node.name.text)) {
      if (node.name.text === 'each' || node.name.text === 'for') templated = true;
      node = node.expression;
      continue;
    }
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      MODIFIERS.has(node.expression.name.text)
    ) {
      node = node.expression;
      continue;
    }
    return undefined;
  }
}

/** `%s`, `%d`, `$name`… of an `.each`/`.for` name: filled in per row. */
const PRINTF = /%[sdifjoO#%]|\$[\w.]+/g;

function literalParts(text: string, templated: boolean): NamePart[] {
  if (!templated) return [{ text }];
  const parts: NamePart[] = [];
  let at = 0;
  for (const match of text.matchAll(PRINTF)) {
    if (match.index > at) parts.push({ text: text.slice(at, match.index) });
    parts.push(match[0] === '%%' ? { text: '%' } : { unknown: match[0] });
    at = match.index + match[0].length;
  }
  if (at < text.length) parts.push({ text: text.slice(at) });
  return parts;
}

function nameParts(node: ts.Expression | undefined, source: ts.SourceFile, templated: boolean): NamePart[] {
  if (node === undefined) return [{ unknown: '?' }];
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return literalParts(node.text, templated);
  if (ts.isTemplateExpression(node)) {
    const parts: NamePart[] = [...literalParts(node.head.text, templated)];
    for (const span of node.templateSpans) {
      parts.push({ unknown: `\${${span.expression.getText(source)}}` });
      parts.push(...literalParts(span.literal.text, templated));
    }
    return parts;
  }
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    return [...nameParts(node.left, source, templated), ...nameParts(node.right, source, templated)];
  }
  if (ts.isParenthesizedExpression(node)) return nameParts(node.expression, source, templated);
  return [{ unknown: node.getText(source) }];
}

/** The name as written, `${…}` and `%s` standing for what is only known at run time. */
export function nameText(parts: readonly NamePart[]): string {
  return parts.map((p) => ('text' in p ? p.text : p.unknown)).join('');
}

/** The comment lines directly above `line` (0-based), nearest last; a blank or code line ends them. */
function commentLinesAbove(lines: readonly string[], line: number): string[] {
  const found: string[] = [];
  let inBlock = false;
  for (let i = line - 1; i >= 0; i--) {
    const text = lines[i]!.trim();
    if (text.endsWith('*/') && !text.startsWith('//')) {
      inBlock = !text.startsWith('/*');
      found.unshift(text);
      continue;
    }
    if (inBlock) {
      found.unshift(text);
      if (text.startsWith('/*')) inBlock = false;
      continue;
    }
    if (text.startsWith('//')) {
      found.unshift(text);
      continue;
    }
    break;
  }
  return found;
}

/** Every test of one file, with the ids it carries. */
export function scanTestFile(file: string, code: string): ScannedTest[] {
  const source = ts.createSourceFile(file, code, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const lines = code.split('\n');
  const tests: ScannedTest[] = [];

  const visit = (node: ts.Node, suites: readonly (readonly NamePart[])[], inherited: readonly string[]): void => {
    if (ts.isCallExpression(node)) {
      const kind = calleeKind(node.expression);
      if (kind) {
        const parts = nameParts(node.arguments[0], source, kind.templated);
        const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const own = [...idsInName(nameText(parts)), ...idsInComments(commentLinesAbove(lines, line))];
        const ids = [...new Set([...inherited, ...own])];
        if (kind.kind === 'test') {
          tests.push({ file, line: line + 1, names: [...suites, parts], ids });
          return;
        }
        for (const argument of node.arguments.slice(1)) visit(argument, [...suites, parts], ids);
        return;
      }
    }
    ts.forEachChild(node, (child) => visit(child, suites, inherited));
  };
  visit(source, [], []);
  return tests;
}

/** Whether a name as vitest reports it fits the parts found in the source. */
export function nameMatches(parts: readonly NamePart[], actual: string): boolean {
  const pattern = parts.map((p) => ('text' in p ? p.text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : '[^]*?')).join('');
  return new RegExp(`^${pattern}$`).test(actual);
}
