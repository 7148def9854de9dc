// The require and import examples of docs/install.md (commonjs.cjs, esm.mjs), run as a user runs them: node loads the
// built package (`npm test` builds first) through its exports, each file its own build.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));

test.each(['commonjs.cjs', 'esm.mjs'])('node examples/%s answers 200 with the company', async (file) => {
  const { stdout, stderr } = await run(process.execPath, [`examples/${file}`], { cwd: ROOT });
  expect(stderr).toBe('');
  expect(stdout).toBe('200 Empresa 11222333\n');
});

test('require loads the CommonJS build, import the ES module one', async () => {
  const required = await run(process.execPath, ['-e', "console.log(require.resolve('catalog-emulator'))"], {
    cwd: ROOT,
  });
  expect(required.stdout).toBe(`${ROOT}dist/cjs/index.js\n`);
  const imported = await run(
    process.execPath,
    ['--input-type=module', '-e', "console.log(import.meta.resolve('catalog-emulator'))"],
    { cwd: ROOT },
  );
  expect(imported.stdout).toBe(`file://${ROOT}dist/src/index.js\n`);
});
