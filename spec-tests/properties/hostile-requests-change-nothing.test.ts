/**
 * Property: no hostile request, to the API or to any control, gets a 5xx or hangs, and a refused one changes
 * nothing (a refused control call leaves the whole state byte-identical; a refused API call all but the
 * request-id source). The requests start from every control's and operation's real shape and are damaged:
 * hostile leaves, dropped and added keys, wrong content types, bad or oversized JSON, hostile ids and headers,
 * and snapshots of the current state with a leaf mutated (PUT /_emulator/state).
 *
 * This is the CI-sized run of the generator behind `npm run fuzz`, which sends 100,000 of them.
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { check, fuzzWorld, hostileRequest, inProcessSend } from '../../fuzz/hostile.js';
import { PROPERTY_TIMEOUT, runs } from './support/lab.js';

describe('hostile requests', () => {
  it(
    'never get a 5xx or hang, and change nothing when refused',
    async () => {
      const world = await fuzzWorld();
      const send = inProcessSend(world);
      let sent = 0;
      await fc.assert(
        fc.asyncProperty(hostileRequest(world), async (request) => {
          // Back to the fuzz world now and then, so the state stays small whatever was accepted.
          if (++sent % 100 === 0) {
            world.emu.restore(world.base);
            world.emu.journal.clear();
          }
          const violation = await check(world, send, request);
          if (violation) throw new Error(`${violation.problem}\n${violation.request.method} ${violation.request.path}`);
        }),
        // The failing request is reported whole; shrinking a snapshot-sized input would take minutes for nothing.
        { numRuns: runs(1_500), endOnFailure: true },
      );
    },
    PROPERTY_TIMEOUT,
  );
});
