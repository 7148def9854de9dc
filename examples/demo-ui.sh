# URL: what `npx catalog-emulator demo webhook-retries --ui` printed ("listening on …"), e.g.
#   URL=http://127.0.0.1:4747
# Its inspector page (…/_emulator/ui) shows the steps; its "Next step" button runs the next one. From a shell:
curl -s $URL/_emulator/inspector/demo; echo                       # the step it waits at, "waiting": true
curl -s -X POST $URL/_emulator/inspector/demo/next -H 'content-type: application/json'; echo
