/**
 * The spec tests as a runnable, shipped bundle (dist/conformance/), for `catalog-emulator conformance`: each test
 * file an entry, with the runner (src/conformance/run.ts), in one esbuild build with code splitting, so the support
 * modules and the runner's engine are shared chunks, one instance each (one deployment, one client state, one
 * @vitest/runner whose describe/it the tests register with and whose startTests runs them).
 *
 * - 'vitest' and 'vitest/suite' are the runner's module (src/conformance/vitest.ts): no vitest is installed.
 * - The tests' imports of the emulator's entry (../src/index.js: createEmulator for the in-process target,
 *   IF_MATCH_OPERATIONS) stay external, pointing at the package's own dist/src/index.js: no second copy of the
 *   emulator inside the bundle.
 * - A file a test reads beside itself (`new URL('…', import.meta.url)`) is found from dist/conformance: the package's
 *   own files (package.json, openapi.json) where the package has them; any other (spec-tests/vectors/…) copied into
 *   dist/conformance/files/.
 * - The packages bundled (ajv, fast-check, @vitest/*, chai…) bring their licences: THIRD-PARTY-LICENSES.txt.
 */
import { build, type Plugin } from 'esbuild';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const NOTICES = 'THIRD-PARTY-LICENSES.txt';
/** The package's files a test may read in place (the rest are copied). */
const SHIPPED = new Set(['package.json', 'openapi.json', 'openapi.controls.json']);

export interface BundleOptions {
  /** The repository root (absolute). */
  readonly root: string;
  /** The test files, as paths from the root. */
  readonly testFiles: readonly string[];
  /** Where the bundle goes (absolute); emptied first. */
  readonly outdir: string;
  /** The runner's vitest module (absolute): src/conformance/vitest.ts. */
  readonly vitestModule: string;
  /** More entry points (absolute or from the root), e.g. the runner. */
  readonly extraEntries?: readonly string[];
}

/**
 * Each test file's bundle name, the one its entry point gets: catalogs.test.ts → catalogs.spec.js. Not `.test.`:
 * the package check keeps test files out of the package, and these are shipped on purpose.
 */
export function bundleName(testFile: string): string {
  return `${testFile.slice(testFile.lastIndexOf('/') + 1).replace(/(\.test|\.fixture)?\.ts$/, '')}.spec.js`;
}

/** The plugin doing the three rewrites above. */
function conformancePlugin(options: BundleOptions): Plugin {
  const { root, outdir } = options;
  const entry = join(root, 'src', 'index.ts');
  return {
    name: 'conformance',
    setup(b) {
      b.onResolve({ filter: /^vitest(\/suite)?$/ }, () => ({ path: options.vitestModule }));
      b.onResolve({ filter: /(^|\/)src\/index\.js$/ }, (args) => {
        if (resolve(args.resolveDir, args.path).replace(/\.js$/, '.ts') !== entry) return undefined;
        return {
          path: relative(outdir, join(root, 'dist', 'src', 'index.js'))
            .split('\\')
            .join('/'),
          external: true,
        };
      });
      b.onLoad({ filter: /[\\/]spec-tests[\\/].*\.ts$/ }, (args) => {
        const code = readFileSync(args.path, 'utf8').replace(
          /new URL\((['"])([^'"]+)\1, import\.meta\.url\)/g,
          (_whole: string, _quote: string, path: string) => {
            const target = resolve(dirname(args.path), path);
            const fromRoot = relative(root, target).split('\\').join('/');
            if (!existsSync(target))
              throw new Error(`${relative(root, args.path)} reads ${path} (${fromRoot}), which does not exist`);
            let shipped: string;
            if (SHIPPED.has(fromRoot)) shipped = fromRoot;
            else {
              const copy = join(outdir, 'files', fromRoot);
              mkdirSync(dirname(copy), { recursive: true });
              copyFileSync(target, copy);
              shipped = relative(root, copy).split('\\').join('/');
            }
            // Every bundle and chunk sits directly in outdir, so its import.meta.url reaches the root the same way.
            const fromOut = relative(outdir, join(root, shipped)).split('\\').join('/');
            return `new URL(${JSON.stringify(fromOut)}, import.meta.url)`;
          },
        );
        return { contents: code, loader: 'ts' };
      });
    },
  };
}

function licenceText(root: string, name: string): string {
  const dir = join(root, 'node_modules', name);
  const file = readdirSync(dir).find((entry) => /^licen[cs]e(\.(md|txt))?$/i.test(entry));
  if (file === undefined)
    throw new Error(`the bundled package ${name} has no LICENSE file in ${dir}: its licence must travel with its code`);
  return readFileSync(join(dir, file), 'utf8').trim();
}

/** Builds the bundle; returns the packages it holds. */
export async function bundleConformance(options: BundleOptions): Promise<string[]> {
  const { root, outdir } = options;
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  const names = options.testFiles.map(bundleName);
  const clash = names.find((name, i) => names.indexOf(name) !== i);
  if (clash !== undefined) throw new Error(`two test files bundle to ${clash}: rename one`);
  const result = await build({
    absWorkingDir: root,
    entryPoints: [
      ...options.testFiles.map((file) => ({ in: file, out: bundleName(file).replace(/\.js$/, '') })),
      ...(options.extraEntries ?? []),
    ],
    outdir,
    entryNames: '[name]',
    chunkNames: 'chunk-[hash]',
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Stack frames of a failure name the spec tests' files and lines (the runner turns source maps on).
    sourcemap: true,
    sourcesContent: false,
    metafile: true,
    // CommonJS packages inside (ajv) may require Node's modules: an ES module has no require of its own.
    banner: {
      js: `// catalog-emulator's spec tests, bundled by scripts/conformance-bundle.ts; the bundled packages' licences: ${NOTICES}\nimport { createRequire as __conformanceRequire } from 'node:module';\nconst require = __conformanceRequire(import.meta.url);`,
    },
    plugins: [conformancePlugin(options)],
    logLevel: 'silent',
  });
  if (result.warnings.length > 0) {
    for (const warning of result.warnings)
      console.error(
        `conformance bundle: ${warning.text}${warning.location ? ` (${warning.location.file}:${warning.location.line})` : ''}`,
      );
    throw new Error(`conformance bundle: esbuild warned ${result.warnings.length} time(s); the build must be clean`);
  }
  const packages = new Set<string>();
  for (const input of Object.keys(result.metafile.inputs)) {
    const match = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match) packages.add(match[1]!);
  }
  const sorted = [...packages].sort();
  const notices = sorted.map((name) => {
    const { version } = JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as {
      version: string;
    };
    return `${name} ${version}\n\n${licenceText(root, name)}\n`;
  });
  writeFileSync(
    join(outdir, NOTICES),
    `The spec tests' bundle (dist/conformance/*.js) contains code of these packages, under these licences.\n\n${notices.join('\n---\n\n')}`,
  );
  return sorted;
}
