#!/usr/bin/env bash
# The container quick start of the README (its build region) and docs/container.md. container/image.test.ts runs the
# "run" region with podman as `docker`, the image it built in place of catalog-emulator:0.1.0, a container name and a
# free host port of its own in place of "emulator" and 4010, and checks the "build" region names the Containerfile and
# that tag.
set -eu
# #region build
# In a clone of the repository (the build runs npm ci and the package's build: it needs the npm registry)
docker build -f Containerfile -t catalog-emulator:0.1.0 .
# #endregion

# #region run
docker run -d --name emulator -p 127.0.0.1:4010:4010 -e CATALOG_EMULATOR_CLOCK=manual catalog-emulator:0.1.0

# Its start line, the first line it prints, has a ready company's token: wait for it, then read the token
until docker logs emulator 2>/dev/null | grep -q '"kind":"ready"'; do sleep 0.2; done
TOKEN=$(docker logs emulator 2>/dev/null | sed -n 1p | grep -o '"token":"[^"]*"' | sed -n 1p | cut -d'"' -f4)

curl -s -w ' %{http_code}\n' -H "Authorization: Bearer $TOKEN" http://127.0.0.1:4010/v1/empresa
curl -s -w ' %{http_code}\n' -X POST http://127.0.0.1:4010/_emulator/clock/advance \
  -H 'content-type: application/json' -d '{"by":"1d"}'
docker stop emulator
# #endregion
