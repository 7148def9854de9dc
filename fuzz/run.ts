/**
 * npm run fuzz [-- --requests N] [--seed S] [--http]
 *
 * Sends N hostile requests (default 100,000) to the API and to every control of one emulator and checks, for
 * each, the invariants of fuzz/hostile.ts: no 5xx, no answer slower than 2 s, and a refused request changes
 * nothing. In process through emu.fetch by default; with --http over a real socket to emu.listen(). The state
 * goes back to the fuzz world every REBASE_EVERY requests, so it never grows without bound. Exits 1 on the
 * first violation, printing the request that broke it.
 */
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { check, fuzzWorld, HANG_MS, hostileRequest, inProcessSend, type Send } from './hostile.js';

const REBASE_EVERY = 250;

const { values } = parseArgs({
  options: { requests: { type: 'string' }, seed: { type: 'string' }, http: { type: 'boolean' } },
});
const total = Number(values.requests ?? 100_000);
const seed = Number(values.seed ?? 1);
if (!Number.isInteger(total) || total < 1)
  throw new RangeError(`--requests must be a positive integer; got ${values.requests}`);

const world = await fuzzWorld();
let send: Send = inProcessSend(world);
let close = async () => {};
if (values.http) {
  const server = await world.emu.listen({ port: 0 });
  close = () => world.emu.close();
  send = async (request) => {
    const response = await fetch(`${server.url}${request.path}`, {
      method: request.method,
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: request.body }),
      signal: AbortSignal.timeout(HANG_MS),
    });
    return { status: response.status, text: await response.text() };
  };
}

const statuses = new Map<string, number>();
let slowestMs = 0;
const started = performance.now();
const batch = REBASE_EVERY;
let sent = 0;
for (let round = 0; sent < total; round++) {
  const requests = fc.sample(hostileRequest(world), {
    numRuns: Math.min(batch, total - sent),
    seed: seed * 1_000_003 + round,
  });
  for (const request of requests) {
    const t0 = performance.now();
    const timed: Send = async (r) => {
      const answer = await send(r);
      const family = `${Math.floor(answer.status / 100)}xx ${r.plane}`;
      statuses.set(family, (statuses.get(family) ?? 0) + 1);
      return answer;
    };
    const violation = await check(world, timed, request);
    slowestMs = Math.max(slowestMs, performance.now() - t0);
    sent++;
    if (violation) {
      const { body, ...shown } = violation.request;
      process.stderr.write(
        `\nviolation after ${sent} requests: ${violation.problem}\nrequest: ${JSON.stringify(shown)}\nbody (first 2,000 characters): ${(body ?? '').slice(0, 2_000)}\n`,
      );
      await close();
      process.exit(1);
    }
  }
  world.emu.restore(world.base);
  world.emu.faults.clear();
  world.emu.journal.clear();
  world.emu.inbox.clear();
  if (round % 20 === 0) process.stdout.write(`\r${sent} requests…`);
}
await close();
const seconds = (performance.now() - started) / 1000;
process.stdout.write(
  `\r${sent} hostile requests ${values.http ? 'over HTTP' : 'in process'} in ${seconds.toFixed(1)} s: 0 violations (no 5xx, none over ${HANG_MS} ms, every refusal changed nothing)\n`,
);
process.stdout.write(`slowest answer (with its state checks): ${slowestMs.toFixed(0)} ms\n`);
for (const [family, count] of [...statuses].sort()) process.stdout.write(`  ${family}: ${count}\n`);
