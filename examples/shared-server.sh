#!/usr/bin/env bash
# The flow with curl of docs/sharing-a-server.md, run as written by examples/cli.test.ts against a started server.
set -euo pipefail
# #region readme
# URL: the shared server, e.g. URL=http://127.0.0.1:4747
JSON='content-type: application/json'

# A company on its own clock: the answer has its companyId and token
COMPANY_JSON=$(curl -s -X POST $URL/_emulator/companies -H "$JSON" -d '{"clock":"own","cnpjRoot":"11222333"}')
echo "$COMPANY_JSON"
COMPANY=$(node -p "($COMPANY_JSON).companyId")
TOKEN=$(node -p "($COMPANY_JSON).token")

# The API, as that company
curl -s -w ' %{http_code}\n' $URL/v1/empresa -H "Authorization: Bearer $TOKEN"

# A delivery fault for it alone, then one day later for it alone
curl -s -w ' %{http_code}\n' -X POST $URL/_emulator/companies/$COMPANY/faults -H "$JSON" \
  -d '{"target":"delivery","effect":{"status":500},"times":7}'
curl -s -w ' %{http_code}\n' -X POST $URL/_emulator/companies/$COMPANY/clock/advance -H "$JSON" -d '{"by":"1d"}'

# Back as it was created, then gone
curl -s -o /dev/null -w '%{http_code}\n' -X POST $URL/_emulator/companies/$COMPANY/reset -H "$JSON"
curl -s -o /dev/null -w '%{http_code}\n' -X DELETE $URL/_emulator/companies/$COMPANY
# #endregion
