/**
 * README.md and the documents of docs/ are tested as users read them:
 * - every fenced code block is preceded by `<!-- example: examples/PATH -->` (the whole file) or
 *   `<!-- example: examples/PATH#NAME -->` (the lines between `// #region NAME` and `// #endregion`, or
 *   `# #region NAME` / `# #endregion` in shell, YAML and Python, dedented), and equals it; the one exception is a sample
 *   of output marked `<!-- output -->`. The example files are run or checked by the other tests of examples/, and
 *   every region of examples/ is shown somewhere;
 * - README.md is at most 300 lines, and links docs/README.md (the index) and every document of docs/, as the index does;
 * - a document of docs/ with three or more `##` headings opens with a contents list of its `##` and `###` headings,
 *   in order (the index, docs/README.md, and the two written by tools, conformance.md and spec-statements.md, aside);
 * - every relative link or image is a file `npm pack` ships, and its anchor (`#…`, alone or after a document) names a
 *   heading of that document, by GitHub's slugs (which npm's page uses too);
 * - nothing points outside the package: no internal folder, design document or tracker number.
 * The checks are pure functions of the text; the last describe shows each catching the mistake it is for.
 * CONTRIBUTING.md describes the convention.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { EXAMPLE, exampleText, withExamples } from './doc-examples.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const EXAMPLES = fileURLToPath(new URL('.', import.meta.url));

/** The most lines README.md may have: a page a newcomer reads whole, the rest in docs/. */
const README_MAX_LINES = 300;
/** Documents a tool writes (npm run trace, and the spec's own list): checked for links, not given a contents list. */
const GENERATED = new Set(['docs/conformance.md', 'docs/spec-statements.md']);

/** The fence language each kind of example file is shown in. */
const LANGUAGE: Record<string, string> = {
  ts: 'ts',
  sh: 'sh',
  json: 'json',
  yml: 'yaml',
  txt: 'text',
  cjs: 'js',
  mjs: 'js',
  py: 'python',
  java: 'java',
};

interface Block {
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly language: string;
  readonly content: string;
  /** The closest non-blank line above the opening fence. */
  readonly label: string;
}

interface Heading {
  readonly line: number;
  readonly level: number;
  readonly text: string;
  readonly anchor: string;
}

/** A document as the checks read it: its path from the repository root, its lines, blocks and headings. */
interface Doc {
  readonly name: string;
  readonly lines: readonly string[];
  readonly blocks: readonly Block[];
  readonly headings: readonly Heading[];
  /** The lines outside code blocks, with their 1-based numbers. */
  readonly prose: readonly { readonly line: number; readonly text: string }[];
}

/** Reads a document's fenced blocks and headings (a `#` line inside a block is no heading). */
function parse(name: string, markdown: string): Doc {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  const headings: Heading[] = [];
  const prose: { line: number; text: string }[] = [];
  const seen = new Map<string, number>();
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```(\S*)\s*$/.exec(lines[i]!);
    if (fence) {
      const start = i;
      const body: string[] = [];
      while (++i < lines.length && lines[i] !== '```') body.push(lines[i]!);
      if (i === lines.length) throw new Error(`${name}:${start + 1}: a code block is never closed`);
      let above = start - 1;
      while (above >= 0 && lines[above]!.trim() === '') above--;
      blocks.push({
        line: start + 1,
        language: fence[1]!,
        content: body.join('\n'),
        label: above >= 0 ? lines[above]!.trim() : '',
      });
      continue;
    }
    prose.push({ line: i + 1, text: lines[i]! });
    const heading = /^(#{1,6}) (.+)$/.exec(lines[i]!);
    if (heading) {
      const slug = githubSlug(heading[2]!);
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      headings.push({
        line: i + 1,
        level: heading[1]!.length,
        text: heading[2]!,
        anchor: count === 0 ? slug : `${slug}-${count}`,
      });
    }
  }
  return { name, lines, blocks, headings, prose };
}

