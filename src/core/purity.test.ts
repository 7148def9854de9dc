/**
 * src/core is the pure functional core: every instant comes from the shell's clock and every random value
 * from the seeded source, and it does no I/O. tsconfig.core.json keeps Node and DOM types out; this test
 * catches what the types cannot (Date.now, Math.random, argument-less new Date, imports from outside).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { stripComments } from './testing/source-text.js';

const CORE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(CORE, '../..');
const WHY =
  'src/core must be deterministic and free of I/O: take time from Context.now, randomness from Context.random, and leave I/O to the shell';

interface Violation {
  readonly file: string;
  readonly line: number;
  readonly rule: string;
  readonly text: string;
}

interface Rule {
  readonly name: string;
  readonly pattern: RegExp;
}

const RULES: readonly Rule[] = [
  { name: 'Date.now() (read the time from Context.now)', pattern: /\bDate\s*\.\s*now\b/ },
  { name: 'argument-less new Date() (build dates from an Instant)', pattern: /\bnew\s+Date\s*(?:\(\s*\)|(?![\s(]))/ },
  { name: 'Math.random() (use the seeded RandomSource)', pattern: /\bMath\s*\.\s*random\b/ },
  { name: 'setTimeout() (schedule on the VirtualClock in the shell)', pattern: /\bsetTimeout\s*\(/ },
  { name: 'setInterval() (schedule on the VirtualClock in the shell)', pattern: /\bsetInterval\s*\(/ },
  { name: 'setImmediate() (schedule on the VirtualClock in the shell)', pattern: /\bsetImmediate\s*\(/ },
  { name: 'process. (environment and process I/O belong to the shell)', pattern: /\bprocess\s*\./ },
  { name: 'console. (logging is I/O; return data instead)', pattern: /\bconsole\s*\./ },
];

/** Module specifiers of static imports and re-exports, side-effect imports, dynamic import() and require(). */
function specifiers(code: string): { specifier: string; index: number }[] {
  const found: { specifier: string; index: number }[] = [];
  const patterns = [
    /\b(?:import|export)\s[^'"`;]*?\bfrom\s*(['"])([^'"]+)\1/g,
    /\bimport\s*(['"])([^'"]+)\1/g,
    /\bimport\s*\(\s*(['"`])([^'"`]+)\1/g,
    /\brequire\s*\(\s*(['"`])([^'"`]+)\1/g,
  ];
  for (const pattern of patterns)
    for (const m of code.matchAll(pattern)) found.push({ specifier: m[2]!, index: m.index + m[0].lastIndexOf(m[2]!) });
  // import(nonLiteral) cannot be checked: refuse it outright.
  for (const m of code.matchAll(/\bimport\s*\(\s*(?!['"`])/g))
    found.push({ specifier: '<computed import()>', index: m.index });
  return found;
}

/** Every rule `source` (the text of `file`, a path inside `coreDir`) breaks. */
function checkPurity(file: string, source: string, coreDir: string): Violation[] {
  const code = stripComments(source);
  const lines = code.split('\n');
  const violations: Violation[] = [];
  lines.forEach((text, n) => {
    for (const rule of RULES)
      if (rule.pattern.test(text))
        violations.push({ file, line: n + 1, rule: rule.name, text: source.split('\n')[n]!.trim() });
  });
  for (const { specifier, index } of specifiers(code)) {
    const relativeOk = specifier.startsWith('./') || specifier.startsWith('../');
    const target = resolve(dirname(file), specifier);
    const inside = relativeOk && (target === coreDir || target.startsWith(coreDir + sep));
    if (!inside) {
      const line = code.slice(0, index).split('\n').length;
      violations.push({
        file,
        line,
        rule: `import of "${specifier}" (the core imports only relative modules inside src/core; no hono, zod or node:*)`,
        text: source.split('\n')[line - 1]!.trim(),
      });
    }
  }
  return violations.sort((a, b) => a.line - b.line);
}

function coreFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && path === join(CORE, 'testing')) continue; // src/core/testing: test support, never shipped
    if (entry.isDirectory()) out.push(...coreFiles(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) out.push(path);
  }
  return out.sort();
}

const describeViolation = (v: Violation) => `${relative(ROOT, v.file)}:${v.line}: ${v.rule}\n    ${v.text}`;

describe('src/core is pure', () => {
  const files = coreFiles(CORE);

  it('has the core modules to check', () => {
    const names = files.map((f) => relative(CORE, f));
    expect(names).toEqual(
      expect.arrayContaining(['cnpj.ts', 'random.ts', 'time.ts', 'idempotency.ts', 'state.ts', 'versioning.ts']),
    );
  });

  it.each(files.map((f) => [relative(ROOT, f), f] as const))(
    '%s reads no clock, no Math.random, no timers, no process or console, and imports only the core',
    (_, file) => {
      const violations = checkPurity(file, readFileSync(file, 'utf8'), CORE);
      if (violations.length > 0) {
        expect.fail(
          `${violations.length} purity violation(s): ${WHY}.\n${violations.map(describeViolation).join('\n')}`,
        );
      }
    },
  );

  it('tsconfig.core.json type-checks src/core without Node or DOM types ("types": [])', () => {
    const path = join(ROOT, 'tsconfig.core.json');
    expect(
      existsSync(path),
      'tsconfig.core.json is missing: it keeps Node types (fetch, timers, Buffer, node:*) out of src/core',
    ).toBe(true);
    const config = JSON.parse(stripComments(readFileSync(path, 'utf8'))) as {
      compilerOptions?: { types?: unknown; lib?: unknown };
      include?: unknown;
    };
    expect(config.compilerOptions?.types).toEqual([]);
    expect(config.include).toEqual(expect.arrayContaining(['src/core']));
    expect(JSON.stringify(config.compilerOptions?.lib ?? []).toLowerCase()).not.toContain('dom');
  });
});

describe('the purity checker itself', () => {
  const file = join(CORE, 'sample.ts');
  const rulesOf = (source: string) => checkPurity(file, source, CORE).map((v) => `${v.line} ${v.rule.split(' (')[0]}`);

  it('flags each forbidden construct with its line', () => {
    const source = [
      'const a = Date.now();',
      'const b = new Date();',
      'const c = Math.random();',
      'setTimeout(() => 1, 5);',
      'setInterval(f, 5);',
      'setImmediate(f);',
      'const d = process.env.X;',
      'console.log(1);',
      'const e = new Date;',
    ].join('\n');
    expect(rulesOf(source)).toEqual([
      '1 Date.now()',
      '2 argument-less new Date()',
      '3 Math.random()',
      '4 setTimeout()',
      '5 setInterval()',
      '6 setImmediate()',
      '7 process.',
      '8 console.',
      '9 argument-less new Date()',
    ]);
  });

  it('flags imports that are not relative or that leave src/core, and names the file and line in the message', () => {
    const source = [
      "import { Hono } from 'hono';",
      "import { z } from 'zod';",
      "import { readFileSync } from 'node:fs';",
      "import type { X } from '../http/runtime.js';",
      "export { y } from '../clock/clock.js';",
      "import './side-effect.js';",
      "import 'fs';",
      "const m = await import('node:crypto');",
      "import { ok } from './refusal.js';",
      "import type { State } from './state.js';",
    ].join('\n');
    const violations = checkPurity(file, source, CORE);
    expect(violations.map((v) => v.line)).toEqual([1, 2, 3, 4, 5, 7, 8]);
    expect(describeViolation(violations[0]!)).toBe(
      `src/core/sample.ts:1: import of "hono" (the core imports only relative modules inside src/core; no hono, zod or node:*)\n    import { Hono } from 'hono';`,
    );
  });

  it('ignores comments and allows new Date(instant)', () => {
    const source = [
      '// never call Date.now() or Math.random() here',
      '/* console.log(process.env) */',
      'const s = new Date(instant).toISOString();',
      'const t = new Date(0);',
    ].join('\n');
    expect(rulesOf(source)).toEqual([]);
  });

  it('keeps line numbers after a block comment and is not fooled by // or quotes inside strings and regexes', () => {
    const source = [
      "const url = 'https://x';",
      '/*',
      ' * a',
      ' */',
      'const re = /"[/]/;',
      "const q = '\"';",
      'Math.random();',
    ].join('\n');
    expect(rulesOf(source)).toEqual(['7 Math.random()']);
  });
});
