#!/usr/bin/env bash
# The README's teaching-demo quick start, run as written by examples/cli.test.ts.
set -euo pipefail
# #region readme
npx catalog-emulator demo                    # lists the scenarios
npx catalog-emulator demo idempotent-retry   # runs one, narrated request by request
# #endregion
