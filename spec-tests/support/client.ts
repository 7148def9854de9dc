/**
 * The one small client of the spec tests: an API caller bound to a credential, and the controls.
 * It adds nothing the spec does not say: the tests pass every header they mean to test.
 */
import { connect, type Target } from './target.js';
import { deployment, notHere } from './deployment.js';
import { cnpjOf } from './cnpj.js';
import { parsedBody } from './contract.js';
import { nextOrder } from './fixtures.js';
import type { EmulatorOptions } from '../../src/index.js';

export interface Answer<T = any> {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly body: T;
}

export interface RequestOptions {
  readonly headers?: Record<string, string>;
  /** A value to send as JSON (content-type set), or a raw string sent as is (no content-type unless given). */
  readonly body?: unknown;
  readonly raw?: string;
  /** The idempotency-key header; a fresh one is generated for mutations unless `key: null`. */
  readonly key?: string | null;
  readonly ifMatch?: string;
}

let keyCounter = 0;
/** A deployment keeps keys for days, across runs: there a key also names its run. */
const keyPrefix = deployment === undefined ? `spec-${process.pid}` : `spec-${Math.random().toString(36).slice(2, 12)}`;
/** A fresh idempotency key: unique within the process (and the run, on a deployment), valid (16–128 of A-Z a-z 0-9 . _ : -). */
export function newKey(): string {
  keyCounter += 1;
  return `${keyPrefix}-${String(keyCounter).padStart(8, '0')}`;
}

async function send(
  target: Target,
  method: string,
  path: string,
  token: string | undefined,
  options: RequestOptions = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  if (method !== 'GET' && options.key !== null) headers['idempotency-key'] = options.key ?? newKey();
  if (options.ifMatch !== undefined) headers['if-match'] = options.ifMatch;
  let body: string | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  Object.assign(headers, options.headers);
  const init = { method, headers, ...(body === undefined ? {} : { body }) };
  return target.answer ? target.answer(path, init) : readAnswer(await target.fetch(path, init));
}

/** A response read whole: its text, and its body parsed as JSON (undefined when empty or not JSON). */
export async function readAnswer(response: Response): Promise<Answer> {
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: parsedBody(text) };
}

export class Api {
  constructor(
    readonly target: Target,
    readonly token: string | undefined,
  ) {}
  get = (path: string, options?: RequestOptions) => send(this.target, 'GET', path, this.token, options);
  post = (path: string, body?: unknown, options: RequestOptions = {}) =>
    send(this.target, 'POST', path, this.token, { ...options, ...(body === undefined ? {} : { body }) });
  patch = (path: string, body?: unknown, options: RequestOptions = {}) =>
    send(this.target, 'PATCH', path, this.token, { ...options, ...(body === undefined ? {} : { body }) });
  put = (path: string, body?: unknown, options: RequestOptions = {}) =>
    send(this.target, 'PUT', path, this.token, { ...options, ...(body === undefined ? {} : { body }) });
  delete = (path: string, body?: unknown, options: RequestOptions = {}) =>
    send(this.target, 'DELETE', path, this.token, { ...options, ...(body === undefined ? {} : { body }) });
  request = (method: string, path: string, options?: RequestOptions) =>
    send(this.target, method, path, this.token, options);
  /** The same target with another credential. */
  as = (token: string | undefined) => new Api(this.target, token);
}

export interface CompanyInfo {
  readonly companyId: string;
  readonly cnpjRoot: string;
  readonly token: string;
  readonly headOffice: { readonly id: string; readonly cnpj: string };
}

/**
 * The /_emulator controls of a target. Every write carries `content-type: application/json`, with or without a
 * body (the controls refuse writes without it); `controlToken`, when given, goes as the bearer token.
 */
