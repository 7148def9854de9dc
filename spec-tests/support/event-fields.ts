/**
 * The types of the webhook event fields as the spec's tables give them (spec "Webhook event (list item)",
 * "(detail)", "Delivery attempt", "Accepted webhook scheduling receipt"; statements WH-EVT-01, -02, -03, -10,
 * -11, -13): which fields are always present, which of them admit null ("T or null", CONV-08), and that the
 * others are never null (CONV-09). A client generated from the spec fails to parse a whole page on one null
 * where the spec does not allow it, so every field is checked, not only the ones a test is about.
 */
import { expect } from 'vitest';

type FieldType = 'string' | 'int' | 'object';

interface Field {
  readonly type: FieldType;
  readonly nullable: boolean;
}

const field = (type: FieldType, nullable = false): Field => ({ type, nullable });

/** spec: WH-EVT-01 (and WH-EVT-03 for status_http). */
export const EVENT_ITEM_FIELDS: Readonly<Record<string, Field>> = {
  id: field('string'),
  tipo: field('string'),
  ocorrido_em: field('string'),
  destino_id: field('string'),
  destino_versao: field('int'),
  estado: field('string'),
  tentativas_ciclo: field('int'),
  tentativas_totais: field('int'),
  status_http: field('int', true),
  criado_em: field('string'),
  prazo_em: field('string'),
};

/** spec: WH-EVT-02, WH-EVT-03: the list-item fields plus these. */
export const EVENT_DETAIL_FIELDS: Readonly<Record<string, Field>> = {
  ...EVENT_ITEM_FIELDS,
  terminado_em: field('string', true),
  proxima_tentativa_em: field('string', true),
  codigo_falha: field('string', true),
  evento: field('object'),
};

/** spec: WH-EVT-10, WH-EVT-11. */
export const ATTEMPT_FIELDS: Readonly<Record<string, Field>> = {
  tentativa: field('int'),
  destino_versao: field('int', true),
  estado: field('string'),
  iniciada_em: field('string'),
  terminada_em: field('string', true),
  codigo_falha: field('string', true),
  status_http: field('int', true),
};

/** spec: WH-EVT-13. */
export const RECEIPT_FIELDS: Readonly<Record<string, Field>> = {
  evento_id: field('string'),
  destino_id: field('string'),
  destino_versao: field('int'),
  estado: field('string'),
};

/** spec: CONV-06: a non-negative integer, as a JSON integer or a string holding one. */
function isInt(value: unknown): boolean {
  return (
    (typeof value === 'number' && Number.isInteger(value) && value >= 0) ||
    (typeof value === 'string' && /^\d+$/.test(value))
  );
}

function hasType(value: unknown, type: FieldType): boolean {
  if (type === 'int') return isInt(value);
  if (type === 'object') return typeof value === 'object' && value !== null && !Array.isArray(value);
  return typeof value === 'string';
}

/**
 * Every field of `fields` is present in `value`; a nullable one is null or of its type, any other is of its
 * type and never null. `where` names the value in a failure.
 */
export function expectTyped(value: unknown, fields: Readonly<Record<string, Field>>, where: string): void {
  expect(typeof value === 'object' && value !== null, `${where} is an object`).toBe(true);
  const record = value as Record<string, unknown>;
  for (const [name, { type, nullable }] of Object.entries(fields)) {
    expect(Object.hasOwn(record, name), `${where}: ${name} is always present`).toBe(true);
    const got = record[name];
    if (got === null) {
      expect(nullable, `${where}: ${name} is null, but the spec types it ${type} (not "or null")`).toBe(true);
      continue;
    }
    expect(
      hasType(got, type),
      `${where}: ${name} = ${JSON.stringify(got)} is not a ${type}${nullable ? ' or null' : ''}`,
    ).toBe(true);
  }
}
