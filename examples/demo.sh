#!/usr/bin/env bash
# The teaching-demo quick start of the README and docs/demos.md, run as written by examples/cli.test.ts.
set -euo pipefail
# #region readme
npx catalog-emulator demo                    # lists the scenarios
npx catalog-emulator demo idempotent-retry   # runs one, narrated request by request
# #endregion
