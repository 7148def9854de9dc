/**
 * One journal entry as one line of the CLI's request log (--log pretty|json).
 *
 * The method and the path are the client's (the path percent-decoded): written raw, a %0A in a path forges a
 * second log line and a %1B[2J reaches the terminal. The pretty line escapes every character that moves the
 * cursor, breaks the line or reorders the text, so each request stays one readable line; the json line is
 * JSON.stringify's, which escapes C0 controls, and a parser reads U+2028/U+2029 inside a JSON string as the
 * characters they are.
 */
import type { JournalEntry } from '../src/index.js';

export type LogFormat = 'pretty' | 'json';

export function formatEntry(entry: JournalEntry, log: LogFormat): string {
  if (log === 'json') return JSON.stringify(entry);
  const flags = [entry.replayed ? 'replayed' : '', entry.faultId ? `fault ${entry.faultId}` : ''].filter(Boolean).join(', ');
  return `${entry.at} ${escapeControls(entry.method).padEnd(6)} ${escapeControls(entry.path)} → ${entry.status}${flags ? ` (${flags})` : ''}`;
}

/**
 * C0 controls, DEL, C1 controls, the line and paragraph separators (U+2028, U+2029) and the bidirectional
 * controls (ALM U+061C, LRM/RLM U+200E/U+200F, embeddings and overrides U+202A–U+202E, isolates
 * U+2066–U+2069), and the backslash itself: escaped, a backslash in the log always begins an escape, so a
 * client cannot write a "\x1b" of its own that reads like one.
 */
const UNSAFE = /[\\\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

/** `text` with each unsafe character as an escape: `\x1b`, `\x0a`, `\u2028`, `\\`. */
export function escapeControls(text: string): string {
  return text.replace(UNSAFE, (char) => {
    if (char === '\\') return '\\\\';
    const code = char.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
