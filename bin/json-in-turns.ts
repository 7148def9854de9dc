/**
 * JSON.stringify's text of a large value, made a part at a time, the event loop let through whenever a part took
 * `sliceMs`: a fold of `serve --state` writes a snapshot of tens of megabytes while the server goes on answering,
 * where one JSON.stringify held every request for a sixth of a second.
 *
 * The value is walked as JSON.stringify walks it (own enumerable keys in their order, toJSON, undefined and
 * functions left out of objects and null in arrays); a record, a value whose children are all small, is handed to
 * JSON.stringify whole, which is where nearly all of the text is made.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

/** The most children a record may have, and how deep they may go, to be stringified whole. */
const RECORD_WIDTH = 64;
const RECORD_DEPTH = 3;

export async function stringifyInTurns(value: unknown, sliceMs = 8): Promise<string> {
  const parts: string[] = [];
  const walk = writer(parts);
  let since = performance.now();
  for (let step = walk(value); !step.next().done; ) {
    if (performance.now() - since < sliceMs) continue;
    await nextTurn();
    since = performance.now();
  }
  return parts.join('');
}

/** A walk that pushes the text of each part it reaches and pauses (yields) after each. */
function writer(parts: string[]): (value: unknown) => Generator<void, void, void> {
  return function* write(value: unknown): Generator<void, void, void> {
    if (isRecord(value, RECORD_DEPTH)) {
      parts.push(JSON.stringify(value) ?? 'null');
      return;
    }
    if (Array.isArray(value)) {
      parts.push('[');
      for (let i = 0; i < value.length; i++) {
        if (i > 0) parts.push(',');
        const item: unknown = value[i];
        if (omitted(item)) parts.push('null');
        else yield* write(item);
        yield;
      }
      parts.push(']');
      return;
    }
    parts.push('{');
    let first = true;
    for (const key of Object.keys(value as object)) {
      const item: unknown = (value as Record<string, unknown>)[key];
      if (omitted(item)) continue;
      parts.push(first ? '' : ',', JSON.stringify(key), ':');
      first = false;
      yield* write(item);
      yield;
    }
    parts.push('}');
  };
}

/** What JSON.stringify leaves out of an object (and writes as null in an array). */
const omitted = (value: unknown): boolean =>
  value === undefined || typeof value === 'function' || typeof value === 'symbol';

/**
 * Whether `value` is small enough to be stringified whole: anything but a plain object or array (JSON.stringify
 * then decides, toJSON included), or one of at most RECORD_WIDTH children that are themselves records `depth` deep.
 */
function isRecord(value: unknown, depth: number): boolean {
  if (typeof value !== 'object' || value === null) return true;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return true;
  const proto: unknown = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) return true;
  if (depth === 0) return false;
  if (Array.isArray(value)) {
    if (value.length > RECORD_WIDTH) return false;
    for (const item of value) if (!isRecord(item, depth - 1)) return false;
    return true;
  }
  const keys = Object.keys(value);
  if (keys.length > RECORD_WIDTH) return false;
  for (const key of keys) if (!isRecord((value as Record<string, unknown>)[key], depth - 1)) return false;
  return true;
}
