/**
 * README.md is tested as users read it:
 * - every fenced code block is preceded by `<!-- example: examples/PATH -->` (the whole file) or
 *   `<!-- example: examples/PATH#NAME -->` (the lines between `// #region NAME` and `// #endregion`, or
 *   `# #region NAME` / `# #endregion` in shell, YAML and Python, dedented), and equals it; the one exception is a sample
 *   of output marked `<!-- output -->`. The example files are run or checked by the other tests of examples/;
 * - the table of contents lists every `##` and `###` heading, in order, and no link points to a missing anchor;
 * - nothing points outside the package: no internal folder, design document or tracker number, and every
 *   relative link or image is a file `npm pack` ships.
 * CONTRIBUTING.md describes the convention.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const EXAMPLES = fileURLToPath(new URL('.', import.meta.url));
const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

/** The fence language each kind of example file is shown in. */
const LANGUAGE: Record<string, string> = { ts: 'ts', sh: 'sh', json: 'json', yml: 'yaml', txt: 'text', cjs: 'js', mjs: 'js', py: 'python', java: 'java' };

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

/** Reads README.md's fenced blocks and headings (a `#` line inside a block is no heading). */
function parse(markdown: string): { blocks: Block[]; headings: Heading[]; prose: string[] } {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  const headings: Heading[] = [];
  const prose: string[] = [];
  const seen = new Map<string, number>();
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```(\S*)\s*$/.exec(lines[i]!);
    if (fence) {
      const start = i;
      const body: string[] = [];
      while (++i < lines.length && lines[i] !== '```') body.push(lines[i]!);
      if (i === lines.length) throw new Error(`README.md:${start + 1}: a code block is never closed`);
      let above = start - 1;
      while (above >= 0 && lines[above]!.trim() === '') above--;
      blocks.push({ line: start + 1, language: fence[1]!, content: body.join('\n'), label: above >= 0 ? lines[above]!.trim() : '' });
      continue;
    }
    prose.push(lines[i]!);
    const heading = /^(#{1,6}) (.+)$/.exec(lines[i]!);
    if (heading) {
      const slug = githubSlug(heading[2]!);
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      headings.push({ line: i + 1, level: heading[1]!.length, text: heading[2]!, anchor: count === 0 ? slug : `${slug}-${count}` });
    }
  }
  return { blocks, headings, prose };
}

/** The anchor GitHub (and npm) give a heading: lower case, punctuation dropped, spaces as hyphens. */
function githubSlug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
    .replace(/ /g, '-');
}

