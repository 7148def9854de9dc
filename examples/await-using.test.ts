// The `await using` example of docs/controls.md, kept runnable: it imports the package as you do (the built one, so
// `npm test` builds first).
import { createEmulator } from 'catalog-emulator';
import { expect, test } from 'vitest';

test('await using closes the emulator and its server when the scope ends', async () => {
  // #region await-using
  let url: string;
  {
    await using emu = createEmulator(); // emu.close() when the block ends, thrown or not
    const acme = emu.companies.create({ cnpjRoot: '11222333' });
    ({ url } = await emu.listen({ port: 0 }));
    const answer = await fetch(`${url}/v1/empresa`, { headers: { authorization: `Bearer ${acme.token}` } });
    expect(answer.status).toBe(200);
  }
  await expect(fetch(`${url}/v1/empresa`)).rejects.toThrow('fetch failed'); // closed
  // #endregion
});
