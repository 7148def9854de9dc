/**
 * No test asserts elapsed time, wall or CPU (CONTRIBUTING.md "Tests"): a bound on how long something took fails on a
 * machine another suite loads, and a lower bound on a real delay proves less than the delay's own timer does. Cost is
 * proven by counted steps, waits by fake timers or by what the code tells, and speed is `npm run bench`'s.
 *
 * This test reads every test file of the suite and refuses an `expect(…)` whose subject holds a reading of the
 * machine's time: performance.now(), Date.now(), argument-less new Date(), process.hrtime(), process.cpuUsage(),
 * process.resourceUsage(), process.uptime() or a monitorEventLoopDelay() histogram, directly or through what the same
 * file derives from one: a variable or field assigned from it (`took = performance.now() - started`, `{ ms }`), an
 * array it is pushed to, a function that returns it (or resolves a promise with it). What it cannot see: a reading
 * derived in another file (a helper module's), one passed on as an argument, an assertion made without expect (an
 * `if … throw`, which is how a hang guard waits: "not within 20 s"), a reading on a matcher's side (a clock value
 * between two readings is no elapsed time), and a test's own time-out. Variables and functions are followed by
 * scope; a field by its name alone, whatever object holds it; a helper that answers an object holding a reading
 * taints all it answers (take the timing out of the helper).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Where test files are: every folder of the repository that holds some. */
const SCANNED = [
  ...['src', 'bin', 'scripts', 'spec-tests', 'examples'],
  ...['bench', 'fuzz', 'browser-tests', 'container', 'consumers'],
];
const TEST_FILE = /\.test\.[cm]?[jt]s$/;

/** The readings of the machine's time: `object.name(…)` calls, and `new Date()` without arguments. */
const READINGS: readonly (readonly [object: string, name: string])[] = [
  ['performance', 'now'],
  ['Date', 'now'],
  ['process', 'hrtime'],
  ['process', 'cpuUsage'],
  ['process', 'resourceUsage'],
  ['process', 'uptime'],
  ['performance', 'getEntries'],
  ['performance', 'getEntriesByName'],
  ['performance', 'getEntriesByType'],
  ['performance', 'measure'],
];

/** Text without which a file reads no time (a cheap look before parsing it). */
const MAY_READ = new RegExp(
  [
    String.raw`\b(?:performance|Date)\s*\.\s*(?:now|getEntries\w*|measure)\b`,
    String.raw`\b(?:hrtime|cpuUsage|resourceUsage|uptime|monitorEventLoopDelay)\b`,
    String.raw`\bnew\s+Date\s*\(\s*\)`,
  ].join('|'),
);

/** Whether `node` reads the machine's time: a call of READINGS or monitorEventLoopDelay, or `new Date()`. */
function reading(node: ts.Node): boolean {
  if (ts.isNewExpression(node)) {
    return ts.isIdentifier(node.expression) && node.expression.text === 'Date' && (node.arguments?.length ?? 0) === 0;
  }
  if (!ts.isCallExpression(node)) return false;
  let callee = node.expression;
  // process.hrtime.bigint()
  if (ts.isPropertyAccessExpression(callee) && callee.name.text === 'bigint') callee = callee.expression;
  if (ts.isIdentifier(callee)) return callee.text === 'monitorEventLoopDelay';
  if (!ts.isPropertyAccessExpression(callee)) return false;
  const object = callee.expression;
  // `performance.now()`, or `globalThis.performance.now()`.
  let objectName = '';
  if (ts.isIdentifier(object)) objectName = object.text;
  else if (ts.isPropertyAccessExpression(object)) objectName = object.name.text;
  if (callee.name.text === 'monitorEventLoopDelay') return true;
  return READINGS.some(([o, n]) => o === objectName && n === callee.name.text);
}

/**
 * What one file derives from readings: the variables and the functions whose value holds one (each a symbol of its
 * scope, as TypeScript's binder resolves a name), and the fields (by name: what object a field is read from is not
 * followed).
 */
interface Taint {
  readonly variables: Set<ts.Symbol>;
  readonly fields: Set<string>;
  readonly functions: Set<ts.Symbol>;
  /** The symbol a name stands for where it is written. */
  symbolOf(name: ts.Identifier): ts.Symbol | undefined;
}

