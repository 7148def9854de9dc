import { expect, it } from 'vitest';
import { receiverNotes } from './receiver.js';

it("names the receiver check's cases of each statement they check, and why SIG-09 and SIG-10 cannot be checked", () => {
  const notes = receiverNotes();
  expect(notes.get('SIG-07')).toBe('yes, by the receiver check: `exact-bytes`');
  const sig08 = ['within-tolerance', 'late-retry', 'stale-timestamp', 'future-timestamp'];
  expect(notes.get('SIG-08')).toBe(`yes, by the receiver check: ${sig08.map((id) => `\`${id}\``).join(', ')}`);
  expect(notes.get('SIG-11')).toBe('yes, by the receiver check: `duplicate`');
  expect(notes.get('SIG-09')).toMatch(/^no: a constant-time comparison: one that stops at the first differing byte/);
  expect(notes.get('SIG-10')).toMatch(
    /^no: the event id recorded in the transaction that applies the event: no answer shows it/,
  );
  expect(notes.get('ANA-06')).toBeUndefined();
});
