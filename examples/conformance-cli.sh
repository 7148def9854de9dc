#!/usr/bin/env bash
# The `catalog-emulator conformance` example of docs/conformance-testing.md, run as written by examples/cli.test.ts
# against a server started with --no-controls (with a file filter, to stay short).
set -euo pipefail
# #region readme
# URL: the service's base URL, without /v1. TOKEN: a credential of a company kept for testing, holding all six
# permissions; READER and WRITER: credentials of that company holding only catalogo:ler, and only catalogo:ler
# and catalogo:gerenciar; OTHER: a credential of a second test company.
npx catalog-emulator conformance --base-url "$URL" --token "$TOKEN" --other-token "$OTHER" \
  --token-for catalogo:ler="$READER" \
  --token-for catalogo:gerenciar+catalogo:ler="$WRITER" "$@"
# #endregion
