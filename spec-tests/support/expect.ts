/**
 * The spec's error body (spec "Errors": erro.codigo, erro.mensagem, erro.request_id required, erro.caminho
 * optional) and the shapes the tests match ids and headers against.
 */
import { expect } from 'vitest';
import type { Answer } from './client.js';

/** A uuid of versions 1–8 with the RFC 4122 variant: the ids the emulator hands out. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** The shape of an x-request-id. */
export const REQUEST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** A strong ETag. */
export const ETAG = /^"[^"]+"$/;

/** The request_id of every /_emulator control error (the controls are not API requests: no x-request-id). */
const CONTROL_REQUEST_ID = '_emulator';

/**
 * `caminho`: a string → erro.caminho must equal it; `null` → erro.caminho must be absent; omitted → not checked.
 */
export type Caminho = string | null | undefined;

function expectErrorBody(answer: Answer, status: number, codigo: string, caminho: Caminho): void {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.body?.erro, `an error body: ${answer.text}`).toBeTypeOf('object');
  expect(answer.body.erro.codigo, answer.text).toBe(codigo);
  expect(answer.body.erro.mensagem, answer.text).toBeTypeOf('string');
  expect(answer.body.erro.mensagem.length, `erro.mensagem is not empty: ${answer.text}`).toBeGreaterThan(0);
  if (caminho === null) expect(answer.body.erro, answer.text).not.toHaveProperty('caminho');
  else if (caminho !== undefined) expect(answer.body.erro.caminho, answer.text).toBe(caminho);
}

/**
 * An API error (/v1): exactly `status`, erro.codigo `codigo`, a non-empty erro.mensagem, an x-request-id header
 * equal to erro.request_id, and erro.caminho as `caminho` says (see Caminho).
 */
export function expectError(answer: Answer, status: number, codigo: string, caminho?: Caminho): void {
  expectErrorBody(answer, status, codigo, caminho);
  const requestId = answer.headers.get('x-request-id');
  expect(requestId, 'an x-request-id header').toBeTruthy();
  expect(answer.body.erro.request_id).toBe(requestId);
}

/**
 * A control error (/_emulator): as expectError, but erro.request_id is the constant "_emulator" and the
 * answer has no x-request-id header (a control call is not an API request).
 */
export function expectControlError(answer: Answer, status: number, codigo: string, caminho?: Caminho): void {
  expectErrorBody(answer, status, codigo, caminho);
  expect(answer.body.erro.request_id).toBe(CONTROL_REQUEST_ID);
  expect(answer.headers.get('x-request-id'), 'no x-request-id on a control answer').toBeNull();
}
