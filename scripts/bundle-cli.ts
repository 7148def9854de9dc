/**
 * Part of `npm run build`: the CLI (bin/catalog-emulator.ts) as one ES module, dist/bin/catalog-emulator.js, with
 * its dependencies (zod, hono, @hono/node-server) inside. The library (dist/src) stays tsc's output, module for
 * module, for users who import the package.
 *
 * Why a bundle: the CLI's cold start. Unbundled, `serve` loads ~240 modules (115 of ours, 95 of zod — 64 of them
 * its locales —, 25 of hono) and a CPU profile of the start spent about a third of it resolving, reading and
 * compiling modules one by one. Bundled, with zod imported as a namespace (`import * as z`, so that what the code
 * never names is left out: 210 KB of zod instead of 750), start to first answer went from 1.9× to 1.2× a bare
 * @hono/node-server script (CPU time of the server's main thread, medians of 11 interleaved starts; wall clock on
 * this shared machine agreed).
 *
 * The dependencies' licences travel with their code: each bundled package's LICENSE is copied into
 * dist/bin/THIRD-PARTY-LICENSES.txt, which the bundle's banner names.
 */
import { build } from 'esbuild';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';

const ROOT = new URL('../', import.meta.url);
const OUT = new URL('dist/bin/', ROOT);
const NOTICES = 'THIRD-PARTY-LICENSES.txt';

// Whatever an earlier build left there (tsc once emitted bin/ there too) goes.
rmSync(OUT, { recursive: true, force: true });
const result = await build({
  absWorkingDir: new URL('.', ROOT).pathname,
  entryPoints: ['bin/catalog-emulator.ts'],
  outdir: 'dist/bin',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // Like tsc's maps of dist/src: they name the sources, without a copy of them.
  sourcemap: true,
  sourcesContent: false,
  metafile: true,
  banner: {
    js: `// catalog-emulator's CLI, bundled with its dependencies by scripts/bundle-cli.ts; their licences: ${NOTICES}`,
  },
  logLevel: 'warning',
});

/** The packages whose code the bundle holds, by name, from the files esbuild read. */
const packages = new Set<string>();
for (const input of Object.keys(result.metafile.inputs)) {
  const match = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
  if (match) packages.add(match[1]!);
}
const notices = [...packages].sort().map((name) => {
  const { version } = JSON.parse(readFileSync(new URL(`node_modules/${name}/package.json`, ROOT), 'utf8')) as {
    version: string;
  };
  return `${name} ${version}\n\n${readFileSync(new URL(`node_modules/${name}/LICENSE`, ROOT), 'utf8').trim()}\n`;
});
writeFileSync(
  new URL(NOTICES, OUT),
  `The CLI bundle (catalog-emulator.js) contains code of these packages, under these licences.\n\n${notices.join('\n---\n\n')}`,
);
