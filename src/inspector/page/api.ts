/**
 * The page's calls to the emulator: the data routes under /_emulator/inspector and the existing controls, all on
 * this page's own origin. The control token, once the user gives it, lives in this module's variable only: never
 * in the DOM, in storage or in a URL. A 401 asks for it (onUnauthorized); every other refusal reaches the caller
 * as a ControlFailure carrying the control's own `mensagem`, for the page to show.
 */
let token: string | undefined;

/** Sets the token the next calls send (an empty string forgets it). */
export function setToken(value: string): void {
  token = value === '' ? undefined : value;
}

export const hasToken = (): boolean => token !== undefined;

/** A call the emulator refused (or that never reached it): what the page shows. */
export class ControlFailure extends Error {
  constructor(
    readonly status: number,
    readonly codigo: string,
    mensagem: string,
  ) {
    super(mensagem);
  }
}

let unauthorized: (failure: ControlFailure) => void = () => undefined;
/** Called with every 401, before the call rejects. */
export function onUnauthorized(listener: (failure: ControlFailure) => void): void {
  unauthorized = listener;
}

export function headers(json: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  if (token !== undefined) out.authorization = `Bearer ${token}`;
  // Every control write needs it (the guard refuses any other type with 415), even without a body.
  if (json) out['content-type'] = 'application/json';
  return out;
}

/** The refusal an answer carries: its error body's code and message, or its status line. */
export async function failureOf(response: Response): Promise<ControlFailure> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { erro?: { codigo?: unknown; mensagem?: unknown } };
    if (body.erro && typeof body.erro.codigo === 'string')
      return new ControlFailure(response.status, body.erro.codigo, String(body.erro.mensagem ?? ''));
  } catch {
    // Not the error body: described by its status below.
  }
  return new ControlFailure(response.status, `http_${response.status}`, text.slice(0, 300) || response.statusText);
}

/** GET (no body) or a write with a JSON body; resolves to the answer's JSON (undefined for a 204). */
export async function call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const write = method === 'POST';
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers: headers(write),
      ...(write ? { body: JSON.stringify(body ?? {}) } : {}),
      cache: 'no-store',
    });
  } catch (error) {
    throw new ControlFailure(
      0,
      'sem_conexao',
      `The emulator did not answer (${error instanceof Error ? error.message : String(error)}): is it still running?`,
    );
  }
  if (!response.ok) {
    const failure = await failureOf(response);
    if (response.status === 401) unauthorized(failure);
    throw failure;
  }
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}
