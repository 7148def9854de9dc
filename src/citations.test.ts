/**
 * The repository explains itself: whatever its comments and docs cite, a clone holds. A comment points to a
 * statement of the specification (`spec: WH-EVT-12`, listed in docs/spec-statements.md), a document of docs/, a
 * section of one by its heading (`docs/journal.md "What a query may cost"`; README.md, CONTRIBUTING.md and
 * ARCHITECTURE.md alike), or a file of the repository; never to a design document, a tracker's issue or a folder
 * beside the clone, which a reader of the project cannot open, nor to a file that is gone, nor to a section its
 * document does not have (the guides moved from the README to docs/: a citation of the old place fails here).
 *
 * Only comments are read in sources (code may well name such things: a test that looks for them, a check that
 * compares a copy with its original when that is present); Markdown and text files are read whole, the README,
 * docs/, CONTRIBUTING.md and ARCHITECTURE.md included.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { stripComments } from './core/testing/source-text.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SCANNED = [
  'src',
  'bin',
  'scripts',
  'spec-tests',
  'examples',
  'bench',
  'fuzz',
  'browser-tests',
  'container',
  'consumers',
  'docs',
];
/** The documents at the repository's root that are read whole too (CHANGELOG.md is history: it names what was). */
const ROOT_DOCUMENTS = ['README.md', 'CONTRIBUTING.md', 'ARCHITECTURE.md'];