/** The text a `<!-- example: … -->` line names: a whole file, or one region of it, dedented. */
function exampleText(reference: string): string {
  const [path, region] = reference.split('#') as [string, string | undefined];
  const file = new URL(`../${path}`, import.meta.url);
  if (!existsSync(file)) throw new Error(`${path} does not exist`);
  const text = readFileSync(file, 'utf8');
  if (region === undefined) return text.replace(/\n$/, '');
  const lines = text.split('\n');
  const open = lines.findIndex((line) => new RegExp(`^\\s*(//|#) #region ${region}$`).test(line));
  if (open < 0) throw new Error(`${path} has no region "${region}"`);
  const close = lines.findIndex((line, index) => index > open && /^\s*(\/\/|#) #endregion$/.test(line));
  if (close < 0) throw new Error(`${path}: region "${region}" is never closed`);
  const body = lines.slice(open + 1, close);
  const indent = Math.min(...body.filter((line) => line.trim() !== '').map((line) => /^ */.exec(line)![0].length));
  return body.map((line) => line.slice(indent)).join('\n');
}

const { blocks, headings, prose } = parse(README);
const EXAMPLE = /^<!-- example: (examples\/[\w./-]+(?:#[\w-]+)?) -->$/;

describe('README code blocks', () => {
  test('every block is an example file (or region) or a sample of output, and says which', () => {
    const unlabelled = blocks.filter((block) => !EXAMPLE.test(block.label) && block.label !== '<!-- output -->').map((block) => `README.md:${block.line}`);
    expect(unlabelled).toEqual([]);
  });

  test.each(blocks.filter((block) => EXAMPLE.test(block.label)).map((block) => [`README.md:${block.line} ${block.label}`, block] as const))(
    '%s equals its example',
    (_name, block) => {
      const reference = EXAMPLE.exec(block.label)![1]!;
      const extension = /\.(\w+)(?:#|$)/.exec(reference)![1]!;
      expect(block.language, `the fence language of ${reference}`).toBe(LANGUAGE[extension]);
      expect(block.content).toBe(exampleText(reference));
    },
  );

  test('every example comment is followed by a block, and every region of examples/ is shown', () => {
    const lines = README.split('\n');
    const stray = lines.flatMap((line, index) => {
      if (!EXAMPLE.test(line.trim()) && line.trim() !== '<!-- output -->') return [];
      let next = index + 1;
      while (next < lines.length && lines[next]!.trim() === '') next++;
      return /^```/.test(lines[next] ?? '') ? [] : [`README.md:${index + 1}`];
    });
    expect(stray).toEqual([]);
    const shown = new Set(blocks.map((block) => EXAMPLE.exec(block.label)?.[1]).filter((reference) => reference !== undefined));
    // examples/ and its folders (the clients in other languages).
    const files = readdirSync(new URL('.', import.meta.url), { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
    const regions = files.flatMap((entry) => {
      const name = relative(EXAMPLES, join(entry.parentPath, entry.name));
      return [...readFileSync(join(EXAMPLES, name), 'utf8').matchAll(/^\s*(?:\/\/|#) #region ([\w-]+)$/gm)].map((match) => `examples/${name}#${match[1]}`);
    });
    expect(regions.filter((region) => !shown.has(region))).toEqual([]);
  });
});

describe('README table of contents and anchors', () => {
  test('the contents list every ## and ### heading, in order, each with its anchor', () => {
    const start = README.indexOf('\n## Contents\n');
    expect(start).toBeGreaterThan(0);
    const contents = README.slice(start + '\n## Contents\n'.length, README.indexOf('\n## ', start + 1));
    const listed = [...contents.matchAll(/^\s*- \[(.+)\]\(#([^)]+)\)$/gm)].map((match) => ({ text: match[1], anchor: match[2] }));
    const wanted = headings.filter((heading) => (heading.level === 2 || heading.level === 3) && heading.text !== 'Contents');
    expect(listed).toEqual(wanted.map((heading) => ({ text: heading.text, anchor: heading.anchor })));
  });

  test('every link to an anchor of the README names a heading that exists', () => {
    const anchors = new Set(headings.map((heading) => heading.anchor));
    const links = prose.flatMap((line) => [...line.matchAll(/\]\(#([^)]+)\)/g)].map((match) => match[1]!));
    expect(links.length).toBeGreaterThan(0);
    expect([...new Set(links)].filter((anchor) => !anchors.has(anchor))).toEqual([]);
  });
});

describe('README points only to what the package holds', () => {
  test('no internal folder, design document or tracker reference', () => {
    const problems = README.split('\n').flatMap((line, index) =>
      [/\.\.\/shared/, /\bshared\//, /DESIGN/, /\bissues? #?\d+/i, /(?:^|[\s(])#\d+\b/, /\bspec(?:ification)? §/]
        .filter((pattern) => pattern.test(line))
        .map((pattern) => `README.md:${index + 1} ${pattern}: ${line.trim()}`),
    );
    expect(problems).toEqual([]);
  });

  test('every relative link or image is a file npm pack ships', () => {
    const packed = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' });
    const files = new Set((JSON.parse(packed) as [{ files: { path: string }[] }])[0].files.map((file) => file.path));
    const targets = prose.flatMap((line) => [
      ...[...line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1]!),
      ...[...line.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((match) => match[1]!),
    ]);
    const relative = targets.filter((target) => !/^(?:https?:|mailto:|#)/.test(target)).map((target) => target.replace(/^\.\//, '').replace(/#.*$/, ''));
    expect(relative.filter((target) => !files.has(target))).toEqual([]);
  }, 60_000);
});