export class Controls {
  constructor(
    readonly target: Target,
    readonly controlToken?: string,
  ) {}
  private async call(method: string, path: string, body?: unknown): Promise<Answer> {
    if (this.target.kind === 'deployment') notHere(`needs the emulator's controls (${method} /_emulator${path})`);
    const headers: Record<string, string> =
      method === 'GET' || method === 'DELETE' ? {} : { 'content-type': 'application/json' };
    return send(this.target, method, `/_emulator${path}`, this.controlToken, {
      key: null,
      headers,
      ...(body === undefined ? {} : { body }),
    });
  }
  private async ok(method: string, path: string, body?: unknown): Promise<any> {
    const answer = await this.call(method, path, body);
    if (answer.status >= 300) throw new Error(`${method} /_emulator${path} answered ${answer.status}: ${answer.text}`);
    return answer.body;
  }
  raw = (method: string, path: string, body?: unknown) => this.call(method, path, body);
  info = () => this.ok('GET', '');
  createCompany = (options: Record<string, unknown> = {}): Promise<CompanyInfo> =>
    this.target.kind === 'deployment'
      ? deploymentOtherCompany(this.target, options)
      : this.ok('POST', '/companies', options);
  updateCompany = (companyId: string, flags: Record<string, unknown>) =>
    this.ok('PATCH', `/companies/${companyId}`, flags);
  addCredential = async (companyId: string, permissions?: string[]): Promise<{ token: string }> => {
    if (this.target.kind === 'deployment') return { token: deploymentCredential(permissions) };
    return this.ok('POST', `/companies/${companyId}/credentials`, permissions ? { permissions } : {});
  };
  clock = (): Promise<{ now: string; mode: string; pending: number; deadlines: number }> => this.ok('GET', '/clock');
  advance = (by: string | number): Promise<{ now: string; ran: number }> => this.ok('POST', '/clock/advance', { by });
  addFault = (fault: Record<string, unknown>): Promise<{ id: string }> => this.ok('POST', '/faults', fault);
  faults = () => this.ok('GET', '/faults');
  clearFaults = () => this.ok('DELETE', '/faults');
  requests = () => this.ok('GET', '/requests');
  snapshot = () => this.ok('GET', '/state');
  restore = (snapshot: unknown) => this.ok('PUT', '/state', snapshot);
}

export interface World {
  readonly target: Target;
  readonly controls: Controls;
  readonly company: CompanyInfo;
  /** The API with the company's all-permissions credential. */
  readonly api: Api;
}

/**
 * In a deployment, the credential given for exactly these permissions (CONFORMANCE_TOKEN_FOR, several permissions
 * joined by "+"); without permissions, the main credential (it holds them all). Else the test is skipped, saying so.
 */
function deploymentCredential(permissions: string[] | undefined): string {
  if (permissions === undefined) return deployment!.token;
  const key = [...permissions].sort().join('+');
  const token = deployment!.tokensFor.get(key);
  if (token === undefined)
    notHere(`needs a credential holding only ${permissions.join(' and ')} (give one: --token-for ${key}=TOKEN)`);
  return token;
}

/** The companies of the deployment's credentials, each read once through the API. */
const deploymentCompanies = new Map<string, Promise<{ companyId: string; cnpjRoot: string }>>();

/**
 * A deployment's company as a test gets it: its credential and ids, and an establishment of the test's own (a
 * branch made through the API, a fresh CNPJ order part; another if an earlier run holds that one) in the place a
 * new company's head office holds, so a test's catalogs and products never meet another test's. A test about the
 * head office itself needs its own company.
 */
async function deploymentCompanyInfo(target: Target, token: string, named: string): Promise<CompanyInfo> {
  const api = new Api(target, token);
  let company = deploymentCompanies.get(token);
  if (company === undefined) {
    company = api.get('/v1/empresa').then((answer) => {
      if (answer.status !== 200)
        throw new Error(`GET /v1/empresa with ${named} answered ${answer.status}: ${answer.text}`);
      return { companyId: answer.body.id, cnpjRoot: answer.body.cnpj_raiz };
    });
    deploymentCompanies.set(token, company);
  }
  const { companyId, cnpjRoot } = await company;
  for (let attempt = 1; ; attempt++) {
    const cnpj = cnpjOf(cnpjRoot, nextOrder());
    const establishment = await api.post('/v1/estabelecimentos', { cnpj, nome: 'Estabelecimento do teste' });
    if (establishment.status === 201)
      return { companyId, cnpjRoot, token, headOffice: { id: establishment.body.id, cnpj } };
    if (establishment.status !== 409 || attempt === 5)
      throw new Error(`an establishment for the test answered ${establishment.status}: ${establishment.text}`);
  }
}