/** What no comment may cite, each with why a reader cannot follow it. */
// The names are put together here, so that this file does not itself cite what it refuses.
const DOC = ['DES', 'IGN'].join('');
const OUTSIDE = ['sha', 'red'].join('');
const ABSENT: readonly { readonly pattern: RegExp; readonly why: string }[] = [
  {
    pattern: new RegExp(String.raw`\b${DOC}\b(?:\.md|\s*§\s*\d+(?:[–-]\d+)?)?`, 'g'),
    why: 'a design document the repository does not hold',
  },
  {
    pattern: new RegExp(String.raw`\b${OUTSIDE}\/(?:spec|${DOC}|notes|vectors)\b[\w./-]*`, 'g'),
    why: 'a folder outside the repository',
  },
  { pattern: /\bissues? #?\d+/gi, why: "a tracker's issue" },
  { pattern: /\bhelper(?: context's| context| decisions)\b/gi, why: "a task's notes, not in the repository" },
];

/** A path from the repository root (or `../` from the file) into one of its folders. */
const PATH = new RegExp(`(?<![\\w./-])((?:\\.\\.?/)*(?:${SCANNED.join('|')})/[\\w./-]*[\\w-])`, 'g');

/** Files the project writes and never commits (.gitignore names them): a comment may say where they go. */
const WRITTEN = new Set(
  readFileSync(join(ROOT, '.gitignore'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/[*#]/.test(line)),
);

/**
 * A path that names a file or folder the repository holds, as written (`x.js` may stand for `x.ts`); with `glob`
 * (the path is followed by `*`, as in `bin/remote-*.ts`), one that some file's name begins with.
 */
function exists(file: string, path: string, glob = false): boolean {
  if (WRITTEN.has(path)) return true;
  // A segment in capitals is a placeholder (`examples/PATH`), not a name.
  if (path.split('/').some((segment) => /^[A-Z_]+$/.test(segment))) return true;
  const absolute = path.startsWith('.') ? resolve(ROOT, dirname(file), path) : join(ROOT, path);
  if (glob)
    return (
      existsSync(dirname(absolute)) &&
      readdirSync(dirname(absolute)).some((name) => name.startsWith(basename(absolute)))
    );
  return existsSync(absolute) || (absolute.endsWith('.js') && existsSync(`${absolute.slice(0, -3)}.ts`));
}

/**
 * The comments of a C-like source (TypeScript, JavaScript, Java, CSS), line by line, the code blanked. The
 * project's lexer blanks block comments and drops line comments; literals are kept at their length here, so
 * what differs from the source on a line is its comment.
 */
function cComments(source: string): string[] {
  const code = stripComments(source, (raw) => raw.replace(/[^\n]/g, '\0')).split('\n');
  return source.split('\n').map((line, i) => {
    const kept = code[i] ?? '';
    return [...line].map((ch, j) => (j >= kept.length || (kept[j] === ' ' && ch !== ' ') ? ch : ' ')).join('');
  });
}

/** The comment of each line where a comment runs to the end of the line after `marker` (shell, Python, YAML, Lua). */
const lineComments = (source: string, marker: RegExp) =>
  source.split('\n').map((line, i) => (i === 0 && line.startsWith('#!') ? '' : (marker.exec(line)?.[0] ?? '')));

/** What a file says in prose, line by line, or undefined for a file that has none (JSON, logs, images). */
function proseOf(file: string, text: string): string[] | undefined {
  const extension = file.slice(file.lastIndexOf('.') + 1);
  if (['ts', 'js', 'mjs', 'cjs', 'java', 'css'].includes(extension)) return cComments(text);
  if (['sh', 'py', 'yml', 'yaml'].includes(extension)) return lineComments(text, /(?:^|(?<=\s))#.*$/);
  if (extension === 'lua') return lineComments(text, /--.*$/);
  if (['md', 'txt'].includes(extension)) return text.split('\n');
  return undefined;
}

/**
 * A section cited by its document and name: `README "Install"`, `docs/api.md "Rules every request follows"`,
 * `docs/api.md's "Analyses"`, `(docs/faults.md "Adding a fault")`; a name may go down a level with ` › `
 * (`docs/api.md "Rules every request follows › ETags"`). The closing quote must be on the same line.
 */
const SECTION =
  /\b(README(?:\.md)?|CONTRIBUTING\.md|ARCHITECTURE\.md|docs\/[\w-]+\.md)(?:'s)? (?:section )?\(?"([^"]*)("?)/g;

/** What a citation may name in a Markdown document: its headings, and the bold words that open a paragraph or item. */
function sectionsOf(markdown: string): Set<string> {
  const names = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    if (fenced) continue;
    const heading = /^#{1,6} (.+)$/.exec(line);
    const lead = /^(?:\s*[-*] )?\*\*([^*]+?)\.?\*\*/.exec(line);
    if (heading) names.add(heading[1]!.trim());
    if (lead) names.add(lead[1]!.trim());
  }
  return names;
}

const documents = new Map<string, Set<string> | undefined>();
/** The sections of a document of the repository (from its root), or undefined when there is no such file. */
function sectionsIn(path: string): Set<string> | undefined {
  if (!documents.has(path))
    documents.set(path, existsSync(join(ROOT, path)) ? sectionsOf(readFileSync(join(ROOT, path), 'utf8')) : undefined);
  return documents.get(path);
}

/**
 * Every citation in `text` (the file `file`, from the repository root) a reader of the repository cannot follow.
 * `sections` gives the sections of a cited document (a missing one is the path check's to report).
 */
function citationsIn(
  file: string,
  text: string,
  sections: (path: string) => Set<string> | undefined = sectionsIn,
): string[] {
  const found: string[] = [];
  (proseOf(file, text) ?? []).forEach((line, i) => {
    for (const { pattern, why } of ABSENT)
      for (const m of line.matchAll(pattern)) found.push(`${file}:${i + 1}: "${m[0]}": ${why}`);
    for (const m of line.matchAll(PATH)) {
      const glob = line[m.index + m[0].length] === '*';
      if (!exists(file, m[1]!, glob))
        found.push(`${file}:${i + 1}: "${m[1]}${glob ? '*' : ''}": no such file in the repository`);
    }
    for (const m of line.matchAll(SECTION)) {
      const document = m[1]!.startsWith('README') ? 'README.md' : m[1]!;
      if (m[3] !== '"') {
        found.push(
          `${file}:${i + 1}: ${m[0]}: the cited section's name is cut by the end of the line; keep it on one line`,
        );
        continue;
      }
      const names = sections(document);
      if (names === undefined) continue;
      for (const name of m[2]!.split(' › '))
        if (!names.has(name)) found.push(`${file}:${i + 1}: ${m[0]}: ${document} has no section "${name}"`);
    }
  });
  return found;
}

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules') return [];
    const path = `${dir}/${entry.name}`;
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

describe('the repository cites only what it holds', () => {
  const files = [...SCANNED.flatMap(filesUnder), ...ROOT_DOCUMENTS].sort();

  it('reads the comments of every kind of file it scans', () => {
    const read = files.filter((file) => proseOf(file, '') !== undefined);
    expect(read.length).toBeGreaterThan(400);
    expect(read).toEqual(
      expect.arrayContaining([
        'src/engine/deliveries.ts',
        'bin/catalog-emulator.ts',
        'spec-tests/vectors/README.md',
        'examples/local-server.sh',
        'examples/python/catalog_client.py',
        'examples/java/CatalogClient.java',
        'examples/docker-compose.yml',
        'bench/wrk-patch.lua',
        'examples/cli-help.txt',
      ]),
    );
    // Of a source, what it reads is the comments: this file's header, not its code.
    const own = proseOf('src/citations.test.ts', readFileSync(fileURLToPath(import.meta.url), 'utf8'))!.join('\n');
    expect(own).toContain('listed in docs/spec-statements.md');
    expect(own).not.toContain('stripComments(');
  });

  it('no comment or doc cites a design document, an issue, a folder outside the repository or a missing file', () => {
    const found = files.flatMap((file) => citationsIn(file, readFileSync(join(ROOT, file), 'utf8')));
    if (found.length > 0)
      expect.fail(
        `${found.length} citation(s) of what the repository does not hold; cite a statement (spec: ID), a document of docs/ or a section of one by its heading, README, CONTRIBUTING.md or ARCHITECTURE.md, or say the rule:\n${found.join('\n')}`,
      );
  });
});

/** citationsIn on a sample written with @DOC@ and @OUT@ for the names, its findings written back the same way. */
function cited(file: string, sample: string): string[] {
  const text = sample.replaceAll('@DOC@', DOC).replaceAll('@OUT@', OUTSIDE);
  return citationsIn(file, text).map((line) => line.replaceAll(DOC, '@DOC@').replaceAll(`${OUTSIDE}/`, '@OUT@/'));
}

describe('what counts as such a citation', () => {
  it('in a source, the comments only, block and line alike', () => {
    const source = [
      '/** Rules of @DOC@ §4, once @DOC@.md. */',
      "const a = '@DOC@ §4 in a string is code'; // issue 14",
      'const b = /issue 3/; /* see ../@OUT@/spec/service-spec.md */',
      "// the helper context's decisions (Issue #7), @OUT@/notes/x.md",
      'const c = `@DOC@ §5`;',
      '// src/engine/jobs.ts and src/jobs.ts; ../src/index.js from here; src/engine/ and examples/PATH',
    ].join('\n');
    expect(cited('scripts/sample.ts', source)).toEqual([
      'scripts/sample.ts:1: "@DOC@ §4": a design document the repository does not hold',
      'scripts/sample.ts:1: "@DOC@.md": a design document the repository does not hold',
      'scripts/sample.ts:2: "issue 14": a tracker\'s issue',
      'scripts/sample.ts:3: "@OUT@/spec/service-spec.md": a folder outside the repository',
      'scripts/sample.ts:4: "@OUT@/notes/x.md": a folder outside the repository',
      'scripts/sample.ts:4: "Issue #7": a tracker\'s issue',
      'scripts/sample.ts:4: "helper context\'s": a task\'s notes, not in the repository',
      'scripts/sample.ts:6: "src/jobs.ts": no such file in the repository',
    ]);
  });

  it('in shell, Python, YAML and Lua the comments, in Markdown and text every line; nothing in JSON', () => {
    expect(cited('examples/x.sh', '#!/usr/bin/env bash\necho "issue 3" # @DOC@ §6\n# see bin/gone.ts')).toEqual([
      'examples/x.sh:2: "@DOC@ §6": a design document the repository does not hold',
      'examples/x.sh:3: "bin/gone.ts": no such file in the repository',
    ]);
    expect(cited('bench/x.lua', 'local s = "issue 2" -- issue 4')).toEqual([
      'bench/x.lua:1: "issue 4": a tracker\'s issue',
    ]);
    expect(cited('spec-tests/x.md', 'Copied from `../@OUT@/vectors/`.')).toEqual([
      'spec-tests/x.md:1: "@OUT@/vectors/": a folder outside the repository',
    ]);
    expect(cited('examples/x.json', '{"a": "@DOC@ §4, issue 3"}')).toEqual([]);
  });

  it('a section by a heading or a bold lead of the document named, its name on one line; a path with * by its start', () => {
    const faults = '# Faults\n\n## Adding a fault\n\n**Flaky, repeatably.** Text.\n\n```md\n## Not a heading\n```\n';
    const sections = (path: string) =>
      path === 'docs/faults.md'
        ? sectionsOf(faults)
        : path === 'README.md'
          ? sectionsOf('# catalog-emulator\n\n## Install\n')
          : undefined;
    const source = [
      '// docs/faults.md "Adding a fault", docs/faults.md "Faults › Flaky, repeatably" and README "Install" are there;',
      '// README "The journal" moved, docs/faults.md\'s "Not a heading" is code, (docs/faults.md "Faults › Gone") is not;',
      '// README "The',
      '// journal": cut. examples/worked-example*.ts begin files, examples/no-such-example*.ts none.',
      'const s = \'README "Nothing" in code\';',
    ].join('\n');
    expect(citationsIn('src/x.ts', source, sections)).toEqual([
      'src/x.ts:2: README "The journal": README.md has no section "The journal"',
      'src/x.ts:2: docs/faults.md\'s "Not a heading": docs/faults.md has no section "Not a heading"',
      'src/x.ts:2: docs/faults.md "Faults › Gone": docs/faults.md has no section "Gone"',
      'src/x.ts:3: README "The: the cited section\'s name is cut by the end of the line; keep it on one line',
      'src/x.ts:4: "examples/no-such-example*": no such file in the repository',
    ]);
  });
});
