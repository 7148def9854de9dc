#!/usr/bin/env bash
# The local-server quick start of the README and docs/local-server.md, run as written by examples/cli.test.ts against a
# started server.
set -euo pipefail
# #region readme
# URL and TOKEN: what `npx catalog-emulator` printed ("listening on …" and "token: …"), e.g.
#   URL=http://127.0.0.1:4747 TOKEN=svc_at_…
AUTH="Authorization: Bearer $TOKEN"
JSON='content-type: application/json'

# The API, as the ready company (each answer is followed by its status)
curl -s -w ' %{http_code}\n' -H "$AUTH" $URL/v1/empresa

# A fault: the next GET /v1/empresa answers 503 with Retry-After: 2, once
curl -s -w ' %{http_code}\n' -X POST $URL/_emulator/faults -H "$JSON" \
  -d '{"target":"api","match":{"method":"GET","path":"/v1/empresa"},"effect":{"status":503,"retryAfter":2}}'
curl -s -w ' %{http_code}\n' -H "$AUTH" $URL/v1/empresa
curl -s -w ' %{http_code}\n' -H "$AUTH" $URL/v1/empresa

# Time travel: one day later, at once (every retry, job and deadline in that day runs at its own time)
curl -s -w ' %{http_code}\n' -X POST $URL/_emulator/clock/advance -H "$JSON" -d '{"by":"1d"}'
# #endregion
