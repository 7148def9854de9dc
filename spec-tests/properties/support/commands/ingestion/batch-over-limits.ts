/** A refused ingestion request, 422 (numero, itens) or 413 (over 4 MiB). */
import { ingestionPath, MiB } from '../../steps.js';
import type { IngestionContext } from '../ingestion.js';

export async function batchOverLimits(c: IngestionContext): Promise<void> {
  const { r, pick, variant, refuse } = c;
  const ingestion = await r.openIngestion(pick, variant);
  if (!ingestion) return;
  const at = (numero: string) => `${ingestionPath(ingestion.id)}/lotes/${numero}`;
  const record = { id_externo: 'limite', origem: 'erp', ncm: '84713012' };
  const one = JSON.stringify({ itens: [record] });
  const cases: [string, () => string, number][] = [
    [at('0'), () => one, 422],
    [at('1001'), () => one, 422],
    [at('01'), () => one, 422],
    [at('-1'), () => one, 422],
    [at('1'), () => '{"itens":[]}', 422],
    [at('1'), () => JSON.stringify({ itens: Array(1001).fill(record) }), 422],
    [at('1'), () => '{"itens":"x"}', 422],
    [at('1'), () => '{"itens":{}}', 422],
    [at('1'), () => '{}', 422],
    [at('1'), () => JSON.stringify({ itens: [record], extra: 1 }), 422],
    [at('1'), () => JSON.stringify({ itens: [{ ...record, descricao: 'x'.repeat(4 * MiB) }] }), 413],
  ];
  const [path, raw, expected] = cases[variant % cases.length]!;
  await refuse({ method: 'PUT', path, raw: raw(), headers: { 'content-type': 'application/json' } }, expected);
}