/** Whether `set` holds what `name` stands for. */
const holds = (set: Set<ts.Symbol>, name: ts.Identifier, taint: Taint): boolean => {
  const symbol = taint.symbolOf(name);
  return symbol !== undefined && set.has(symbol);
};

/**
 * Whether `node` (an expression, with what it nests) holds a reading or something derived from one. A function it
 * holds is not looked into: what that function does counts where it is called (see spread).
 */
function tainted(node: ts.Node, taint: Taint): boolean {
  if (reading(node)) return true;
  if (ts.isArrowFunction(node) || ts.isFunctionExpression(node)) {
    // A function handed to a call that runs it and answers its value (page.evaluate(() => performance.now())).
    const call = node.parent;
    return call !== undefined && ts.isCallExpression(call) && call.arguments.includes(node) && answers(node, taint);
  }
  // A reading written into text is a name (a key made unique by the time), not a measure.
  if (ts.isTemplateExpression(node)) return false;
  if (ts.isIdentifier(node)) {
    const parent = node.parent;
    // A name as a field (x.name, { name: … }) is not the variable of that name.
    if (ts.isPropertyAccessExpression(parent) && parent.name === node) return taint.fields.has(node.text);
    if (ts.isPropertyAssignment(parent) && parent.name === node) return false;
    // A function that answers a reading, called, or handed to a call that runs it (page.evaluate(fn)).
    return holds(taint.variables, node, taint) || (ts.isCallExpression(parent) && holds(taint.functions, node, taint));
  }
  return ts.forEachChild(node, (child) => (tainted(child, taint) ? true : undefined)) ?? false;
}

/** Whether function `fn` answers a reading: its expression body, or one of its own return statements, holds one. */
function answers(fn: ts.ArrowFunction | ts.FunctionExpression, taint: Taint): boolean {
  if (!ts.isBlock(fn.body)) return tainted(fn.body, taint);
  const returns = (node: ts.Node): boolean => {
    if (ts.isReturnStatement(node)) return node.expression !== undefined && tainted(node.expression, taint);
    return !ts.isFunctionLike(node) && (ts.forEachChild(node, (child) => (returns(child) ? true : undefined)) ?? false);
  };
  return returns(fn.body);
}

/** The name a function is known by: its declaration's, or the variable or field it is assigned to. */
function nameOfFunction(fn: ts.Node): ts.Identifier | undefined {
  if (ts.isFunctionDeclaration(fn) || ts.isMethodDeclaration(fn)) {
    return fn.name && ts.isIdentifier(fn.name) ? fn.name : undefined;
  }
  const parent = fn.parent;
  const assigned = ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent);
  return assigned && ts.isIdentifier(parent.name) ? parent.name : undefined;
}

/** The function a node is in, nearest first. */
function enclosingFunction(node: ts.Node): ts.Node | undefined {
  for (let at = node.parent; at !== undefined; at = at.parent) {
    if (ts.isFunctionDeclaration(at) || ts.isFunctionExpression(at) || ts.isArrowFunction(at)) return at;
    if (ts.isMethodDeclaration(at)) return at;
  }
  return undefined;
}

/** Whether an operator assigns (`=`, `+=`, `??=`, …). */
const assignment = (kind: ts.SyntaxKind): boolean =>
  kind >= ts.SyntaxKind.FirstAssignment && kind <= ts.SyntaxKind.LastAssignment;

/** Whether `node` is a call of a promise's `resolve`. */
const resolving = (node: ts.Node): node is ts.CallExpression =>
  ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'resolve';

/** Whether `node` is a call of some array's `push`. */
const pushing = (node: ts.Node): node is ts.CallExpression & { expression: ts.PropertyAccessExpression } =>
  ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'push';

/** Whether `callee` is `expect` or `expect.soft`. */
function expecting(callee: ts.Expression): boolean {
  if (ts.isIdentifier(callee)) return callee.text === 'expect';
  if (!ts.isPropertyAccessExpression(callee) || callee.name.text !== 'soft') return false;
  return ts.isIdentifier(callee.expression) && callee.expression.text === 'expect';
}

