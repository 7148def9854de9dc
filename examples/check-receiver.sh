#!/usr/bin/env bash
# The check-receiver example of the README and docs/grading.md, run as written by examples/receiver-check.test.ts
# against receivers it serves on 127.0.0.1.
set -euo pipefail
# #region readme
# RECEIVER: your receiver's URL; SECRET: the secret it verifies with (PREVIOUS: the one before it, when it was rotated)
npx catalog-emulator check-receiver --url "$RECEIVER" --secret "$SECRET" ${PREVIOUS:+--previous-secret "$PREVIOUS"}
# #endregion
