/**
 * Which unit test files run isolated. The unit project shares its worker's modules between files (isolate: false,
 * vitest.config.ts), as loading them again for each file was half of what it cost; these files run in the project
 * unit-isolated instead, each in a fresh worker of its own, as they replace for a while what every module of the
 * process sees: a global (vi.stubGlobal, msw), a timer (vi.useFakeTimers), a built-in's method (vi.spyOn(Date,
 * 'now')), an environment variable, a module (vi.mock). A module first loaded while one of them held its
 * replacement could keep it. scripts/isolated-tests.test.ts fails when a file does one of these things and is not
 * listed, and when a listed file no longer does. What a file leaves behind without meaning to (a server's globals)
 * is put back before each file of the shared project by scripts/unit-globals.ts.
 */
export const UNIT_ISOLATED = [
  'src/answer-faults.test.ts',
  'src/clock/clock.test.ts',
  'src/emulator.test.ts',
  'src/engine/config.test.ts',
  'src/inspector/server/inspector.test.ts',
  'src/network/transport-under-mocks.test.ts',
  'src/network/transport.test.ts',
  'src/own-clock.test.ts',
];

/** Code that replaces what every module sees, as a test file writes it (outside its strings). */
const REPLACES = [
  /\bvi\.(useFakeTimers|spyOn|stubGlobal|stubEnv|mock|doMock|setSystemTime)\(/,
  /\bglobalThis\.[\w$]+\s*=[^=]/,
  /\bprocess\.env(\.[\w$]+|\[[^\]]+\])\s*=[^=]/,
  /\bObject\.defineProperty\((globalThis|process)\b/,
];
/** An import of msw, which patches the global fetch and the Request it sees. */
const IMPORTS_MSW = /^\s*import\b.*\bfrom\s+['"]msw(\/[\w/]*)?['"]/;

/** The 1-based lines of a test file's text that replace what every module sees (string literals aside). */
export function replacingLines(text: string): number[] {
  return text.split('\n').flatMap((line, index) => {
    const code = line.replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`(?:[^`\\]|\\.)*`/g, "''");
    return IMPORTS_MSW.test(line) || REPLACES.some((pattern) => pattern.test(code)) ? [index + 1] : [];
  });
}
