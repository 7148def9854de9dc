import { expect, it } from 'vitest';
import { receiverNotes } from './receiver.js';

it("names the receiver check's cases of each statement they check, and why SIG-09 and SIG-10 cannot be checked", () => {
  const notes = receiverNotes();
  expect(notes.get('SIG-07')).toBe('checked by the receiver check: `exact-bytes`');
  expect(notes.get('SIG-08')).toBe('checked by the receiver check: `within-tolerance`, `stale-timestamp`, `future-timestamp`');
  expect(notes.get('SIG-11')).toBe('checked by the receiver check: `duplicate`');
  expect(notes.get('SIG-09')).toMatch(/^not checkable from outside: a constant-time comparison cannot be checked from outside/);
  expect(notes.get('SIG-10')).toMatch(/^not checkable from outside: no answer shows whether the event id is recorded/);
  expect(notes.get('ANA-06')).toBeUndefined();
});
