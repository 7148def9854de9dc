// The inspector example of docs/inspector.md (inspector-timeline.ts), run as a user runs a TypeScript script: tsx,
// against the built package (`npm test` builds first).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));

test("examples/inspector-timeline.ts prints a retry cycle's eight attempts at their virtual times, and an attempt's signature headers", async () => {
  const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'examples/inspector-timeline.ts'], {
    cwd: ROOT,
  });
  expect(stderr).toBe('');
  expect(stdout).toBe(
    [
      '2026-01-01T00:00:00.000Z attempt 1/8 of webhook.teste → falhou 503',
      '2026-01-01T00:00:05.000Z attempt 2/8 of webhook.teste → falhou 503 (+5s after the previous)',
      '2026-01-01T00:05:05.000Z attempt 3/8 of webhook.teste → falhou 503 (+5m after the previous)',
      '2026-01-01T00:35:05.000Z attempt 4/8 of webhook.teste → falhou 503 (+30m after the previous)',
      '2026-01-01T02:35:05.000Z attempt 5/8 of webhook.teste → falhou 503 (+2h after the previous)',
      '2026-01-01T07:35:05.000Z attempt 6/8 of webhook.teste → falhou 503 (+5h after the previous)',
      '2026-01-01T14:35:05.000Z attempt 7/8 of webhook.teste → falhou 503 (+7h after the previous)',
      '2026-01-01T22:35:05.000Z attempt 8/8 of webhook.teste → falhou 503 (+8h after the previous)',
      'content-type, user-agent, service-event-id, service-timestamp, service-signature',
      '',
    ].join('\n'),
  );
}, 60_000);
