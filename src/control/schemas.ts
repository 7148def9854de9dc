/**
 * What an answer schema of a control is: a zod schema made on its first use and kept, declared beside the rows that
 * answer with it (the group's module, src/control/groups/). Only the bodies serve a request; the answers are what
 * the controls' document, the table's test and a client reading an answer (answers.ts) check against, so none is
 * built before one of them asks (built with the module, they slowed the CLI's start before its first answer).
 */
import * as z from 'zod';

/** A schema made on its first call and the same schema at every call after. */
export type Lazy<T extends z.ZodType = z.ZodType> = () => T;

/** The document's name of each named schema made so far, and the schema of each name. */
const names = new Map<z.ZodType, string>();
const schemas = new Map<string, z.ZodType>();

export function lazy<T extends z.ZodType>(make: () => T): Lazy<T> {
  let made: T | undefined;
  return () => (made ??= make());
}

/**
 * A schema the controls' document writes once, as `#/components/schemas/<name>`, and refers to wherever it is used
 * (one used by more than one control); the others are written in place. A schema that holds a named one is made
 * by calling it, which names it: the document finds every named schema inside an answer it writes.
 */
export function named<T extends z.ZodType>(name: string, make: () => T): Lazy<T> {
  return lazy(() => {
    const schema = make();
    names.set(schema, name);
    schemas.set(name, schema);
    return schema;
  });
}

/** The document's name of `schema`, when it is a named one. */
export const nameOf = (schema: unknown): string | undefined => names.get(schema as z.ZodType);

/** The named schema `name` (made, as every one the document found by nameOf has been). */
export const namedSchema = (name: string): z.ZodType | undefined => schemas.get(name);

/** A list answer: `{ items: [...] }`. */
export const items = <T extends z.ZodType>(item: T) => z.strictObject({ items: z.array(item) });

/** What a control that empties a list answers: the list, empty. */
export const none = lazy(() =>
  // An empty list: z.tuple([]) would be written `prefixItems: []`, which JSON Schema 2020-12 refuses.
  z.strictObject({ items: z.array(z.never()).max(0) }),
);
