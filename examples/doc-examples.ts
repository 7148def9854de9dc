/**
 * The examples the documents show: a fenced block of README.md or docs/*.md preceded by
 * `<!-- example: examples/PATH -->` (the whole file) or `<!-- example: examples/PATH#NAME -->` (the lines between
 * `// #region NAME` and `// #endregion`, or `# #region NAME` / `# #endregion`, dedented) shows that text exactly.
 * examples/readme.test.ts checks that every block equals its example; `npm run docs:examples` writes the blocks from
 * the examples after an example changed (or the formatter changed it).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The line above a block that names the example it shows (its reference in group 1). */
export const EXAMPLE = /^<!-- example: (examples\/[\w./-]+(?:#[\w-]+)?) -->$/;

/** The text a `<!-- example: … -->` line names: a whole file, or one region of it, dedented. */
export function exampleText(reference: string): string {
  const [path, region] = reference.split('#') as [string, string | undefined];
  const file = join(ROOT, path);
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

/**
 * `markdown` with every block that names an example replaced by that example's text (the fence and its language
 * kept); the blocks marked `<!-- output -->` and all prose untouched.
 */
export function withExamples(markdown: string): string {
  const lines = markdown.split('\n');
  const out: string[] = [];
  let reference: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const named = EXAMPLE.exec(line.trim());
    if (named) reference = named[1];
    else if (/^```\S*\s*$/.test(line) && reference !== undefined) {
      out.push(line, ...exampleText(reference).split('\n'));
      while (++i < lines.length && lines[i] !== '```');
      out.push('```');
      reference = undefined;
      continue;
    } else if (line.trim() !== '') reference = undefined;
    out.push(line);
  }
  return out.join('\n');
}
