#!/usr/bin/env bash
# docs/cli.md "Driving a running server from the command line", run as written by examples/cli.test.ts against a
# server started with --clock manual, whose ready company has a webhook destination.
set -euo pipefail
# #region readme
# URL: the running server ("listening on …"), e.g. URL=http://127.0.0.1:4747; COMPANY: a company's id
export CATALOG_EMULATOR_URL=$URL

# The clock: where it is, then one day later (each task due in that day runs at its own time)
npx catalog-emulator clock
npx catalog-emulator clock advance 1d

# Two 503s with Retry-After for product edits; half of the webhook deliveries reset; the faults in force
npx catalog-emulator fault add --method PATCH --path '/v1/produtos/*' --status 503 --retry-after 2 --times 2
npx catalog-emulator fault add --target delivery --reset --probability 0.5 --times forever
npx catalog-emulator fault list
npx catalog-emulator fault remove --all

# A test event to the company's webhook destination, delivered as the clock runs
npx catalog-emulator events trigger --company "$COMPANY" --type webhook.teste
npx catalog-emulator clock run-until-idle

# In another terminal, until Ctrl+C: everything the server does, as its own log prints it
#   npx catalog-emulator logs tail
# #endregion
