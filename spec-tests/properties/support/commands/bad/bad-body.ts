/** A refused request, 422: a product creation with an invalid body. */
import type { RefusalContext } from '../bad.js';

export async function badBody(c: RefusalContext): Promise<void> {
  const { r, pick, variant, refuse } = c;
  const catalog = await r.someCatalog(pick);
  if (!catalog) return;
  const bodies: unknown[] = [
    { origem: '', ncm: '84713012' },
    { origem: 'erp', ncm: '8471301' },
    { origem: 'erp' },
    { origem: 'erp', ncm: '84713012', campo: 1 },
    {
      origem: 'erp',
      ncm: '84713012',
      atributos: [
        { codigo: 'a', valores: ['1'] },
        { codigo: 'b'.repeat(129), valores: ['2'] },
      ],
    },
    { origem: 'erp', ncm: '84713012', atributos: [{ codigo: 'a', valores: [] }] },
    { origem: 'erp', ncm: 84713012 },
    [],
    null,
    'texto',
  ];
  await refuse(
    { method: 'POST', path: `/v1/catalogos/${catalog.id}/produtos`, body: bodies[variant % bodies.length] },
    422,
  );
}
