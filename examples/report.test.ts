// The report examples of the README and docs/grading.md, kept runnable: `import { createEmulator, formatReport } from
// 'catalog-emulator'` in your project.
import { afterAll, expect, test } from 'vitest';
import { createEmulator, formatReport } from 'catalog-emulator';

// #region after-suite
const emu = createEmulator();
afterAll(() => console.log(formatReport(emu.report())));
// #endregion

test('a write retried under a new key after its answer was lost is a finding; the same key is not', async () => {
  const acme = emu.companies.create({ cnpjRoot: '11222333' });
  const headers = { authorization: `Bearer ${acme.token}`, 'content-type': 'application/json' };
  const body = JSON.stringify({ estabelecimento_id: acme.headOffice.id, nome: 'Loja' });
  // #region report
  emu.faults.add({ target: 'api', match: { method: 'POST', path: '/v1/catalogos' }, effect: { loseResponse: true } });
  const lost = await emu.fetch('/v1/catalogos', {
    method: 'POST',
    headers: { ...headers, 'idempotency-key': 'create-loja-0000001' },
    body,
  });
  expect(lost.status).toBe(503); // processed, then its answer lost
  // The mistake: the retry under a new key is a new request, and the service runs it again.
  const retry = await emu.fetch('/v1/catalogos', {
    method: 'POST',
    headers: { ...headers, 'idempotency-key': 'create-loja-0000002' },
    body,
  });
  expect(retry.status).toBe(409); // estabelecimento_com_catalogo_ativo: the first one was applied

  const { findings, coverage } = emu.report({ companyId: acme.companyId });
  expect(findings).toEqual([
    {
      at: '2026-01-01T00:00:00.000Z',
      rule: 'new-key-after-lost-answer',
      companyId: acme.companyId,
      statements: ['REQ-02', 'REQ-03'],
      message: `POST /v1/catalogos (request ${retry.headers.get('x-request-id')}) repeated request ${lost.headers.get('x-request-id')}, whose answer was lost, under a new idempotency-key (create-loja-0000001 → create-loja-0000002): the service took it for a new request and ran it again.`,
      requestIds: [lost.headers.get('x-request-id'), retry.headers.get('x-request-id')],
      eventIds: [],
      fix: 'Retry a write whose answer you did not get with the same idempotency-key: the service then answers its original result and applies it once.',
    },
  ]);
  expect(coverage.behaviours.filter((b) => b.seen > 0).map((b) => b.id)).toEqual([
    'lost-answer',
    'service-unavailable',
  ]);
  expect(coverage.score).toEqual({ exercised: 2, listed: 20 });
  // #endregion
});
