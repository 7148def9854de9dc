/**
 * The unit files that share their worker's modules replace nothing every module sees; those that do are listed in
 * scripts/isolated-tests.ts and run isolated (vitest.config.ts, project unit-isolated). The scan is shown finding
 * each kind of replacement, and passing what only names one in a string.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { UNIT_ISOLATED, replacingLines } from './isolated-tests.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The unit test files: the include of the unit projects of vitest.config.ts. */
const unitFiles = execFileSync(
  'git',
  ['ls-files', 'src/*.test.ts', 'bin/*.test.ts', 'examples/*.test.ts', 'scripts/*.test.ts'],
  { cwd: ROOT, encoding: 'utf8' },
)
  .split('\n')
  .filter((path) => path !== '');

describe('which unit files run isolated', () => {
  test('every file that replaces what every module sees is listed, and every listed file does', () => {
    const replacing = unitFiles.filter((path) => replacingLines(readFileSync(join(ROOT, path), 'utf8')).length > 0);
    expect(replacing.filter((path) => !UNIT_ISOLATED.includes(path))).toEqual([]);
    expect(UNIT_ISOLATED.filter((path) => !replacing.includes(path))).toEqual([]);
    expect(unitFiles.length).toBeGreaterThan(100);
  });

  test('the scan finds each kind of replacement, and not a mention in a string', () => {
    const sample = [
      "vi.useFakeTimers({ toFake: ['setTimeout'] });",
      "const now = vi.spyOn(Date, 'now');",
      "vi.stubGlobal('fetch', emu.fetch);",
      "process.env.CATALOG_EMULATOR_URL = 'http://x';",
      "process.env['X'] = '1';",
      'globalThis.fetch = emu.fetch;',
      "import { setupServer } from 'msw/node';",
      "const text = 'vi.useFakeTimers(); globalThis.x = 1';",
      'if (process.env.X === "1") run();',
      "vi.mock('./module.js');",
    ].join('\n');
    expect(replacingLines(sample)).toEqual([1, 2, 3, 4, 5, 6, 7, 10]);
  });
});
