#!/usr/bin/env bash
# The run of the spec tests against a server of docs/conformance-testing.md, run as written by examples/cli.test.ts
# (with a file filter, to stay short).
set -euo pipefail
# #region readme
# In a clone of the repository, after `npm ci`. URL: a running emulator started with --clock manual.
# Every spec test, then the suites that share one server at once; name files (or parts of names) to run fewer.
SPEC_BASE_URL=$URL npx vitest run --project spec-server --project shared-server "$@"
# #endregion
