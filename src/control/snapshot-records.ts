/**
 * The restore's fast path for what a snapshot holds by the hundred thousand: its products and links. Each record
 * is checked by hand against the rules of its schema (src/control/snapshot-schema.ts, which stays the definition)
 * and copied in the same pass, into a new record the emulator then keeps (the caller may change its input later).
 *
 * It only ever says "all valid, here is the copy" or "not sure": undefined at the first value it does not accept,
 * and then readSnapshot parses the whole snapshot with the schema, which names the problem with the message and
 * path it always did. So it must accept nothing the schema refuses, and give what the schema would (same fields, in
 * the same order); refusing more would only be slower. snapshot-records.test.ts compares both on every field.
 *
 * Why by hand: the schema's parse was a quarter of restoring a large snapshot, and this takes about a third of
 * its time, most of it making the copies the emulator keeps, which the parse made too (see ARCHITECTURE.md
 * "Choices made for speed").
 */
import { withinClockBounds } from '../clock/clock.js';
import type { Attribute, Link, Product } from '../core/products.js';
import { ID_PATTERN } from '../core/random.js';
import { NCM_PATTERN } from '../core/regulatory/snapshot.js';

/** When something happened: whole milliseconds within the clock's range (the schema's `happened`). */
export const isHappened = (value: number): boolean => Number.isInteger(value) && withinClockBounds(value);

const isId = (value: unknown): value is string => typeof value === 'string' && ID_PATTERN.test(value);
const isText = (value: unknown): value is string | null => value === null || typeof value === 'string';
/** `z.number().int().min(0)`: zod's int is a safe integer. */
/**
 * The largest version, position or count a snapshot may hold: 2^52 leaves the emulator room to add to it. A version
 * of 2^53 - 1 accepted would become 2^53 at its record's next change, past the integers a number holds exactly,
 * and the emulator's own snapshot would then be refused.
 */
export const COUNT_MAX = 2 ** 52;
const isCount = (value: unknown): value is number =>
  Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) <= COUNT_MAX;
const isInstant = (value: unknown): value is number => typeof value === 'number' && isHappened(value);

/**
 * An object the schema reads as one (not null, not an array), of `fields` enumerable keys in all, as `for…in`
 * (which the schema's check for unknown keys walks) counts them. With every field of the kind then valid, those
 * keys are exactly its fields: a missing one reads undefined, which no field takes.
 */
function isRecordOf(value: unknown, fields: number): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  let keys = 0;
  for (const _ in value) keys++;
  return keys === fields;
}

/** An array whose every item `copy` takes, as a new array of the copies; undefined at the first it does not. */
function copyAll<T>(value: unknown, copy: (item: unknown) => T | undefined): T[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const copies: T[] = new Array(value.length);
  for (let i = 0; i < value.length; i++) {
    const item = copy(value[i]);
    if (item === undefined) return undefined;
    copies[i] = item;
  }
  return copies;
}

const copyText = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
/**
 * The id checks of one list, each remembering the last id it passed: one product after another names the same
 * company and mostly the same catalog, and comparing with the last one costs far less than the pattern (which
 * took a restore of 100,000 products and links 0.1 s, at 300,000 ids).
 */
interface KnownIds {
  readonly company: (value: unknown) => value is string;
  readonly catalog: (value: unknown) => value is string;
}

function rememberingLast(): (value: unknown) => value is string {
  let last: string | null = null;
  return (value: unknown): value is string => {
    if (typeof value === 'string' && value === last) return true;
    if (!isId(value)) return false;
    last = value;
    return true;
  };
}

const knownIds = (): KnownIds => ({ company: rememberingLast(), catalog: rememberingLast() });

function copyAttribute(value: unknown): Attribute | undefined {
  if (!isRecordOf(value, 2)) return undefined;
  const { codigo } = value;
  const valores = copyAll(value.valores, copyText);
  return typeof codigo === 'string' && valores ? { codigo, valores } : undefined;
}

/** A product of a snapshot (the schema's `product`), copied; undefined for anything else. */
export function copyProduct(value: unknown, known: KnownIds = knownIds()): Product | undefined {
  if (!isRecordOf(value, 14)) return undefined;
  // Each field read once: what is checked is what is kept.
  const {
    id,
    companyId,
    idExterno,
    origem,
    sku,
    descricao,
    ncm,
    atributos,
    versao,
    ativo,
    catalogos,
    position,
    criadoEm,
    atualizadoEm,
  } = value;
  if (
    !isId(id) ||
    !known.company(companyId) ||
    !isText(idExterno) ||
    typeof origem !== 'string' ||
    !isText(sku) ||
    !isText(descricao)
  )
    return undefined;
  if (
    typeof ncm !== 'string' ||
    !NCM_PATTERN.test(ncm) ||
    !isCount(versao) ||
    typeof ativo !== 'boolean' ||
    !isCount(position) ||
    !isInstant(criadoEm) ||
    !isInstant(atualizadoEm)
  )
    return undefined;
  const attributes = copyAll(atributos, copyAttribute);
  const catalogs = copyAll(catalogos, (item) => (known.catalog(item) ? item : undefined));
  if (!attributes || !catalogs) return undefined;
  // In the schema's order of fields, as its parse would give them.
  return {
    id,
    companyId,
    idExterno,
    origem,
    sku,
    descricao,
    ncm,
    atributos: attributes,
    versao,
    ativo,
    catalogos: catalogs,
    position,
    criadoEm,
    atualizadoEm,
  };
}

/** A link of a snapshot (the schema's `[id, id, int]`), copied; undefined for anything else. */
export function copyLink(value: unknown, known: KnownIds = knownIds()): Link | undefined {
  if (!Array.isArray(value) || value.length !== 3) return undefined;
  const [catalogId, productId, position] = value as unknown[];
  return known.catalog(catalogId) && isId(productId) && isCount(position)
    ? [catalogId, productId, position]
    : undefined;
}

/** The lists of a state (or of a company's data) taken by the fast path, and how each is copied. */
export const FAST_LISTS = {
  products: (value: unknown): Product[] | undefined => {
    const known = knownIds();
    return copyAll(value, (item) => copyProduct(item, known));
  },
  links: (value: unknown): Link[] | undefined => {
    const known = knownIds();
    return copyAll(value, (item) => copyLink(item, known));
  },
} as const;
