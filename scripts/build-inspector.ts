/**
 * Part of `npm run build`: the inspector page's browser code (src/inspector/page) as dist/inspector/app.js and
 * app.css, which GET /_emulator/ui/assets/:name serves (src/inspector/server/ui.ts). One script and one style
 * sheet, no framework, nothing fetched from a CDN: the page works offline. The page is type-checked by
 * tsconfig.page.json (DOM types), not here: esbuild only strips the types.
 */
import { build } from 'esbuild';
import { rmSync } from 'node:fs';

const ROOT = new URL('../', import.meta.url);

rmSync(new URL('dist/inspector/', ROOT), { recursive: true, force: true });
const result = await build({
  absWorkingDir: new URL('.', ROOT).pathname,
  // The script imports nothing that is CSS: the style sheet is its own entry, for the page's <link>.
  entryPoints: [
    { in: 'src/inspector/page/main.ts', out: 'app' },
    { in: 'src/inspector/page/app.css', out: 'app' },
  ],
  outdir: 'dist/inspector',
  bundle: true,
  platform: 'browser',
  format: 'iife',
  // Chromium, Firefox and Safari of the last few years: fetch streams, AbortController, optional chaining.
  target: ['chrome110', 'firefox110', 'safari16'],
  minify: true,
  legalComments: 'none',
  logLevel: 'silent',
});
if (result.warnings.length > 0 || result.errors.length > 0) {
  for (const warning of result.warnings)
    console.error(
      `build-inspector: ${warning.text}${warning.location ? ` (${warning.location.file}:${warning.location.line})` : ''}`,
    );
  throw new Error(`build-inspector: esbuild warned ${result.warnings.length} time(s); the page's build must be clean`);
}
