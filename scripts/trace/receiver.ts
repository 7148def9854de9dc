/**
 * What the receiver check (docs/grading.md "Checking your webhook receiver") says of the statements that bind the
 * receiver's own code (spec: SIG-07 to SIG-11, not black-box): the cases that check one from outside, or why none
 * can. The matrix shows it beside the tests of each; the check's own cases and reasons are the one source.
 */
import { RECEIVER_CASES, UNCHECKED_RECEIVER_STATEMENTS } from '../../src/index.js';

/** By statement id: "yes, by the receiver check: `a`, `b`", or "no: why". */
export function receiverNotes(): Map<string, string> {
  const notes = new Map<string, string>();
  const cases = new Map<string, string[]>();
  for (const c of RECEIVER_CASES) cases.set(c.statement, [...(cases.get(c.statement) ?? []), c.id]);
  for (const [statement, ids] of cases)
    notes.set(statement, `yes, by the receiver check: ${ids.map((id) => `\`${id}\``).join(', ')}`);
  for (const [statement, reason] of Object.entries(UNCHECKED_RECEIVER_STATEMENTS))
    notes.set(statement, `no: ${reason}`);
  return notes;
}
