/**
 * The Request an in-process receiver gets, built only when the handler first reads it.
 *
 * Building a Fetch Request is most of what an attempt to an in-process handler costs: undici parses the URL,
 * copies the headers, wraps the body in a ReadableStream and gives the request an AbortController: a fifth or more
 * of a long advance over failing deliveries (ARCHITECTURE.md "Choices made for speed"), spent on handlers
 * that mostly never look at it (a receiver simulating an outage answers 500 whatever it gets). So the handler
 * gets a stand-in: an object whose prototype is Request.prototype (`instanceof Request` holds), on which every
 * member of Request forwards to the real Request, built on the first read with the exact url, headers and
 * body it would have had. undici's own code reads a Request through symbol-keyed slots (`fetch(request)`, `new
 * Request(request)`, `Request.prototype.text.call(request)`); those slots forward too.
 *
 * Whether the stand-in passes for a Request on this runtime is checked once, on the first delivery: the copy
 * `new Request(standIn)` makes, as fetch does, must be the same request. Where it is not (a runtime whose
 * Request keeps its state in private fields), every attempt gets a real Request, as before.
 */
export interface RequestParts {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

const build = (parts: RequestParts): Request =>
  new Request(parts.url, { method: 'POST', headers: parts.headers, body: parts.body });

class DeferredRequest {
  #parts: (() => RequestParts) | undefined;
  #real: Request | undefined;

  constructor(parts: () => RequestParts) {
    this.#parts = parts;
  }

  /** The real Request, built on the first call. */
  static real(request: DeferredRequest): Request {
    if (request.#real === undefined) {
      request.#real = build(request.#parts!());
      request.#parts = undefined;
    }
    return request.#real;
  }
}

/** Gives DeferredRequest.prototype every member of Request's prototype chain and the slots of an instance, forwarded. */
function forwardRequestMembers(): void {
  const proto = DeferredRequest.prototype as unknown as Record<PropertyKey, unknown>;
  Object.setPrototypeOf(proto, Request.prototype);
  const real = (self: unknown) =>
    DeferredRequest.real(self as DeferredRequest) as unknown as Record<PropertyKey, unknown>;
  for (
    let level: object | null = Request.prototype;
    level !== null && level !== Object.prototype;
    level = Object.getPrototypeOf(level) as object | null
  ) {
    for (const key of Reflect.ownKeys(level)) {
      if (key === 'constructor' || Object.prototype.hasOwnProperty.call(proto, key)) continue;
      const member = Object.getOwnPropertyDescriptor(level, key)!;
      const { get, value } = member;
      if (get) {
        Object.defineProperty(proto, key, {
          configurable: true,
          enumerable: member.enumerable,
          get: function (this: unknown) {
            return get.call(real(this));
          },
        });
      } else if (typeof value === 'function') {
        const method = value as (...args: unknown[]) => unknown;
        Object.defineProperty(proto, key, {
          configurable: true,
          enumerable: member.enumerable,
          writable: true,
          value: function (this: unknown, ...args: unknown[]) {
            return method.apply(real(this), args);
          },
        });
      }
    }
  }
  // The slots a built Request holds as own properties (undici's state, headers, signal): read, never written.
  for (const key of Reflect.ownKeys(build({ url: 'https://probe.invalid/', headers: {}, body: '' }))) {
    if (!Object.prototype.hasOwnProperty.call(proto, key))
      Object.defineProperty(proto, key, {
        configurable: true,
        get: function (this: unknown) {
          return real(this)[key];
        },
      });
  }
}

/** Whether a stand-in passes for a Request here: a copy made from it, as fetch(request) makes one, is the same request. */
function standInPasses(): boolean {
  try {
    forwardRequestMembers();
    const parts = {
      url: 'https://probe.invalid/a?b=1',
      headers: { 'content-type': 'application/json', 'x-probe': 'yes' },
      body: '{"probe":true}',
    };
    const standIn = new DeferredRequest(() => parts) as unknown as Request;
    const copy = new Request(standIn);
    return (
      standIn instanceof Request &&
      copy.url === parts.url &&
      copy.method === 'POST' &&
      copy.headers.get('x-probe') === 'yes' &&
      copy.body !== null
    );
  } catch {
    return false;
  }
}

let deferred: boolean | undefined;

/** Whether in-process handlers get a stand-in built on first read (true), or a Request built at once (false). */
export function requestsDeferred(): boolean {
  deferred ??= standInPasses();
  return deferred;
}

/**
 * The request of an attempt to an in-process handler, from what makes its parts (the signing, itself deferred):
 * a stand-in built on first read where it passes for a Request, else the Request itself.
 */
export function deliveryRequest(parts: () => RequestParts): Request {
  return requestsDeferred() ? (new DeferredRequest(parts) as unknown as Request) : build(parts());
}
