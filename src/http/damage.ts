/**
 * Answers an api fault damages on their way to the client (the `reset`, `truncate` and `trickleMs` effects): the
 * fault's act (fault-hooks.ts) marks the answer with what to do, and whoever sends it does it, as a broken network
 * or server would show it to the client:
 *
 * - over a socket (server.ts, sendDamaged): `reset` resets the connection before a byte of the answer (the client
 *   reads ECONNRESET); `truncate` writes the status line, the headers with the whole body's Content-Length and the
 *   first half of the body, then closes the connection; `trickleMs` writes the headers at once and the body a piece
 *   at a time, its last byte that many milliseconds (real time) later;
 * - in process (emu.fetch, inProcess): what fetch gives for the same: `reset` rejects with fetch's network error
 *   (a TypeError "fetch failed" caused by ECONNRESET); `truncate` answers, and reading the body fails with the
 *   TypeError "terminated" fetch gives for a connection closed mid-body, after the first half; `trickleMs` answers,
 *   its body arriving in pieces over that real time.
 *
 * The trickle takes real time in process too: what it exercises is a client's read time-out, which counts real
 * time. In process its timer runs only while the body is being read (as a socket would, it keeps the process alive
 * for the reader), and a cancelled read stops it; over a socket a closing server cuts the connection (server.ts).
 */

/** What the sender does to an answer. */
export type Damage =
  | { readonly kind: 'reset' }
  | { readonly kind: 'truncate' }
  | { readonly kind: 'trickle'; readonly ms: number };

const marks = new WeakMap<Response, Damage>();

/** `response` marked to be sent with `damage`. */
export function damaged(response: Response, damage: Damage): Response {
  marks.set(response, damage);
  return response;
}

/** The damage `response` is marked with, if any. */
export function damageOf(response: Response): Damage | undefined {
  return marks.get(response);
}

/** About one piece of a trickled body a tenth of a second. */
const TRICKLE_PIECE_MS = 100;

/** How a trickled body of `length` bytes is cut: the pieces' sizes and the time between two of them. */
export function trickle(length: number, ms: number): { readonly pieces: number; readonly everyMs: number } {
  const pieces = Math.max(1, Math.min(length, Math.ceil(ms / TRICKLE_PIECE_MS)));
  return { pieces, everyMs: ms / pieces };
}

/** The bytes of piece `index` of `pieces` of `body`. */
export const pieceOf = (body: Uint8Array, index: number, pieces: number): Uint8Array =>
  body.subarray(Math.floor((body.length * index) / pieces), Math.floor((body.length * (index + 1)) / pieces));

/** The error fetch rejects with when the connection was reset before an answer: TypeError "fetch failed", caused by ECONNRESET. */
function connectionReset(): TypeError {
  const cause = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', errno: -104, syscall: 'read' });
  return new TypeError('fetch failed', { cause });
}

/** The error reading a body fails with when the connection closed before its end, as fetch (undici) words it. */
function bodyCutShort(): TypeError {
  const cause = Object.assign(new Error('other side closed'), { name: 'SocketError', code: 'UND_ERR_SOCKET' });
  return new TypeError('terminated', { cause });
}

/** An answer as emu.fetch gives it: a damaged one as fetch would show it (see above); any other as it is. */
export async function inProcess(response: Response): Promise<Response> {
  const damage = marks.get(response);
  if (damage === undefined) return response;
  if (damage.kind === 'reset') throw connectionReset();
  const body = new Uint8Array(await response.arrayBuffer());
  const headers = new Headers(response.headers);
  headers.set('content-length', String(body.length));
  const init = { status: response.status, headers };
  if (damage.kind === 'truncate') {
    const half = body.subarray(0, Math.floor(body.length / 2));
    return new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          if (half.length > 0) controller.enqueue(half);
        },
        pull(controller) {
          controller.error(bodyCutShort());
        },
      }),
      init,
    );
  }
  const { pieces, everyMs } = trickle(body.length, damage.ms);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let sent = 0;
  return new Response(
    new ReadableStream<Uint8Array>(
      {
        // One piece per pull, each after its wait: the reader's pace never makes the body come sooner.
        pull: (controller) =>
          new Promise<void>((resolve) => {
            timer = setTimeout(() => {
              controller.enqueue(pieceOf(body, sent, pieces));
              if (++sent === pieces) controller.close();
              resolve();
            }, everyMs);
          }),
        cancel: () => clearTimeout(timer),
      },
      { highWaterMark: 0 },
    ),
    init,
  );
}
