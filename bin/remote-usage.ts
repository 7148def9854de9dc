/**
 * The usage of the commands for a running server, as parts of the bin's one usage text (catalog-emulator.ts
 * USAGE): their lines of the Usage block, and their options. `help COMMAND` cuts a command's part from that text
 * (help.ts), the shared options included.
 */

/** Their lines in the Usage block. */
export const REMOTE_USAGE_LINES = `  catalog-emulator clock [advance DURATION | run-until-idle] [options]
                                       show, move or run the clock of a running server
  catalog-emulator fault add|list|near-misses|remove [options]
                                       inject, list, explain or remove a running server's faults
  catalog-emulator events trigger --company ID --type TYPE [--data JSON]
                                       raise a webhook event of a running server's company
  catalog-emulator logs tail [--json] [--company ID] [--kind KINDS]
                                       follow a running server's activity, as serve logs it
  catalog-emulator report [--json]     print a running server's report`;

/** Their options, and their exit codes. */
export const REMOTE_OPTIONS = `Options of clock:
  (no action)         show the clock: now, mode, work pending and deadlines scheduled
  advance DURATION    move it forward, running each task due at its own time: 90s, 15m, 24h, 1d,
                      1h30m, or milliseconds
  advance --to ISO    move it to that instant
  run-until-idle [--limit N]
                      run the service's work (deliveries, job runs, held requests) until none is
                      left, at most N tasks (default 10000)
  --company ID        the clock of that company, one on a clock of its own
  --json              print the server's answer (JSON) instead of the line

Options of fault:
  add                 inject one: an effect, a match, --times, --probability, for --target api
                      (the default), delivery or job
    effect            api: --status N [--retry-after S], --lose-response, --concurrent-edit,
                      --delay-ms N, --malformed-json, --reset, --truncate, --trickle-ms N;
                      delivery: --status N, --redirect URL, --timeout, --refuse, --reset,
                      --latency-ms N, --duplicate, --tamper signature|body|timestamp;
                      job: --fail, --delay-ms N
    match             api: --method M, --path GLOB; delivery: --match-url GLOB, --event-type T;
                      job: --kind K; any: --company ID
    --times N|forever the firings before it is spent (default 1)
    --probability P   the chance that each matching occurrence fires (default 1)
    --json FAULT      the whole fault as JSON instead, e.g. '{"target":"api","effect":{"status":503}}'
  list [--company ID] the faults in force, with the firings left and hits (--json: as JSON)
  near-misses ID [--company ID]
                      why a fault has not fired: the requests (deliveries, job runs) since it was
                      armed that came closest, what each failed and met (--company: that
                      company's only; --json: as JSON)
  remove ID           remove one fault
  remove --all [--company ID]
                      remove every fault (of that company)

Options of events:
  trigger             raise an event of any kind for the webhook destination of --company ID,
                      delivered like the service's own: --type TYPE (webhook.teste is a test
                      event; catalogo.aplicado, analise.concluida, …), --data JSON its other fields
  --json              print the server's answer (JSON) instead of the line

Options of logs:
  tail                follow the server's activity until Ctrl+C, each entry as serve logs it
  --json              one JSON object per line instead
  --company ID        only that company's entries
  --kind KINDS        only these: request, control, delivery, job, finding (comma-separated or
                      repeated)

Options of clock, fault, events, logs and report (the commands for a running server):
  --url URL           the server (default http://127.0.0.1:4747); also read from
                      CATALOG_EMULATOR_URL (the flag wins)
  --control-token T   its control token; also read from CATALOG_EMULATOR_CONTROL_TOKEN
  --request-timeout-ms N
                      the time each request may take, to its answer's last byte (default 30000)
Exit codes of these: 0 done (logs tail: stopped by Ctrl+C, SIGTERM or its reader closing stdout), 1
the server refused (the line is its message), or ended the stream logs tail follows, 2 bad usage, or
no catalog-emulator was reached at the URL: nothing answered, or what did is not the emulator's
answer (a redirect, a body over 16 MiB, not the control's answer; the line names it and why).
`;
