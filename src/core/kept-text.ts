/**
 * Texts a client sends, as the emulator keeps them beyond the request (the journal, the inspector's history, the
 * facts the grading reads): each kept to a bounded length, whoever sent it, so that what a request leaves costs a
 * bounded amount to keep and to search (docs/journal.md). A request is still routed and answered on the whole
 * of what it sent; only what is kept is cut.
 */

/** The longest path kept whole: the journal's, a control call's in the history, and the path faults match. */
export const MAX_PATH = 256;
/** The longest header name or value the history keeps whole, and the most of an If-Match's tags a record keeps. */
export const MAX_HEADER = 1024;
/** What ends a text kept cut: "…". */
export const CUT = '\u2026';

/**
 * `text` as kept: whole when it has at most `max` characters (UTF-16 units); else its first `max` (one more where
 * the cut would split a surrogate pair) followed by CUT. So a kept text longer than `max` is always a cut one, and
 * one of `max` or fewer never is, whatever characters the sender used.
 */
export function keptText(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  const end = code >= 0xd800 && code <= 0xdbff ? max + 1 : max;
  return text.slice(0, end) + CUT;
}

/** A request's path as it is kept (keptText). */
export const keptPath = (path: string): string => keptText(path, MAX_PATH);

/**
 * The tags of an If-Match as a record keeps them: in order, while they hold MAX_HEADER characters in all; a list cut
 * there ends with CUT (never an entity tag, which is quoted).
 */
export function keptTags(tags: readonly string[]): readonly string[] {
  let length = 0;
  for (let i = 0; i < tags.length; i++) {
    length += tags[i]!.length;
    if (length > MAX_HEADER) return [...tags.slice(0, i), CUT];
  }
  return tags;
}
