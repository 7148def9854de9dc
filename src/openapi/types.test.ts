/**
 * The committed types (src/openapi/types.ts) are what openapi-typescript gives for the committed openapi.json, and
 * the package exports every component schema by its name.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TYPES_FILE, typesOf } from '../../scripts/openapi-types.js';

const ROOT = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, ROOT), 'utf8');
const document = JSON.parse(read('openapi.json')) as { components: { schemas: Record<string, unknown> } };
const generated = await typesOf(document);

/**
 * Names src/public.ts (the package's API) exports itself that a component schema has too, each with why the hand-written type stays:
 * an explicit export wins over `export type *` (silently, so each is listed here). The schema's type is still
 * `components['schemas'][name]`.
 */
const KEPT_EXPORTS: Readonly<Record<string, string>> = {
  WebhookEnvelope:
    "verifyWebhook's type of the body it checked (VerifyResult's event): dados open to any kind, as a receiver parses it",
};

/** The names a module exports explicitly (`export { a, type B, c as d } from …`, `export type { … } from …`). */
function explicitExports(source: string): string[] {
  const names: string[] = [];
  for (const block of source.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)) {
    for (const part of block[1]!.split(',')) {
      const name = part
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .pop()!
        .trim();
      if (name !== '') names.push(name);
    }
  }
  return names;
}

describe('the generated types', () => {
  it(`${TYPES_FILE} is what the generator gives for the committed openapi.json`, () => {
    expect(
      read(TYPES_FILE) === generated,
      `${TYPES_FILE} is not what openapi-typescript gives for openapi.json: run \`npm run openapi\``,
    ).toBe(true);
  });

  it('alias every component schema by its name, and the package exports them all', () => {
    const names = Object.keys(document.components.schemas);
    expect(names).toEqual(expect.arrayContaining(['Catalog', 'ErrorBody', 'CreateCatalogRequest']));
    for (const name of names)
      expect(generated).toContain(`\nexport type ${name} = components['schemas']['${name}'];\n`);
    const entry = read('src/public.ts');
    expect(entry).toContain("export type * from './openapi/types.js';");
    // An explicit export of the same name would win over the `export type *` silently: the schema's type would be
    // lost to the package's users.
    const explicit = explicitExports(entry);
    const shadowed = explicit.filter(
      (name) =>
        (names.includes(name) && KEPT_EXPORTS[name] === undefined) ||
        ['paths', 'components', 'operations'].includes(name),
    );
    expect(
      shadowed,
      `src/public.ts exports these names itself, hiding the generated types: ${shadowed.join(', ')}`,
    ).toEqual([]);
    expect(
      Object.keys(KEPT_EXPORTS).filter((name) => !explicit.includes(name)),
      'KEPT_EXPORTS names no longer exported by src/public.ts',
    ).toEqual([]);
  });

  it('refuse a component schema whose name is no type name, or one the file declares itself', async () => {
    const withSchema = (name: string) => ({
      ...document,
      components: { ...document.components, schemas: { ...document.components.schemas, [name]: { type: 'string' } } },
    });
    await expect(typesOf(withSchema('catalog-page'))).rejects.toThrow(
      'component schema "catalog-page" cannot be exported by that name',
    );
    await expect(typesOf(withSchema('paths'))).rejects.toThrow(
      'component schema "paths" cannot be exported by that name',
    );
  });
});
