/**
 * The building blocks of the answers' shapes, as the spec's "Resources and their fields" writes them: the
 * response schemas of src/http/contract/* are made of these, and the OpenAPI document (src/openapi) is
 * generated from them. They describe the wire; they validate nothing the emulator sends (the spec tests check
 * every answer against the document instead).
 */
import * as z from 'zod';
import { UUID } from '../schemas.js';

/** spec "Resources › Conventions": `int` is a non-negative integer, delivered as a JSON integer or as a string holding one. */
export const int = z
  .union([z.int().min(0), z.string().regex(/^[0-9]+$/)])
  .meta({ description: 'A non-negative integer, as a JSON integer or a string of digits.' });

/** A uuid as the spec defines it (version digit 1 to 8, variant 8, 9, a or b); the emulator answers in lowercase. */
export const uuid = z.string().regex(UUID);

/** spec "Resources › Conventions": an ISO 8601 date-time string. */
export const dateTime = z.iso.datetime({ offset: true });

/** One of `values`, as the spec lists them. */
export const oneOf = <const T extends readonly [string, ...string[]]>(values: T) => z.enum(values);

/**
 * Marks what the emulator decided where the spec is silent (a field's name, a path, a status): the document
 * shows it as `x-emulator-choice`, so a reader tells the contract from the emulator's filling-in.
 */
export function choice<T extends z.ZodType>(schema: T, reason: string): T {
  return schema.meta({ 'x-emulator-choice': reason });
}

/** A named schema: a component of the document (`#/components/schemas/<name>`), and a type the package exports. */
export function component<T extends z.ZodType>(name: string, schema: T, description?: string): T {
  return schema.meta({ id: name, ...(description === undefined ? {} : { description }) });
}

// spec "Errors": the body of every error status, declared with the error answers it is the body of.
export { ErrorBody } from '../errors.js';

/** The answer headers an operation's success may carry (the document describes each once). */
export type SuccessHeader = 'etag' | 'location' | 'ratelimit';

/** A success answer of an operation: its body (JSON by a schema, or CSV with these columns, or none) and its headers. */
export interface SuccessDoc {
  readonly description: string;
  readonly body?: z.ZodType | { readonly csv: readonly string[] };
  readonly headers?: readonly SuccessHeader[];
}

/** An error status beyond the spec's set for the operation, and why the emulator answers it. */
interface ExtraStatus {
  readonly status: number;
  readonly choice: string;
}

/** spec "Endpoints › Common rules": the status set of the operations that change state. */
export const MUT_STATUSES = [400, 401, 403, 404, 408, 409, 412, 413, 415, 422, 428, 429, 503] as const;
/** spec "Endpoints › Common rules": the status set of the reads. */
export const READ_STATUSES = [401, 403, 404, 422, 429, 503] as const;

/** The resource groups of the document, in the spec's order, each with what it holds. */
export const TAGS = [
  { name: 'Company', description: 'The company of the credential, its context and capacity.' },
  { name: 'Establishments', description: 'Head office and branches (CNPJ), and CNPJ corrections.' },
  { name: 'Catalogs', description: 'Catalogs of an establishment, and their deletion with its impact preview.' },
  { name: 'Products', description: 'Products shared between the catalogs of a company.' },
  { name: 'Ingestions', description: 'Batch ingestion: start, send batches, close, preview, apply.' },
  { name: 'Surveillance', description: 'The surveillance selection and its executions.' },
  { name: 'Analyses', description: 'Full-company analyses and their findings.' },
  { name: 'Webhook', description: 'The signed webhook destination, its events, attempts, test events and resends.' },
] as const;
type Tag = (typeof TAGS)[number]['name'];

/** What the document says of one operation, beside what its OperationSpec already tells (method, path, inputs). */
export interface OperationDoc {
  /** operationId: an English verb phrase in camelCase, stable (client generators name methods after it). */
  readonly id: string;
  /** The spec's purpose line (for an operation the spec does not show, one written in the same style). */
  readonly summary: string;
  readonly tag: Tag;
  readonly success: Readonly<Record<number, SuccessDoc>>;
  /** The spec's status set for it (MUT_STATUSES, READ_STATUSES, or the statuses its endpoint lists), each with the error body. */
  readonly errors: readonly number[];
  /** Statuses the emulator answers beyond that set, each with why. */
  readonly extraErrors?: readonly ExtraStatus[];
  /** Why the operation itself is the emulator's (a path the spec does not show). */
  readonly choice?: string;
  /** More than the summary: the rules a client must know. */
  readonly description?: string;
}
