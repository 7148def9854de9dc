#!/bin/sh
# The Python integration of examples/python run under explore with one planted mistake (a 503 it does not retry):
# examples/python-explore.test.ts runs this command, with the built CLI for `npx catalog-emulator`, and compares what
# it prints with examples/explore-python-output.txt.
# #region readme
npx catalog-emulator explore --runs 100 -- python3 examples/python/catalog_sync.py --mistake no-retry-on-503
# #endregion