/** The anchor GitHub (and npm) give a heading: lower case, punctuation dropped, spaces as hyphens. */
function githubSlug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
    .replace(/ /g, '-');
}

const OUTPUT = '<!-- output -->';

/** Blocks that say neither which example they show nor that they are output; example lines followed by no block. */
function labelProblems(doc: Doc): string[] {
  const unlabelled = doc.blocks
    .filter((block) => !EXAMPLE.test(block.label) && block.label !== OUTPUT)
    .map((block) => `${doc.name}:${block.line}: a block that names no example`);
  const stray = doc.lines.flatMap((line, index) => {
    if (!EXAMPLE.test(line.trim()) && line.trim() !== OUTPUT) return [];
    let next = index + 1;
    while (next < doc.lines.length && doc.lines[next]!.trim() === '') next++;
    return /^```/.test(doc.lines[next] ?? '') ? [] : [`${doc.name}:${index + 1}: an example line no block follows`];
  });
  return [...unlabelled, ...stray];
}

/** A block that differs from the example it names, or is fenced in another language than its file's. */
function blockProblem(block: Block, text: (reference: string) => string): string | undefined {
  const reference = EXAMPLE.exec(block.label)![1]!;
  const extension = /\.(\w+)(?:#|$)/.exec(reference)![1]!;
  if (block.language !== LANGUAGE[extension]) return `fenced as ${block.language}, not ${LANGUAGE[extension]}`;
  return block.content === text(reference) ? undefined : `differs from ${reference}`;
}

/**
 * Whether a document must open with a contents list: one of docs/ with three or more `##` headings, but the index
 * (a list of the documents itself) and the two a tool writes.
 */
const needsContents = (doc: Doc) =>
  doc.name.startsWith('docs/') &&
  doc.name !== 'docs/README.md' &&
  !GENERATED.has(doc.name) &&
  doc.headings.filter((heading) => heading.level === 2).length >= 3;

/** The contents list against the `##` and `###` headings, in order, each with its anchor. */
function contentsProblems(doc: Doc): string[] {
  const start = doc.lines.indexOf('## Contents');
  if (start < 0) return needsContents(doc) ? [`${doc.name}: no "## Contents" list of its ## and ### headings`] : [];
  const end = doc.lines.findIndex((line, index) => index > start && /^## /.test(line));
  const listed = doc.lines.slice(start + 1, end < 0 ? undefined : end).flatMap((line) => {
    const item = /^\s*- \[(.+)\]\(#([^)]+)\)$/.exec(line);
    return item ? [`${item[1]} (#${item[2]})`] : [];
  });
  const wanted = doc.headings
    .filter((heading) => (heading.level === 2 || heading.level === 3) && heading.text !== 'Contents')
    .map((heading) => `${heading.text} (#${heading.anchor})`);
  return JSON.stringify(listed) === JSON.stringify(wanted)
    ? []
    : [`${doc.name}: the contents list ${JSON.stringify(listed)}, the headings are ${JSON.stringify(wanted)}`];
}

/** Every link and image of a document's prose, as written. */
function targetsOf(doc: Doc): { line: number; target: string }[] {
  return doc.prose.flatMap(({ line, text }) => [
    ...[...text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => ({ line, target: match[1]! })),
    ...[...text.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((match) => ({ line, target: match[1]! })),
  ]);
}

/** A relative link's file, from the repository root (or null for a link within the document). */
function fileOf(doc: Doc, target: string): string | null {
  const path = target.replace(/#.*$/, '');
  return path === '' ? null : posix.normalize(posix.join(posix.dirname(doc.name), path));
}

/**
 * Relative links to what the package does not ship, and anchors that name no heading of their document.
 * `read` gives a Markdown file of the repository (parsed), or undefined for one that is not there.
 */
function linkProblems(doc: Doc, shipped: ReadonlySet<string>, read: (name: string) => Doc | undefined): string[] {
  return targetsOf(doc).flatMap(({ line, target }) => {
    if (/^(?:https?:|mailto:)/.test(target)) return [];
    const file = fileOf(doc, target);
    if (file !== null && !shipped.has(file))
      return [`${doc.name}:${line}: ${target}: ${file} is not a file npm pack ships`];
    const anchor = /#(.*)$/.exec(target)?.[1];
    if (anchor === undefined) return [];
    const linked = file === null ? doc : file.endsWith('.md') ? read(file) : undefined;
    if (linked === undefined) return [`${doc.name}:${line}: ${target}: an anchor into what is no Markdown document`];
    return linked.headings.some((heading) => heading.anchor === anchor)
      ? []
      : [`${doc.name}:${line}: ${target}: ${linked.name} has no heading #${anchor}`];
  });
}

/** The documents of docs/ a document does not link (the README's map and the index must link them all). */
function unlinked(doc: Doc, documents: readonly string[]): string[] {
  const linked = new Set(targetsOf(doc).flatMap(({ target }) => fileOf(doc, target) ?? []));
  return documents
    .filter((name) => name !== doc.name && !linked.has(name))
    .map((name) => `${doc.name} does not link ${name}`);
}

/** The README past its bound, in lines as `wc -l` counts them. */
function lengthProblems(doc: Doc): string[] {
  const count = doc.lines.length - (doc.lines.at(-1) === '' ? 1 : 0);
  return doc.name === 'README.md' && count > README_MAX_LINES
    ? [`README.md has ${count} lines, more than ${README_MAX_LINES}`]
    : [];
}

/** Lines that point where a reader of the package cannot follow: an internal folder, a design document, a tracker. */
function internalProblems(doc: Doc): string[] {
  return doc.lines.flatMap((line, index) =>
    [/\.\.\/s[h]ared/, /\bs[h]ared\//, /D[E]SIGN/, /\bissues? #?\d+/i, /(?:^|[\s(])#\d+\b/, /\bspec(?:ification)? §/]
      .filter((pattern) => pattern.test(line))
      .map((pattern) => `${doc.name}:${index + 1} ${pattern}: ${line.trim()}`),
  );
}

const DOC_NAMES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];
const DOCS = DOC_NAMES.map((name) => parse(name, readFileSync(join(ROOT, name), 'utf8')));
const byName = new Map(DOCS.map((doc) => [doc.name, doc]));
const readDoc = (name: string) =>
  byName.get(name) ?? (existsSync(join(ROOT, name)) ? parse(name, readFileSync(join(ROOT, name), 'utf8')) : undefined);
const README = byName.get('README.md')!;
const INDEX = byName.get('docs/README.md')!;

describe('code blocks of the README and docs/', () => {
  test('every block is an example file (or region) or a sample of output, and says which', () => {
    expect(DOCS.flatMap(labelProblems)).toEqual([]);
  });

  const examples = DOCS.flatMap((doc) =>
    doc.blocks
      .filter((block) => EXAMPLE.test(block.label))
      .map((block) => [`${doc.name}:${block.line} ${block.label}`, block] as const),
  );
  test.each(examples)('%s equals its example', (_name, block) => {
    expect(blockProblem(block, exampleText)).toBeUndefined();
  });

  test('every region of examples/ is shown', () => {
    const shown = new Set(DOCS.flatMap((doc) => doc.blocks.flatMap((block) => EXAMPLE.exec(block.label)?.[1] ?? [])));
    // examples/ and its folders (the clients in other languages).
    const files = readdirSync(EXAMPLES, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
    const regions = files.flatMap((entry) => {
      const name = relative(EXAMPLES, join(entry.parentPath, entry.name));
      return [...readFileSync(join(EXAMPLES, name), 'utf8').matchAll(/^\s*(?:\/\/|#) #region ([\w-]+)$/gm)].map(
        (match) => `examples/${name}#${match[1]}`,
      );
    });
    expect(regions.length).toBeGreaterThan(20);
    expect(regions.filter((region) => !shown.has(region))).toEqual([]);
  });
});

describe('the map of the docs', () => {
  test(`README.md is at most ${README_MAX_LINES} lines`, () => {
    expect(lengthProblems(README)).toEqual([]);
  });

  test('README.md and the index, docs/README.md, link every document of docs/', () => {
    const documents = DOC_NAMES.filter((name) => name.startsWith('docs/'));
    expect(documents.length).toBeGreaterThan(20);
    expect([...unlinked(README, documents), ...unlinked(INDEX, documents)]).toEqual([]);
  });

  test('each document of docs/ with three or more ## headings lists its ## and ### headings, in order', () => {
    expect(DOCS.filter(needsContents).length).toBeGreaterThan(5);
    expect(DOCS.flatMap(contentsProblems)).toEqual([]);
  });
});

describe('links of the README and docs/', () => {
  test('every relative link or image is a file npm pack ships, and every anchor a heading of its document', () => {
    const packed = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    const shipped = new Set((JSON.parse(packed) as [{ files: { path: string }[] }])[0].files.map((file) => file.path));
    // Every document is shipped, so that its links work where the package is installed.
    expect(DOC_NAMES.filter((name) => !shipped.has(name))).toEqual([]);
    expect(DOCS.flatMap((doc) => targetsOf(doc)).length).toBeGreaterThan(200);
    expect(DOCS.flatMap((doc) => linkProblems(doc, shipped, readDoc))).toEqual([]);
  }, 60_000);

  test('no internal folder, design document or tracker reference', () => {
    expect(DOCS.flatMap(internalProblems)).toEqual([]);
  });
});

describe('what the checks catch', () => {
  const sample = (name: string, lines: string[]) => parse(name, lines.join('\n'));

  test('a block without its example line, a block that differs from its example, a fence of the wrong language', () => {
    const doc = sample('docs/x.md', [
      '# X',
      '',
      '```sh',
      'npx catalog-emulator',
      '```',
      '',
      '<!-- example: examples/demo.sh#readme -->',
      '',
      '<!-- example: examples/demo.sh#readme -->',
      '```ts',
      'npx catalog-emulator demo',
      '```',
    ]);
    expect(labelProblems(doc)).toEqual([
      'docs/x.md:3: a block that names no example',
      'docs/x.md:7: an example line no block follows',
    ]);
    expect(blockProblem(doc.blocks[1]!, exampleText)).toBe('fenced as ts, not sh');
    expect(blockProblem({ ...doc.blocks[1]!, language: 'sh' }, exampleText)).toBe(
      'differs from examples/demo.sh#readme',
    );
    expect(
      blockProblem({ ...doc.blocks[1]!, language: 'sh', content: exampleText('examples/demo.sh#readme') }, exampleText),
    ).toBeUndefined();
  });

  test('npm run docs:examples writes a stale block from its example, and leaves output and unnamed blocks alone', () => {
    const shown = exampleText('examples/demo.sh#readme');
    const stale = [
      '# X',
      '',
      '<!-- example: examples/demo.sh#readme -->',
      '```sh',
      'npx catalog-emulator old',
      '```',
      '',
      '<!-- output -->',
      '```text',
      'kept',
      '```',
      '',
      '```sh',
      'unnamed',
      '```',
    ];
    const written = withExamples(stale.join('\n')).split('\n');
    expect(written).toEqual([
      '# X',
      '',
      '<!-- example: examples/demo.sh#readme -->',
      '```sh',
      ...shown.split('\n'),
      '```',
      ...stale.slice(6),
    ]);
    const doc = parse('docs/x.md', written.join('\n'));
    expect(blockProblem(doc.blocks[0]!, exampleText)).toBeUndefined();
    expect(withExamples(written.join('\n'))).toBe(written.join('\n'));
  });

  test('a contents list missing a heading or out of order, and a long document without one', () => {
    const headings = ['## Contents', '', '- [B](#b)', '- [A](#a)', '', '## A', '', '### A.1', '', '## B'];
    expect(contentsProblems(sample('docs/x.md', ['# X', '', ...headings]))).toEqual([
      'docs/x.md: the contents list ["B (#b)","A (#a)"], the headings are ["A (#a)","A.1 (#a1)","B (#b)"]',
    ]);
    expect(
      contentsProblems(
        sample('docs/x.md', [
          '# X',
          '',
          '## Contents',
          '',
          '- [A](#a)',
          '  - [A.1](#a1)',
          '- [B](#b)',
          '',
          '## A',
          '',
          '### A.1',
          '',
          '## B',
        ]),
      ),
    ).toEqual([]);
    expect(contentsProblems(sample('docs/x.md', ['# X', '## A', '## B', '## C']))).toEqual([
      'docs/x.md: no "## Contents" list of its ## and ### headings',
    ]);
    expect(contentsProblems(sample('docs/conformance.md', ['# X', '## A', '## B', '## C']))).toEqual([]);
    expect(contentsProblems(sample('README.md', ['# X', '## A', '## B', '## C']))).toEqual([]);
    expect(contentsProblems(sample('docs/README.md', ['# X', '## A', '## B', '## C']))).toEqual([]);
  });

  test('a link to a missing anchor, to an anchor of another document that has no such heading, to what is not shipped', () => {
    const other = sample('docs/faults.md', ['# Faults', '', '## Why a fault has not fired']);
    const doc = sample('docs/x.md', [
      '# X',
      '[here](#x) [gone](#y) [there](faults.md#why-a-fault-has-not-fired) [not there](faults.md#faults-1)',
      '[up](../README.md#install) [out](../src/index.ts) ![shot](images/a.png) [web](https://example.com/#z)',
    ]);
    const shipped = new Set(['README.md', 'docs/faults.md', 'docs/images/a.png']);
    const read = (name: string) =>
      name === 'docs/faults.md'
        ? other
        : name === 'README.md'
          ? sample('README.md', ['# catalog-emulator', '## Install'])
          : undefined;
    expect(linkProblems(doc, shipped, read)).toEqual([
      'docs/x.md:2: #y: docs/x.md has no heading #y',
      'docs/x.md:2: faults.md#faults-1: docs/faults.md has no heading #faults-1',
      'docs/x.md:3: ../src/index.ts: src/index.ts is not a file npm pack ships',
    ]);
  });

  test('a document of docs/ the map does not link, an internal reference, and the README past its bound', () => {
    const map = sample('README.md', ['[Faults](docs/faults.md#faults), [the index](docs/README.md)']);
    expect(unlinked(map, ['docs/README.md', 'docs/faults.md', 'docs/journal.md'])).toEqual([
      'README.md does not link docs/journal.md',
    ]);
    // Written in parts, so that this file names no such document itself.
    const internal = ['As DES', 'IGN says (iss', 'ue 36), see ../sh', 'ared/spec.'].join('');
    expect(internalProblems(sample('docs/x.md', ['# X', internal]))).toEqual([
      `docs/x.md:2 /\\.\\.\\/s[h]ared/: ${internal}`,
      `docs/x.md:2 /\\bs[h]ared\\//: ${internal}`,
      `docs/x.md:2 /D[E]SIGN/: ${internal}`,
      `docs/x.md:2 /\\bissues? #?\\d+/i: ${internal}`,
    ]);
    const lines = (count: number) => Array.from({ length: count }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    expect(lengthProblems(parse('README.md', lines(README_MAX_LINES)))).toEqual([]);
    expect(lengthProblems(parse('README.md', lines(README_MAX_LINES + 1)))).toEqual([
      `README.md has ${README_MAX_LINES + 1} lines, more than ${README_MAX_LINES}`,
    ]);
    expect(lengthProblems(parse('docs/cli.md', lines(README_MAX_LINES + 1)))).toEqual([]);
  });
});
