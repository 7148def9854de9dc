#!/usr/bin/env bash
# The stand-in deployment of docs/conformance-testing.md: the emulator serving the API alone, with the fixtures the
# package ships for the conformance command. examples/cli.test.ts serves its command line (the fixtures path read from
# the build) and reads the banner.
set -euo pipefail
# #region readme
npx catalog-emulator serve --no-controls --fixtures node_modules/catalog-emulator/dist/conformance/fixtures.json
# The banner lists both companies' tokens, and each restricted credential with its permissions (the --json start
# line has them as companies[].credentials[]): pass them as --token, --other-token and --token-for.
# #endregion
