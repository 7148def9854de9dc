/**
 * What the bundled spec tests get when they import 'vitest' or 'vitest/suite' (scripts/conformance-bundle.ts
 * aliases both here), so that `catalog-emulator conformance` runs them with no vitest installed.
 *
 * The tests are collected and run by Vitest's own runner (@vitest/runner: describe/it and their .each, .runIf,
 * options with a timeout, the hooks in Vitest's order, onTestFinished, `getCurrentTest().context.skip(note)`), and
 * assert with Vitest's own matchers (@vitest/expect over chai): the same tests behave the same under `vitest run
 * --project conformance` and under the CLI, and their failure messages read the same.
 */
import {
  chai,
  GLOBAL_EXPECT,
  JestAsymmetricMatchers,
  JestChaiExpect,
  JestExtend,
  setState,
  type ExpectStatic,
} from '@vitest/expect';

import { getCurrentTest } from '@vitest/runner';

export {
  afterAll,
  afterEach,
  beforeAll,
  beforeEach,
  describe,
  getCurrentTest,
  it,
  onTestFailed,
  onTestFinished,
  suite,
  test,
} from '@vitest/runner';

/** Vitest's TestRunner as the spec tests use it: its static getCurrentTest() (Vitest 4.1's way; 'vitest/suite' is deprecated). */
export const TestRunner = { getCurrentTest };

chai.use(JestExtend);
chai.use(JestChaiExpect);
chai.use(JestAsymmetricMatchers);

/** Vitest's expect: chai's, with the Jest matchers and the asymmetric ones (expect.any, expect.objectContaining…). */
export const expect = ((value: unknown, message?: string) => chai.expect(value, message)) as unknown as ExpectStatic;
Object.assign(expect, chai.expect);
setState(
  {
    assertionCalls: 0,
    isExpectingAssertions: false,
    isExpectingAssertionsError: null,
    expectedAssertionsNumber: null,
    expectedAssertionsNumberErrorGen: null,
    environment: 'node',
    testPath: '',
    currentTestName: '',
  },
  expect,
);
(globalThis as Record<symbol, unknown>)[GLOBAL_EXPECT] = expect;

/** Names the test being run in expect's state, as Vitest does (some matchers' messages use it). */
export function setCurrentTestName(name: string, testPath: string): void {
  setState({ assertionCalls: 0, currentTestName: name, testPath }, expect);
}

/**
 * Vitest's `inject`: the values a global setup provided. The CLI runs no global setup, so nothing is provided
 * (the spec tests read undefined as "no server of this run").
 */
export function inject(_key: string): undefined {
  return undefined;
}
