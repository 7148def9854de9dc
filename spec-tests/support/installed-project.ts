/**
 * A project that installed this package, for the tests that run scripts saying `npx catalog-emulator` (the CLI's
 * and the examples'): the built CLI as such a project has it.
 */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * A new temporary project that installed this package (node_modules/catalog-emulator a link to it, the bin linked
 * in node_modules/.bin), where `npx catalog-emulator` runs as a user's does: npx finds the bin at once. Never run
 * npx from this repository's own folder: there npm exec installs the package into itself, which runs its prepare
 * script (`npm run build`), deleting dist/ under every other test that runs the CLI at that moment. The caller
 * removes the folder.
 */
export function installedProject(): string {
  const project = mkdtempSync(join(tmpdir(), 'catalog-emulator-project-'));
  writeFileSync(join(project, 'package.json'), '{"name": "a-project", "private": true}\n');
  mkdirSync(join(project, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(ROOT, join(project, 'node_modules', 'catalog-emulator'), 'dir');
  symlinkSync(
    '../catalog-emulator/dist/bin/catalog-emulator.js',
    join(project, 'node_modules', '.bin', 'catalog-emulator'),
  );
  return project;
}
