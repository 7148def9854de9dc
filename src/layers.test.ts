/**
 * The dependency rules between the layers, and no runtime import cycle inside src. src/core/purity.test.ts
 * already keeps the core to itself; this test keeps the shells thin and the direction of imports one way, so a
 * concern cannot quietly grow a second home in another layer. Only relative imports are checked (packages are the
 * purity test's and the build's business); "types" means `import type` / `export type` only: with
 * verbatimModuleSyntax, `import { type X }` still loads the module at run time, so it counts as a runtime import.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { stripComments } from './core/testing/source-text.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SCANNED = ['src', 'bin', 'spec-tests', 'browser-tests', 'examples', 'fuzz', 'bench', 'scripts'];

export interface Import {
  readonly specifier: string;
  /** `import type` / `export type`: erased at compile time. */
  readonly typeOnly: boolean;
  readonly line: number;
}

/**
 * The module specifiers `source` imports: static `import`/`export … from`, side-effect `import '…'`, dynamic
 * `import('…')` and `import('…')` types. Comments are skipped and every string literal is one opaque token, so an
 * import written inside a string (a test's sample source) is not read as one.
 */
export function importsOf(source: string): Import[] {
  const strings: string[] = [];
  // A string or template literal becomes "<its index>" followed by its line breaks (so line numbers hold); a
  // regex literal becomes a blank.
  const code = stripComments(source, (raw) =>
    raw.startsWith('/') ? ' ' : `"${strings.push(raw.slice(1, -1)) - 1}"${raw.replace(/[^\n]/g, '')}`,
  );
  const found: Import[] = [];
  const lineAt = (index: number) => code.slice(0, index).split('\n').length;
  const add = (m: RegExpMatchArray, typeOnly: boolean) =>
    found.push({
      specifier: strings[Number(m.groups!.n)]!,
      typeOnly,
      line: lineAt(m.index! + m[0].search(/\b(?:import|export)\b/)),
    });
  // A statement starts a line or follows `;` / `}`: `import … from`, `export … from`, `import '…'`.
  for (const m of code.matchAll(
    /(?:^|[;}])\s*(?<kw>import|export)\s+(?<type>type\s+(?!from\b))?(?:[^;"]*?\bfrom\s*)?"(?<n>\d+)"/gm,
  )) {
    if (m.groups!.kw === 'export' && !/\bfrom\s*"\d+"$/.test(m[0])) continue; // `export const x = "…"` is no import
    add(m, m.groups!.type !== undefined);
  }
  for (const m of code.matchAll(/\bimport\s*\(\s*"(?<n>\d+)"/g)) add(m, /\btypeof\s+$/.test(code.slice(0, m.index)));
  return found.sort((a, b) => a.line - b.line);
}

/** The layer a file (relative to the repository root, `/`-separated) belongs to. */
export function layerOf(file: string): string {
  const rules: [RegExp, string][] = [
    [/^src\/(?:.*\/)?[^/]+\.test\.ts$/, 'unit tests'],
    [/^src\/core\//, 'core'],
    [/^src\/clock\//, 'clock'],
    [/^src\/network\//, 'network'],
    [/^src\/http\//, 'http'],
    [/^src\/control\//, 'control'],
    [/^src\/demos\//, 'demos'],
    [/^src\/kit\//, 'kit'],
    [/^src\/explore\//, 'explore'],
    [/^src\/conformance\//, 'conformance'],
    [/^src\/engine\//, 'engine'],
    [/^src\/grading\//, 'grading'],
    [/^src\/openapi\//, 'openapi'],
    [/^src\/inspector\/server\//, 'inspector server'],
    [/^src\/inspector\/page\//, 'inspector page'],
    [/^src\/inspector\/wire\.ts$/, 'inspector wire'],
    [/^src\/emulator\.ts$/, 'facade'],
    [/^src\/version\.ts$/, 'version'],
    [/^src\/index\.ts$/, 'entry'],
    [/^src\/public\.ts$/, 'public'],
    [/^bin\//, 'bin'],
    [/^spec-tests\//, 'spec-tests'],
    [/^browser-tests\//, 'browser-tests'],
    [/^examples\//, 'examples'],
    [/^fuzz\//, 'fuzz'],
    [/^bench\//, 'bench'],
    [/^scripts\//, 'scripts'],
  ];
  for (const [pattern, layer] of rules) if (pattern.test(file)) return layer;
  return `unknown (${file})`;
}

/**
 * What each layer may import: `runtime` layers by any import, `types` layers by `import type` only. A layer may
 * always import its own files. `entry` is src/index.ts, `public` src/public.ts (the package's API, all the entry
 * exports but the demos); `public modules` means the modules src/public.ts re-exports names of.
 */
interface Allowed {
  readonly runtime: readonly string[];
  readonly types?: readonly string[];
}

export const RULES: Readonly<Record<string, Allowed>> = {
  // The pure core, and two leaves: the clock knows nothing of what it schedules, the version is a constant.
  core: { runtime: [] },
  clock: { runtime: [] },
  version: { runtime: [] },
  // The transport sends and reports a plain outcome: it names the core's outcome type and the User-Agent's
  // version, and asks the fault registry through its own DeliveryFaults interface, naming the delivery effects by
  // the engine's fault types (one schema defines them; types only, so no runtime edge back to the engine).
  network: { runtime: ['version'], types: ['core', 'engine'] },
  // The API shell calls the core; the clock it reads and the configuration it is given arrive as types.
  http: { runtime: ['core'], types: ['clock', 'engine'] },
  // Control (the in-process control API and its /_emulator routes) drives the engine (its fault registry among the
  // rest), names the network's routes and inbox entries, and reuses the API shell's error bodies, body reading and
  // parsers (HTTP_FOR_CONTROL). Its table's rows of the inspector call the inspector's one entry (INSPECTOR_ENTRY).
  control: {
    runtime: ['core', 'clock', 'http', 'engine', 'version', 'inspector server', 'grading'],
    types: ['network'],
  },
  // The engine around the core (src/engine: configuration, faults, jobs, the delivery driver, the world) runs core
  // functions on the clock and hands deliveries to the network; it knows nothing of HTTP or the controls.
  engine: { runtime: ['core', 'clock', 'network', 'version'] },
  // The grading of an integration observes the engine (its FactObserver port) and sends the receiver check through
  // the network; the engine never imports it.
  grading: { runtime: ['core', 'clock', 'network', 'engine', 'version'] },
  // src/emulator.ts puts everything together: configuration → world → controls → app. It hands the control app the
  // OpenAPI documents to serve: control cannot import openapi, which reads the control table.
  facade: {
    runtime: [
      'core',
      'clock',
      'network',
      'http',
      'control',
      'engine',
      'version',
      'openapi',
      'inspector server',
      'grading',
    ],
  },
  // The inspector (src/inspector): its server side reads what the emulator keeps through the port it is made with
  // (the engine's activity feed and ObservedEmulator), answers with the API shell's error bodies and signs as the
  // network does. It knows nothing of the controls, not even their types: the controls call its entry
  // (INSPECTOR_ENTRY), and the facade may wire it. Its page runs in a browser and shares nothing with src/ but the
  // wire types.
  'inspector server': { runtime: ['core', 'engine', 'http', 'network', 'version'], types: ['clock', 'inspector wire'] },
  'inspector page': { runtime: [], types: ['inspector wire'] },
  'inspector wire': { runtime: [] },
  // The OpenAPI documents are generated from the API shell's operation table and schemas (and the controls').
  openapi: { runtime: ['http', 'control', 'version'] },
  // The package's API, each name from its home; the entry adds the demos.
  public: {
    runtime: [
      'facade',
      'engine',
      'core',
      'clock',
      'network',
      'http',
      'control',
      'version',
      'kit',
      'openapi',
      'grading',
      'inspector server',
      'inspector wire',
    ],
  },
  entry: { runtime: ['public', 'demos', 'explore'] },
  // The demos teach the package: they import it as a user does, through src/public.ts (not src/index.ts, which
  // re-exports them: a cycle), never a module the API's names come from, which would show a reader its insides.
  demos: { runtime: ['public'] },
  // The search over fault plans drives emulators as a user does, through src/public.ts, like the demos.
  explore: { runtime: ['public'] },
  // The test kit for shared servers speaks HTTP only: it names the public types and throws the public ControlError
  // (src/public.ts re-exports it, so it reads them from their modules).
  kit: { runtime: ['public modules'] },
  // The runner of `catalog-emulator conformance`, bundled with the spec tests (scripts/conformance-bundle.ts): a
  // shell around Vitest's runner that speaks to the tests only through the 'vitest' module it stands in for.
  conformance: { runtime: [] },
  // Users of the package: the public entry only (spec-tests also the hostile-input generator). The bin loads the
  // conformance runner's bundle at run time, naming its types.
  bin: { runtime: ['entry'], types: ['conformance'] },
  examples: { runtime: ['entry'] },
  fuzz: { runtime: ['entry'] },
  bench: { runtime: ['entry'] },
  // Build tools (npm run openapi): the public entry only.
  scripts: { runtime: ['entry'] },
  'spec-tests': { runtime: ['entry', 'fuzz'] },
  // The docs page in a browser: a user of the package like the spec tests.
  'browser-tests': { runtime: ['entry'] },
};

/**
 * The files of http control may import at run time: error bodies, body reading and the bearer/JSON checks, the
 * schemas' URL and path formats and the stored answers' older format (for snapshots). The app and its routes stay
 * closed to it.
 */
const HTTP_FOR_CONTROL = [
  'src/http/errors.ts',
  'src/http/pipeline.ts',
  'src/http/schemas.ts',
  'src/http/stored-answers.ts',
];

/** The one module of the inspector's server side the controls import: what its controls answer, handed the emulator's activity feed. */
const INSPECTOR_ENTRY = 'src/inspector/server/routes.ts';

/**
 * Imports that break a rule and are left for a change of their own, each with the reason. The test fails when one
 * is no longer needed, so the list only shrinks.
 */
const KNOWN_EXCEPTIONS: readonly {
  readonly file: string;
  readonly targets: readonly string[];
  readonly why: string;
}[] = [];
const isKnownException = (file: string, target: string) =>
  KNOWN_EXCEPTIONS.some((x) => x.file === file && x.targets.includes(target));

export interface Violation {
  readonly file: string;
  readonly line: number;
  readonly target: string;
  readonly rule: string;
}

/**
 * The import `file` → `target` (both repository-relative) breaks a rule: the reason, or undefined. `publicFiles`
 * are the modules src/public.ts re-exports names of.
 */
/** How a refusal names the layers whose name alone would not say what they are. */
const LAYER_TEXT: Readonly<Record<string, string>> = {
  public: "src/public.ts (the package's API)",
  'public modules': 'the modules src/public.ts re-exports',
};

export function ruleBroken(
  file: string,
  target: string,
  typeOnly: boolean,
  publicFiles: ReadonlySet<string>,
): string | undefined {
  const from = layerOf(file);
  const to = layerOf(target);
  if (from === to) return undefined;
  // Tests outside src (bin/cli.test.ts) may share the spec tests' HTTP helpers: they are users of the server too.
  if (file.endsWith('.test.ts') && target.startsWith('spec-tests/support/')) return undefined;
  const allowed = RULES[from];
  if (allowed === undefined) return `${from} has no rule`;
  const kinds = (layers: readonly string[] | undefined) =>
    (layers ?? []).some((l) => l === to || (l === 'public modules' && publicFiles.has(target)));
  if (kinds(allowed.runtime)) {
    if (from === 'control' && to === 'inspector server' && target !== INSPECTOR_ENTRY)
      return `control imports from the inspector server only its entry (${INSPECTOR_ENTRY})`;
    if (from === 'control' && to === 'http' && !HTTP_FOR_CONTROL.includes(target) && !typeOnly)
      return `control imports from http only its error helpers, body reading, schemas and stored answers (${HTTP_FOR_CONTROL.join(', ')})`;
    return undefined;
  }
  if (typeOnly && kinds(allowed.types)) return undefined;
  const may = [...allowed.runtime, ...(allowed.types ?? []).map((l) => `${l} (types)`)];
  const mayText = may.length === 0 ? 'nothing outside itself' : may.map((l) => LAYER_TEXT[l] ?? l).join(', ');
  return `${from} may import ${mayText}; ${typeOnly ? 'a type import of' : 'not'} ${to}${typeOnly ? ' is not allowed either' : ''}`;
}

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...tsFiles(path));
    else if (entry.name.endsWith('.ts')) out.push(path);
  }
  return out;
}

const repoPath = (path: string) => relative(ROOT, path).split('\\').join('/');
/** The source file a relative specifier names: `./x.js` is written for `./x.ts`. */
const resolveTarget = (file: string, specifier: string) =>
  repoPath(resolve(ROOT, dirname(file), specifier)).replace(/\.js$/, '.ts');
const isRelative = (specifier: string) => specifier.startsWith('./') || specifier.startsWith('../');

/**
 * Tests beside the code in src/ (`src/**\/*.test.ts`) are unit tests: they wire whatever they test, so the layer
 * rules do not bind them, and nothing imports them, so they cannot close a cycle. Every other test (bin, examples,
 * spec-tests) is a user of the public entry and obeys its directory's rule.
 */
const isUnitTest = (file: string) => file.startsWith('src/') && file.endsWith('.test.ts');

interface Edge {
  readonly file: string;
  readonly target: string;
  readonly typeOnly: boolean;
  readonly line: number;
}

function edgesOf(files: readonly string[]): Edge[] {
  return files.flatMap((file) =>
    importsOf(readFileSync(join(ROOT, file), 'utf8'))
      .filter((i) => isRelative(i.specifier))
      .map((i) => ({ file, target: resolveTarget(file, i.specifier), typeOnly: i.typeOnly, line: i.line })),
  );
}

/** Every cycle of runtime imports, each once, as the list of files around it (the first repeated at the end). */
export function cyclesOf(edges: readonly { file: string; target: string }[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { file, target } of edges) next.set(file, [...(next.get(file) ?? []), target]);
  const cycles = new Map<string, string[]>();
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    stack.push(node);
    for (const to of [...new Set(next.get(node) ?? [])].sort()) {
      if (state.get(to) === 'open') {
        const cycle = stack.slice(stack.indexOf(to));
        // Rotate to start at the smallest name, so one cycle found from two entries is reported once.
        const start = cycle.indexOf([...cycle].sort()[0]!);
        const rotated = [...cycle.slice(start), ...cycle.slice(0, start)];
        cycles.set(rotated.join(' → '), [...rotated, rotated[0]!]);
      } else if (state.get(to) === undefined) visit(to);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...next.keys()].sort()) if (state.get(node) === undefined) visit(node);
  return [...cycles.values()];
}

describe('the layers depend in one direction', () => {
  const files = SCANNED.flatMap((dir) => tsFiles(join(ROOT, dir)))
    .map(repoPath)
    .sort();
  const edges = edgesOf(files);
  const publicFiles = new Set(edges.filter((e) => e.file === 'src/public.ts').map((e) => e.target));

  it('reads the files and their imports', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'src/emulator.ts',
        'src/index.ts',
        'src/public.ts',
        'src/control/routes.ts',
        'bin/catalog-emulator.ts',
        'spec-tests/support/client.ts',
        'fuzz/hostile.ts',
      ]),
    );
    expect(edges.filter((e) => e.file === 'src/index.ts').map((e) => e.target)).toEqual([
      'src/public.ts',
      'src/demos/index.ts',
      'src/explore/index.ts',
    ]);
    expect([...publicFiles]).toEqual(
      expect.arrayContaining(['src/emulator.ts', 'src/version.ts', 'src/core/cnpj.ts', 'src/network/signature.ts']),
    );
    expect(files.filter((f) => layerOf(f).startsWith('unknown'))).toEqual([]);
  });

  it('every relative import names an existing source file', () => {
    const known = new Set(files);
    const missing = edges.filter((e) => !known.has(e.target)).map((e) => `${e.file}:${e.line} → ${e.target}`);
    expect(missing).toEqual([]);
  });

  it('no import breaks the dependency rules', () => {
    const violations: Violation[] = [];
    for (const e of edges) {
      if (isUnitTest(e.file)) continue;
      const rule = ruleBroken(e.file, e.target, e.typeOnly, publicFiles);
      if (rule !== undefined && !isKnownException(e.file, e.target))
        violations.push({ file: e.file, line: e.line, target: e.target, rule });
    }
    if (violations.length > 0)
      expect.fail(
        `${violations.length} import(s) break the dependency rules:\n${violations.map((v) => `${v.file}:${v.line} → ${v.target}: ${v.rule}`).join('\n')}`,
      );
  });

  it('every known exception still breaks a rule (remove it once fixed)', () => {
    const stale = KNOWN_EXCEPTIONS.flatMap((x) =>
      x.targets
        .filter(
          (target) =>
            !edges.some(
              (e) =>
                e.file === x.file &&
                e.target === target &&
                ruleBroken(e.file, e.target, e.typeOnly, publicFiles) !== undefined,
            ),
        )
        .map((target) => `${x.file} → ${target}`),
    );
    expect(stale).toEqual([]);
  });

  it('the runtime imports inside src form no cycle', () => {
    const runtime = edges.filter(
      (e) => !e.typeOnly && e.file.startsWith('src/') && e.target.startsWith('src/') && !isUnitTest(e.file),
    );
    const cycles = cyclesOf(runtime);
    if (cycles.length > 0)
      expect.fail(`${cycles.length} runtime import cycle(s) in src:\n${cycles.map((c) => c.join(' → ')).join('\n')}`);
  });

  it('the facade stays a facade: src/emulator.ts holds fewer than 150 lines (ARCHITECTURE.md "Layers")', () => {
    // It grew back once, to 194 lines, as an adapter moved into it: what it gains belongs in the layer it adapts.
    const lines = readFileSync(join(ROOT, 'src/emulator.ts'), 'utf8').split('\n').length - 1;
    expect(lines, 'src/emulator.ts: move what it gained to the engine, a shell or src/public.ts').toBeLessThan(150);
  });
});

describe('the import reader and the rules themselves', () => {
  it('reads static, side-effect, re-export, dynamic and type imports with their lines, and nothing inside strings or comments', () => {
    const source = [
      "import { a } from './a.js';",
      "import type { B } from '../b.js';",
      'import {',
      '  c,',
      "} from './c.js';",
      "import './side.js';",
      "export { d } from './d.js';",
      "export type { E } from './e.js';",
      "export * from './f.js';",
      "const g = await import('./g.js');",
      "type H = typeof import('./h.js');",
      "// import { x } from './comment.js';",
      'const s = "import { y } from \'./string.js\';";',
      "export const t = './not-an-import.js';",
      "import { type I } from './i.js';",
    ].join('\n');
    expect(importsOf(source).map((i) => `${i.line} ${i.specifier}${i.typeOnly ? ' (type)' : ''}`)).toEqual([
      '1 ./a.js',
      '2 ../b.js (type)',
      '3 ./c.js',
      '6 ./side.js',
      '7 ./d.js',
      '8 ./e.js (type)',
      '9 ./f.js',
      '10 ./g.js',
      '11 ./h.js (type)',
      '15 ./i.js',
    ]);
  });

  it('maps files to layers and names the broken rule', () => {
    const none = new Set<string>();
    expect(ruleBroken('src/network/transport.ts', 'src/control/routes.ts', true, none)).toBe(
      'network may import version, core (types), engine (types); a type import of control is not allowed either',
    );
    expect(ruleBroken('src/network/transport.ts', 'src/core/time.ts', false, none)).toBe(
      'network may import version, core (types), engine (types); not core',
    );
    expect(ruleBroken('src/network/transport.ts', 'src/engine/faults.ts', true, none)).toBeUndefined();
    expect(ruleBroken('src/network/transport.ts', 'src/engine/faults.ts', false, none)).toBe(
      'network may import version, core (types), engine (types); not engine',
    );
    expect(ruleBroken('src/network/transport.ts', 'src/core/time.ts', true, none)).toBeUndefined();
    expect(ruleBroken('src/clock/clock.ts', 'src/core/time.ts', true, none)).toBe(
      'clock may import nothing outside itself; a type import of core is not allowed either',
    );
    expect(ruleBroken('src/control/routes.ts', 'src/engine/engine.ts', false, none)).toBeUndefined();
    expect(ruleBroken('src/control/routes.ts', 'src/emulator.ts', true, none)).toBe(
      'control may import core, clock, http, engine, version, inspector server, grading, network (types); a type import of facade is not allowed either',
    );
    expect(ruleBroken('src/control/routes.ts', 'src/http/app.ts', false, none)).toMatch(
      /^control imports from http only its error helpers/,
    );
    expect(ruleBroken('src/control/table.ts', 'src/inspector/server/routes.ts', false, none)).toBeUndefined();
    expect(ruleBroken('src/control/api.ts', 'src/inspector/server/inspector.ts', false, none)).toBe(
      'control imports from the inspector server only its entry (src/inspector/server/routes.ts)',
    );
    expect(ruleBroken('src/control/routes.ts', 'src/inspector/server/inspector.ts', true, none)).toBe(
      'control imports from the inspector server only its entry (src/inspector/server/routes.ts)',
    );
    expect(ruleBroken('src/inspector/server/inspector.ts', 'src/control/api.ts', false, none)).toBe(
      'inspector server may import core, engine, http, network, version, clock (types), inspector wire (types); not control',
    );
    expect(ruleBroken('src/inspector/server/routes.ts', 'src/control/row.ts', true, none)).toBe(
      'inspector server may import core, engine, http, network, version, clock (types), inspector wire (types); a type import of control is not allowed either',
    );
    expect(ruleBroken('src/inspector/server/inspector.ts', 'src/engine/activity.ts', true, none)).toBeUndefined();
    expect(ruleBroken('src/inspector/page/app.ts', 'src/inspector/wire.ts', true, none)).toBeUndefined();
    expect(ruleBroken('src/inspector/page/app.ts', 'src/inspector/wire.ts', false, none)).toBe(
      'inspector page may import inspector wire (types); not inspector wire',
    );
    expect(ruleBroken('src/inspector/page/app.ts', 'src/inspector/server/inspector.ts', true, none)).toBe(
      'inspector page may import inspector wire (types); a type import of inspector server is not allowed either',
    );
    expect(ruleBroken('src/engine/engine.ts', 'src/inspector/server/inspector.ts', true, none)).toBe(
      'engine may import core, clock, network, version; a type import of inspector server is not allowed either',
    );
    expect(ruleBroken('spec-tests/x.test.ts', 'src/core/cnpj.ts', false, none)).toBe(
      'spec-tests may import entry, fuzz; not core',
    );
    expect(ruleBroken('spec-tests/x.test.ts', 'fuzz/hostile.ts', false, none)).toBeUndefined();
    // A demo reads the package's API from src/public.ts, not from the modules its names come from, public as they are.
    const exported = new Set(['src/emulator.ts', 'src/core/cnpj.ts']);
    expect(ruleBroken('src/demos/a.ts', 'src/public.ts', false, exported)).toBeUndefined();
    for (const [target, layer] of [
      ['src/emulator.ts', 'facade'],
      ['src/core/cnpj.ts', 'core'],
      ['src/http/app.ts', 'http'],
      ['src/index.ts', 'entry'],
    ] as const) {
      expect(ruleBroken('src/demos/a.ts', target, false, exported)).toBe(
        `demos may import src/public.ts (the package's API); not ${layer}`,
      );
    }
    expect(ruleBroken('src/kit/connect.ts', 'src/core/cnpj.ts', true, exported)).toBeUndefined();
    expect(ruleBroken('src/kit/connect.ts', 'src/http/app.ts', false, exported)).toBe(
      'kit may import the modules src/public.ts re-exports; not http',
    );
    expect(ruleBroken('src/control/table.ts', 'src/inspector/server/ui.ts', false, none)).toBe(
      'control imports from the inspector server only its entry (src/inspector/server/routes.ts)',
    );
    expect(ruleBroken('src/inspector/page/main.ts', 'src/inspector/wire.ts', true, none)).toBeUndefined();
    expect(ruleBroken('src/inspector/page/main.ts', 'src/inspector/wire.ts', false, none)).toBe(
      'inspector page may import inspector wire (types); not inspector wire',
    );
    expect(ruleBroken('src/inspector/page/main.ts', 'src/core/time.ts', true, none)).toBe(
      'inspector page may import inspector wire (types); a type import of core is not allowed either',
    );
  });

  it('finds each runtime cycle once, however it is entered', () => {
    const edges = [
      { file: 'a', target: 'b' },
      { file: 'b', target: 'a' },
      { file: 'c', target: 'd' },
      { file: 'd', target: 'e' },
      { file: 'e', target: 'c' },
      { file: 'e', target: 'f' },
    ];
    expect(cyclesOf(edges)).toEqual([
      ['a', 'b', 'a'],
      ['c', 'd', 'e', 'c'],
    ]);
    expect(cyclesOf([{ file: 'x', target: 'y' }])).toEqual([]);
  });
});