/** Adds to `taint` what one pass over `source` derives; answers whether anything was added. */
function spread(source: ts.SourceFile, taint: Taint): boolean {
  let grew = false;
  const add = <T>(set: Set<T>, item: T | undefined) => {
    if (item === undefined || set.has(item)) return;
    set.add(item);
    grew = true;
  };
  const symbol = (name: ts.Identifier | undefined) => (name === undefined ? undefined : taint.symbolOf(name));
  const bind = (name: ts.BindingName, fromTainted: boolean) => {
    if (ts.isIdentifier(name)) {
      if (fromTainted) add(taint.variables, symbol(name));
      return;
    }
    for (const element of name.elements) {
      if (ts.isOmittedExpression(element)) continue;
      const key = element.propertyName ?? element.name;
      bind(element.name, fromTainted || (ts.isIdentifier(key) && taint.fields.has(key.text)));
    }
  };
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && node.initializer !== undefined) {
      bind(node.name, tainted(node.initializer, taint));
    } else if (ts.isBinaryExpression(node) && assignment(node.operatorToken.kind)) {
      if (tainted(node.right, taint)) {
        if (ts.isIdentifier(node.left)) add(taint.variables, symbol(node.left));
        else if (ts.isPropertyAccessExpression(node.left)) add(taint.fields, node.left.name.text);
      }
    } else if (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name)) {
      if (tainted(node.initializer, taint)) add(taint.fields, node.name.text);
    } else if (ts.isShorthandPropertyAssignment(node)) {
      const value = taint.symbolOf(node.name);
      if (value !== undefined && taint.variables.has(value)) add(taint.fields, node.name.text);
    } else if (pushing(node)) {
      const target = node.expression.expression;
      if (node.arguments.some((argument) => tainted(argument, taint))) {
        if (ts.isIdentifier(target)) add(taint.variables, symbol(target));
        else if (ts.isPropertyAccessExpression(target)) add(taint.fields, target.name.text);
      }
    } else if (ts.isReturnStatement(node) && node.expression !== undefined && tainted(node.expression, taint)) {
      const fn = enclosingFunction(node);
      add(taint.functions, symbol(fn && nameOfFunction(fn)));
    } else if (ts.isArrowFunction(node) && !ts.isBlock(node.body) && tainted(node.body, taint)) {
      add(taint.functions, symbol(nameOfFunction(node)));
    } else if (resolving(node) && node.arguments.some((argument) => tainted(argument, taint))) {
      // A promise resolved with a reading: the function that made it answers one.
      for (let fn = enclosingFunction(node); fn !== undefined; fn = enclosingFunction(fn)) {
        add(taint.functions, symbol(nameOfFunction(fn)));
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return grew;
}

/** Every `expect(…)` of `text` (the file `file`) whose subject holds a reading of the machine's time. */
function elapsedTimeAssertions(file: string, text: string): string[] {
  // Most files read no time at all: those are not parsed.
  if (!MAY_READ.test(text)) return [];
  const kind = file.endsWith('js') ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  // The file alone, bound (no library, no import followed): enough for the binder to tell each name's scope.
  const options: ts.CompilerOptions = { noLib: true, noResolve: true, allowJs: true, types: [] };
  const host = ts.createCompilerHost(options);
  host.getSourceFile = (name) => (name === file ? source : undefined);
  const checker = ts.createProgram({ rootNames: [file], options, host }).getTypeChecker();
  const taint: Taint = {
    variables: new Set(),
    fields: new Set(),
    functions: new Set(),
    symbolOf: (name) => {
      const { parent } = name;
      if (ts.isShorthandPropertyAssignment(parent)) return checker.getShorthandAssignmentValueSymbol(parent);
      return checker.getSymbolAtLocation(name);
    },
  };
  while (spread(source, taint));
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const subject = node.arguments[0];
      if (expecting(node.expression) && subject !== undefined && tainted(subject, taint)) {
        const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
        found.push(`${file}:${line}: expect(${subject.getText(source)})`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function testFilesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules') return [];
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return testFilesUnder(path);
    return TEST_FILE.test(entry.name) ? [path] : [];
  });
}

describe('no test asserts elapsed time', () => {
  const files = SCANNED.flatMap(testFilesUnder).sort();

  it('reads the test files of every project', () => {
    expect(files.length).toBeGreaterThan(200);
    const some = [
      ...['src/no-elapsed-time.test.ts', 'bin/stop.test.ts', 'spec-tests/controls/controls.test.ts'],
      ...['examples/cli.test.ts', 'browser-tests/inspector.test.ts', 'container/image.test.ts'],
      'consumers/consumers.test.ts',
    ];
    expect(files).toEqual(expect.arrayContaining(some));
  });

  it("no expect(…) of a test file holds a reading of the machine's time", () => {
    const found = files.flatMap((file) => elapsedTimeAssertions(file, readFileSync(join(ROOT, file), 'utf8')));
    if (found.length > 0) {
      const why = 'count the steps, run the timers fake, or leave speed to npm run bench (CONTRIBUTING.md "Tests")';
      expect.fail(`${found.length} assertion(s) on elapsed time; ${why}:\n${found.join('\n')}`);
    }
  });
});

/** The matcher, written in parts: the samples below are assertions on time only as data, never as code a scan of
 * the source should find. */
const LESS_THAN = ['toBe', 'LessThan'].join('');

describe('what it refuses', () => {
  const check = (lines: readonly string[]) => elapsedTimeAssertions('sample.test.ts', lines.join('\n'));

  it('a reading in the subject, directly or through a variable, a field, an array or a function of the file', () => {
    expect(
      check([
        `expect(performance.now() - started).${LESS_THAN}(1_000);`,
        'const t0 = Date.now(); work(); const took = Date.now() - t0;',
        `expect(took).${LESS_THAN}(2000);`,
        'let ms = Infinity; ms = Math.min(ms, performance.now() - t0);',
        'const timed = async () => { const start = performance.now(); await work(); ' +
          'return { ms: performance.now() - start, page: 1 }; };',
        `const page = await timed(); expect(page.ms).${LESS_THAN}(250);`,
        `const { ms: elapsed } = await timed(); expect.soft(elapsed).${LESS_THAN}(250);`,
        `const tries = []; tries.push(performance.now() - t0); expect(Math.min(...tries)).${LESS_THAN}(50);`,
        'const cpuMs = (run) => { const used = process.cpuUsage(); run(); ' +
          'const spent = process.cpuUsage(used); return spent.user / 1000; };',
        `expect(cpuMs(() => match())).${LESS_THAN}(10);`,
        'const inView = () => new Promise((resolve) => { const at = performance.now(); ' +
          'observe(() => resolve(performance.now() - at)); });',
        `expect(await inView()).${LESS_THAN}(200);`,
        `const h = monitorEventLoopDelay(); h.enable(); expect(h.max / 1e6).${LESS_THAN}(100);`,
        'expect(Number(process.hrtime.bigint() - begun) / 1e6).toBeGreaterThanOrEqual(390);',
        `expect(Math.abs(clock.now() - new Date().getTime())).${LESS_THAN}(1000);`,
        'const paint = () => page.evaluate(() => performance.getEntriesByName("drawn")[0].startTime);',
        `expect(await paint()).${LESS_THAN}(200);`,
      ]),
    ).toEqual([
      'sample.test.ts:1: expect(performance.now() - started)',
      'sample.test.ts:3: expect(took)',
      'sample.test.ts:6: expect(page.ms)',
      'sample.test.ts:7: expect(elapsed)',
      'sample.test.ts:8: expect(Math.min(...tries))',
      'sample.test.ts:10: expect(cpuMs(() => match()))',
      'sample.test.ts:12: expect(await inView())',
      'sample.test.ts:13: expect(h.max / 1e6)',
      'sample.test.ts:14: expect(Number(process.hrtime.bigint() - begun) / 1e6)',
      'sample.test.ts:15: expect(Math.abs(clock.now() - new Date().getTime()))',
      'sample.test.ts:17: expect(await paint())',
    ]);
  });

  it("not a hang guard, a reading on the matcher's side, a fake clock, the emulator's, another scope's name", () => {
    expect(
      check([
        '{ const started = performance.now(); } { const started = Date.UTC(2026, 0, 1); expect(started).toBe(0); }',
        'const deadline = performance.now() + 20_000;',
        'while (!done()) { if (performance.now() > deadline) throw new Error("not within 20 s"); await tick(); }',
        'const before = Date.now(); const { start } = readConfig(); ' + 'expect(start).toBeGreaterThanOrEqual(before);',
        'vi.useFakeTimers(); await vi.advanceTimersByTimeAsync(99); expect(pieces.length).toBe(0);',
        'expect(emu.clock.now().getTime()).toBe(Date.UTC(2026, 0, 1));',
        'expect(new Date(0).toISOString()).toBe("1970-01-01T00:00:00.000Z");',
        'console.log(`took ${performance.now() - started} ms`);',
      ]),
    ).toEqual([]);
  });
});
