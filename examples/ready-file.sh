#!/bin/sh
# Start the emulator in the background, wait for its ready file, and call it with what the file says.
# #region ready-file
npx catalog-emulator --port 0 --clock manual --log silent --ready-file ./emulator.json >/dev/null &
STARTING=$!
# Polls for the file; gives up if the server exits first (a busy port: exit code 3, the reason on stderr).
until [ -s ./emulator.json ]; do kill -0 $STARTING 2>/dev/null || exit 1; sleep 0.1; done
URL=$(node -p "require('./emulator.json').url")
TOKEN=$(node -p "require('./emulator.json').companies[0].token")
curl -s -H "Authorization: Bearer $TOKEN" "$URL/v1/empresa"
# Stop the server (its pid is in the file): it exits 0 and removes the file, and npx ($!) ends with it.
kill "$(node -p "require('./emulator.json').pid")"
# #endregion
wait
