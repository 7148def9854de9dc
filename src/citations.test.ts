/**
 * The repository explains itself: whatever its comments and docs cite, a clone holds. A comment points to a
 * statement of the specification (`spec: WH-EVT-12`, listed in docs/spec-statements.md), a section of README.md,
 * CONTRIBUTING.md or ARCHITECTURE.md, or a file of the repository; never to a design document, a tracker's issue
 * or a folder beside the clone, which a reader of the project cannot open, nor to a file that is gone.
 *
 * Only comments are read in sources (code may well name such things: a test that looks for them, a check that
 * compares a copy with its original when that is present); Markdown and text files are read whole.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { stripComments } from './core/testing/source-text.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SCANNED = ['src', 'bin', 'scripts', 'spec-tests', 'examples', 'bench', 'fuzz', 'browser-tests', 'container', 'consumers'];

/** What no comment may cite, each with why a reader cannot follow it. */
// The names are put together here, so that this file does not itself cite what it refuses.
const DOC = ['DES', 'IGN'].join('');
const OUTSIDE = ['sha', 'red'].join('');
const ABSENT: readonly { readonly pattern: RegExp; readonly why: string }[] = [
  { pattern: new RegExp(String.raw`\b${DOC}\b(?:\.md|\s*§\s*\d+(?:[–-]\d+)?)?`, 'g'), why: 'a design document the repository does not hold' },
  { pattern: new RegExp(String.raw`\b${OUTSIDE}\/(?:spec|${DOC}|notes|vectors)\b[\w./-]*`, 'g'), why: 'a folder outside the repository' },
  { pattern: /\bissues? #?\d+/gi, why: "a tracker's issue" },
  { pattern: /\bhelper(?: context's| context| decisions)\b/gi, why: "a task's notes, not in the repository" },
];

/** A path from the repository root (or `../` from the file) into one of its folders. */
const PATH = new RegExp(`(?<![\\w./-])((?:\\.\\.?/)*(?:${[...SCANNED, 'docs'].join('|')})/[\\w./-]*[\\w-])`, 'g');

/** Files the project writes and never commits (.gitignore names them): a comment may say where they go. */
const WRITTEN = new Set(
  readFileSync(join(ROOT, '.gitignore'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/[*#]/.test(line)),
);

/** A path that names a file or folder the repository holds, as written (`x.js` may stand for `x.ts`). */
function exists(file: string, path: string): boolean {
  if (WRITTEN.has(path)) return true;
  // A segment in capitals is a placeholder (`examples/PATH`), not a name.
  if (path.split('/').some((segment) => /^[A-Z_]+$/.test(segment))) return true;
  const absolute = path.startsWith('.') ? resolve(ROOT, dirname(file), path) : join(ROOT, path);
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

/** Every citation in `text` (the file `file`, from the repository root) a reader of the repository cannot follow. */
function citationsIn(file: string, text: string): string[] {
  const found: string[] = [];
  (proseOf(file, text) ?? []).forEach((line, i) => {
    for (const { pattern, why } of ABSENT) for (const m of line.matchAll(pattern)) found.push(`${file}:${i + 1}: "${m[0]}": ${why}`);
    for (const m of line.matchAll(PATH)) if (!exists(file, m[1]!)) found.push(`${file}:${i + 1}: "${m[1]}": no such file in the repository`);
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
  const files = SCANNED.flatMap(filesUnder).sort();

  it('reads the comments of every kind of file it scans', () => {
    const read = files.filter((file) => proseOf(file, '') !== undefined);
    expect(read.length).toBeGreaterThan(400);
    expect(read).toEqual(expect.arrayContaining(['src/engine/deliveries.ts', 'bin/catalog-emulator.ts', 'spec-tests/vectors/README.md', 'examples/local-server.sh', 'examples/python/catalog_client.py', 'examples/java/CatalogClient.java', 'examples/docker-compose.yml', 'bench/wrk-patch.lua', 'examples/cli-help.txt']));
    // Of a source, what it reads is the comments: this file's header, not its code.
    const own = proseOf('src/citations.test.ts', readFileSync(fileURLToPath(import.meta.url), 'utf8'))!.join('\n');
    expect(own).toContain('listed in docs/spec-statements.md');
    expect(own).not.toContain('stripComments(');
  });

  it('no comment or doc cites a design document, an issue, a folder outside the repository or a missing file', () => {
    const found = files.flatMap((file) => citationsIn(file, readFileSync(join(ROOT, file), 'utf8')));
    if (found.length > 0) expect.fail(`${found.length} citation(s) of what the repository does not hold; cite a statement (spec: ID), README, CONTRIBUTING.md or ARCHITECTURE.md, or say the rule:\n${found.join('\n')}`);
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
      '// the helper context\'s decisions (Issue #7), @OUT@/notes/x.md',
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
    expect(cited('bench/x.lua', 'local s = "issue 2" -- issue 4')).toEqual(['bench/x.lua:1: "issue 4": a tracker\'s issue']);
    expect(cited('spec-tests/x.md', 'Copied from `../@OUT@/vectors/`.')).toEqual(['spec-tests/x.md:1: "@OUT@/vectors/": a folder outside the repository']);
    expect(cited('examples/x.json', '{"a": "@DOC@ §4, issue 3"}')).toEqual([]);
  });
});
