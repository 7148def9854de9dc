/**
 * Before the first test: GET /v1/empresa with each credential given, so that a deployment that cannot be reached, a
 * URL that is not the service's or a credential it refuses is one clear line instead of hundreds of failures.
 */

/** The support's bounded fetch (spec-tests/support/deployment.ts): it rejects with a one-line message naming the URL. */
type Fetch = (url: string, init: RequestInit) => Promise<Response>;

/** Why the run cannot start: the line to print, and whether it is the command line's fault (bad input) or not. */
export interface PreflightProblem {
  readonly message: string;
  readonly usage: boolean;
}

/** A RequestFailure of the support: refused, reset, closed, not HTTP, TLS, DNS, time-out, a body over the cap, stopped. */
function isRequestFailure(error: unknown): error is Error {
  return error instanceof Error && error.name === 'RequestFailure';
}

/**
 * Asks GET /v1/empresa with `token` (given as `flag`); undefined when the deployment answered as the service does:
 * 200 with the company, a JSON object with its id.
 */
export async function preflight(
  fetch: Fetch,
  base: string,
  token: string,
  flag: string,
): Promise<PreflightProblem | undefined> {
  const url = `${base}/v1/empresa`;
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    text = await response.text();
  } catch (error) {
    if (isRequestFailure(error)) return { message: error.message, usage: false };
    // What node:http refuses to send before anything goes out: a credential with a character no header may hold.
    return { message: `the ${flag} credential cannot be sent in a header (${(error as Error).message})`, usage: true };
  }
  const { status } = response;
  if (status === 401 || status === 403)
    return {
      message: `${url} refuses the ${flag} credential (${status}): give one of ${flag === '--token' ? 'the test company' : 'a second test company'} holding all six permissions`,
      usage: true,
    };
  if (status !== 200)
    return {
      message: `${url} answers ${status}, not 200: is --base-url the service's base URL, without /v1?`,
      usage: true,
    };
  let company: unknown;
  try {
    company = JSON.parse(text);
  } catch {
    company = undefined;
  }
  if (typeof company !== 'object' || company === null || typeof (company as { id?: unknown }).id !== 'string') {
    return {
      message: `${url} answers 200 but not with a company (a JSON object with its id): is --base-url the service's base URL, without /v1?`,
      usage: true,
    };
  }
  return undefined;
}
