/**
 * Part of `npm run build`, after tsc: the library for `require('catalog-emulator')`, in dist/cjs.
 *
 * - dist/cjs/index.js: src/index.ts as one CommonJS file (esbuild), its dependencies left to require() — the
 *   ES module build (dist/src, tsc's output module for module) stays what `import` loads.
 * - dist/cjs/**\/*.d.ts: tsc's declarations of dist/src, copied unchanged. dist/cjs/package.json says
 *   `"type": "commonjs"`, so TypeScript reads the same text there as CommonJS types: the types of each format
 *   sit beside its code and say the truth about it (what @arethetypeswrong/cli checks), without a second
 *   type-check.
 *
 * Why not tsup or tsdown (both tried): tsdown 0.21 warns that it drops Node 20 in its next minor (this package
 * supports Node ≥ 20, and its build runs there), and tsup is no longer maintained and its declaration build
 * fails under this project's TypeScript 6 (it sets the deprecated `baseUrl`). esbuild already builds the CLI.
 *
 * The two formats are two module instances: a process that both imports and requires the package has two
 * copies (an emulator from one is no `instanceof Emulator` of the other).
 */
import { build } from 'esbuild';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';

const ROOT = new URL('../', import.meta.url);
const OUT = new URL('dist/cjs/', ROOT);

rmSync(OUT, { recursive: true, force: true });
const result = await build({
  absWorkingDir: new URL('.', ROOT).pathname,
  entryPoints: ['src/index.ts'],
  outfile: 'dist/cjs/index.js',
  bundle: true,
  // hono, @hono/node-server and zod are the package's dependencies: required, not copied in.
  packages: 'external',
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: true,
  sourcesContent: false,
  // src/http/server.ts loads @hono/node-server when a server is first started: as a lazy require() here, since an
  // import() in CommonJS fails where modules run in a vm context without ES module support (Jest's default).
  supported: { 'dynamic-import': false },
  // The library's two `import.meta`s, and their CommonJS counterparts: src/control/docs.ts finds swagger-ui-dist's
  // folder, src/inspector/server/ui.ts the package root from its own file (here dist/cjs/index.js). Any other would
  // be replaced by `{}` with a warning, which fails the build below.
  define: { 'import.meta.resolve': '__catalogEmulatorResolve', 'import.meta.url': '__catalogEmulatorUrl' },
  banner: {
    js: `'use strict';\nconst __catalogEmulatorResolve = (specifier) => require('node:url').pathToFileURL(require.resolve(specifier)).href;\nconst __catalogEmulatorUrl = require('node:url').pathToFileURL(__filename).href;`,
  },
  logLevel: 'silent',
});
if (result.warnings.length > 0 || result.errors.length > 0) {
  for (const warning of result.warnings)
    console.error(
      `build-cjs: ${warning.text}${warning.location ? ` (${warning.location.file}:${warning.location.line})` : ''}`,
    );
  throw new Error(`build-cjs: esbuild warned ${result.warnings.length} time(s); the CommonJS build must be clean`);
}

mkdirSync(OUT, { recursive: true });
cpSync(new URL('dist/src/', ROOT), OUT, { recursive: true, filter: (source) => !/\.js(\.map)?$/.test(source) });
writeFileSync(new URL('package.json', OUT), `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);
