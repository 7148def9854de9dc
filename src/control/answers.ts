/**
 * The controls as a client that trusts nothing reads them (the CLI's commands for a running server, or a script):
 * the request of a control by its id, and whether what came back is an answer the emulator gives to it. A success
 * is one its row in the table declares (table.ts): that status, that media type and, for JSON, a body the answer
 * schema of the row accepts (the schemas the table's test holds every control's answer to). A refusal
 * is any 4xx or 5xx with the error body. For a control that streams server-sent events, a frame is one of the events
 * its row names, with data its schema accepts. Anything else is not the emulator's, and the reading says why.
 */
import type * as z from 'zod';
import { ErrorBody } from '../http/errors.js';
import { formatPath } from '../http/schemas.js';
import type { Lazy } from './schemas.js';
import { CONTROLS, type ControlId } from './table.js';

/** A control's answer as read: a success (its JSON, undefined for no body or one not JSON), a refusal, or foreign. */
export type ControlAnswerReading =
  | { readonly kind: 'success'; readonly status: number; readonly value: unknown }
  | { readonly kind: 'refusal'; readonly status: number; readonly error: ControlRefusal }
  | ForeignAnswer;

/** A frame of a control's event stream as read: its event and its data, or foreign. */
export type ControlFrameReading =
  | { readonly kind: 'frame'; readonly event: string; readonly value: unknown }
  | ForeignAnswer;

/** Not an answer (or frame) the emulator gives to that control: `why`, in a few words (it may quote what came). */
interface ForeignAnswer {
  readonly kind: 'foreign';
  readonly why: string;
}

/** The `erro` of an error answer. */
interface ControlRefusal {
  readonly codigo: string;
  readonly mensagem: string;
  readonly caminho?: string;
}

const JSON_TYPE = 'application/json';
const NO_TYPE = 'of no content-type';

/** An answer of a row, as the reading needs it: a schema, a media type (with its events' schemas), or none. */
interface Declared {
  readonly body?: Lazy | { readonly mediaType: string; readonly frames?: Readonly<Record<string, Lazy>> };
}

let rows: ReadonlyMap<string, (typeof CONTROLS)[number]> | undefined;
const rowOf = (id: ControlId) => (rows ??= new Map(CONTROLS.map((row) => [row.id, row]))).get(id)!;
const answersOf = (id: ControlId) => rowOf(id).success as Readonly<Record<number, Declared>>;

/** The method of the control `id`, and its path under /_emulator with `params` (its `:name`s) in it, each encoded. */
export function controlRequest(
  id: ControlId,
  params: Readonly<Record<string, string>> = {},
): { readonly method: string; readonly path: string } {
  const row = rowOf(id);
  const path = row.path.replace(/:(\w+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new TypeError(`${id} needs the path parameter ${name}`);
    return encodeURIComponent(value);
  });
  return { method: row.method, path: `/_emulator${path === '/' ? '' : path}` };
}

/**
 * Whether an answer (its status, its content-type header, its whole body as text) to the control `id` is one the
 * emulator gives: a success its row declares, or a refusal with the error body; else why not.
 */
export function readControlAnswer(
  id: ControlId,
  answer: { readonly status: number; readonly contentType: string | null; readonly body: string },
): ControlAnswerReading {
  const { status, body } = answer;
  const media = mediaTypeOf(answer.contentType);
  const shape = answersOf(id)[status];
  if (shape !== undefined) {
    const success = { kind: 'success', status, value: undefined } as const;
    if (shape.body === undefined) {
      return body === '' ? success : foreign(`its ${status} has no body; this one has ${body.length} characters`);
    }
    if (typeof shape.body !== 'function') {
      const { mediaType } = shape.body;
      if (mediaType === '*/*' || media === mediaType) return success;
      return foreign(`its ${status} is ${mediaType}; this one is ${media || NO_TYPE}`);
    }
    const read = readJson(media, body, shape.body(), `${id}'s ${status}`, 'body');
    return 'why' in read ? read : { ...success, value: read.value };
  }
  if (status >= 400 && status <= 599) {
    const read = readJson(media, body, ErrorBody, 'the error body', 'body');
    if ('why' in read) return read;
    const { codigo, mensagem, caminho } = (read.value as z.output<typeof ErrorBody>).erro;
    return { kind: 'refusal', status, error: { codigo, mensagem, ...(caminho === undefined ? {} : { caminho }) } };
  }
  const statuses = Object.keys(answersOf(id)).join(' or ');
  return foreign(`${id} answers ${statuses}, or an error (4xx, 5xx) with the error body`);
}

/** Whether a server-sent event (its `event` name and its `data` line) is one of the frames of the control `id`. */
export function readControlFrame(id: ControlId, event: string, data: string): ControlFrameReading {
  const frames = Object.values(answersOf(id))
    .map(({ body }) => (typeof body === 'object' ? body.frames : undefined))
    .find((named) => named !== undefined);
  if (frames === undefined) return foreign(`${id} sends no events`);
  const shape = Object.hasOwn(frames, event) ? frames[event] : undefined;
  if (shape === undefined) {
    return foreign(`${id} sends ${Object.keys(frames).join(', ')} events, not ${JSON.stringify(event)}`);
  }
  const read = readJson(JSON_TYPE, data, shape(), `the ${event} event's data`, 'data');
  return 'why' in read ? read : { kind: 'frame', event, value: read.value };
}

const foreign = (why: string): ForeignAnswer => ({ kind: 'foreign', why });

/** `content-type: Application/JSON; charset=utf-8` → application/json; '' without one. */
const mediaTypeOf = (contentType: string | null): string => (contentType ?? '').split(';')[0]!.trim().toLowerCase();

/**
 * `text` as JSON of `schema`, when `media` is JSON; else why not (`what`: what it should have been; `root`: its name
 * in a path).
 */
function readJson(
  media: string,
  text: string,
  schema: z.ZodType,
  what: string,
  root: string,
): { readonly value: unknown } | ForeignAnswer {
  if (media !== JSON_TYPE) return foreign(`${what} is ${JSON_TYPE}; this one is ${media || NO_TYPE}`);
  let json: unknown;
  try {
    json = JSON.parse(text) as unknown;
  } catch {
    return foreign(`${what} is JSON; this one is not`);
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return { value: parsed.data };
  const issue = parsed.error.issues[0]!;
  const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0] ?? ''] : issue.path;
  return foreign(`not ${what}: ${formatPath(root, path as PropertyKey[])}: ${issue.message}`);
}
