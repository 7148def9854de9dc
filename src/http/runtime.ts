/**
 * What the HTTP shell reads a request's body through, and what it is handed with each request (HttpEnv): the
 * runtimes it runs the request against (src/engine/runtimes.ts, the port it is written to) and the body.
 */
import type { Runtimes } from '../engine/runtimes.js';

/**
 * Where a request's body comes from. In process it is the Request's stream; the HTTP server provides one
 * built from the Node message, which knows whether a body was sent at all (HTTP/1.1: a length or chunked
 * encoding) and reads it straight from the socket rather than through a web stream.
 */
export interface BodySource {
  /** Whether the request carries a body (before reading it). */
  readonly present: boolean;
  /**
   * The body's bytes, or undefined as soon as they exceed `limit`. Rejects with a BodyReadError, and nothing
   * else, when the body cannot be read to its end.
   */
  read(limit: number): Promise<Uint8Array | undefined>;
  /**
   * The body's bytes at once when all of them have already arrived (undefined past `limit`, as read() answers),
   * else STILL_ARRIVING, and read() waits for them. Over a socket, a body that came with its headers (nearly every
   * one) is read without awaiting anything; in process a Request's stream is always read().
   */
  readArrived(limit: number): Uint8Array | undefined | typeof STILL_ARRIVING;
  /**
   * Over a socket, the request's headers as sent: name, value, … (Node's rawHeaders), which the history reads
   * rather than the Request's `headers`, whose Headers object is built on first use.
   */
  readonly rawHeaders?: readonly string[];
}

/** What readArrived answers while a body has not wholly arrived. */
export const STILL_ARRIVING: unique symbol = Symbol('still arriving');

/**
 * A request body that could not be read to its end: cut short (the connection ended before the declared
 * length or the last chunk), badly framed (a chunk size that is no number, a transfer coding other than
 * chunked), or a stream that failed. The client's doing, never the emulator's: whoever reads a body maps it to
 * a 400 (errors.ts unreadableBody), not to the 500 of a bug.
 */
export class BodyReadError extends Error {
  constructor(cause: unknown) {
    super(cause instanceof Error && cause.message !== '' ? cause.message : String(cause), { cause });
    this.name = 'BodyReadError';
  }
}

/** Runs a body source's reading, turning whatever it throws or rejects with into a BodyReadError. */
export function readingBody<T>(read: () => Promise<T>): Promise<T> {
  let reading: Promise<T>;
  try {
    reading = read();
  } catch (error) {
    return Promise.reject(asBodyReadError(error));
  }
  return reading.catch((error: unknown) => Promise.reject(asBodyReadError(error)));
}

const asBodyReadError = (error: unknown): BodyReadError =>
  error instanceof BodyReadError ? error : new BodyReadError(error);

export interface HttpEnv {
  /**
   * `target`: over a socket, the request target as the client sent it (server.ts), which routing reads instead of
   * the request's URL, whose dot segments are resolved; in process there is none: the URL is what the caller made.
   */
  Bindings: { runtimes: Runtimes; body?: BodySource; target?: string };
}
