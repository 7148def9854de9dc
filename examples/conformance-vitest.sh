#!/usr/bin/env bash
# The conformance run with vitest of docs/conformance-testing.md, run as written by examples/cli.test.ts against a
# server started with --no-controls (with a file filter, to stay short).
set -euo pipefail
# #region readme
# In a clone of the repository, after `npm ci`; URL, TOKEN, OTHER, READER and WRITER as for the command above.
CONFORMANCE_BASE_URL=$URL CONFORMANCE_TOKEN=$TOKEN CONFORMANCE_OTHER_TOKEN=$OTHER \
CONFORMANCE_TOKEN_FOR="catalogo:ler=$READER,catalogo:gerenciar+catalogo:ler=$WRITER" \
  npx vitest run --project conformance "$@"
# #endregion