/** In a deployment, every test works in the one company of its credential, which is not new (see deploymentCompanyInfo). */
async function deploymentWorld(target: Target, company: Record<string, unknown>): Promise<World> {
  const flags = Object.keys(company);
  if (flags.length > 0) notHere(`needs a company made with ${flags.join(', ')}`);
  const info = await deploymentCompanyInfo(target, deployment!.token, 'CONFORMANCE_TOKEN');
  return { target, controls: new Controls(target), company: info, api: new Api(target, info.token) };
}

/**
 * In a deployment, "another company": the company of CONFORMANCE_OTHER_TOKEN (a credential of a second company,
 * all permissions), with an establishment of the test's own; without it, or with flags, the test is skipped.
 */
function deploymentOtherCompany(target: Target, flags: Record<string, unknown>): Promise<CompanyInfo> {
  const made = Object.keys(flags);
  if (made.length > 0) notHere(`needs a second company made with ${made.join(', ')}`);
  if (deployment!.otherToken === undefined)
    notHere('needs a second company (give a credential of one: --other-token TOKEN)');
  return deploymentCompanyInfo(target, deployment!.otherToken, 'CONFORMANCE_OTHER_TOKEN');
}

/** A target (fresh in-process emulator, or the shared server) and a new company on it. */
export async function world(options: EmulatorOptions = {}, company: Record<string, unknown> = {}): Promise<World> {
  const target = connect(options);
  if (target.kind === 'deployment') return deploymentWorld(target, company);
  const controls = new Controls(target);
  const info = await controls.createCompany(company);
  return { target, controls, company: info, api: new Api(target, info.token) };
}

/** Another company on the same target (the same emulator in process, the same server otherwise). */
export async function otherCompany(w: World): Promise<World> {
  const info = await w.controls.createCompany();
  return { target: w.target, controls: w.controls, company: info, api: new Api(w.target, info.token) };
}

/**
 * A request with exactly these headers and this body (raw bytes allowed), with the company's token
 * (a `headers.authorization` replaces it): no idempotency key, content-type or JSON encoding added.
 */
export async function rawRequest(
  w: World,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string | Uint8Array,
): Promise<Answer> {
  return readAnswer(
    await w.target.fetch(path, {
      method,
      headers: { authorization: `Bearer ${w.company.token}`, ...headers },
      ...(body === undefined ? {} : { body }),
    }),
  );
}

/** The NCM the tests give their products when the NCM itself is not under test. */
export const NCM = '84713012';

/** A catalog for the head office, and its ETag. */
export async function headOfficeCatalog(w: World, nome = 'Loja'): Promise<{ id: string; etag: string; body: any }> {
  const answer = await w.api.post('/v1/catalogos', { estabelecimento_id: w.company.headOffice.id, nome });
  if (answer.status !== 201) throw new Error(`catalog creation answered ${answer.status}: ${answer.text}`);
  return { id: answer.body.id, etag: answer.headers.get('etag')!, body: answer.body };
}

/** A product created in `catalogId`, and its ETag. */
export async function product(
  w: World,
  catalogId: string,
  fields: Record<string, unknown> = {},
): Promise<{ id: string; etag: string; body: any }> {
  const answer = await w.api.post(`/v1/catalogos/${catalogId}/produtos`, { origem: 'erp', ncm: NCM, ...fields });
  if (answer.status !== 201) throw new Error(`product creation answered ${answer.status}: ${answer.text}`);
  return { id: answer.body.id, etag: answer.headers.get('etag')!, body: answer.body };
}

/** Awaits `condition` by asking again (each ask is a request, not a timer); fails after `tries`. */
export async function until(condition: () => Promise<boolean>, tries = 500): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await condition()) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  throw new Error(`condition not met after ${tries} tries`);
}
