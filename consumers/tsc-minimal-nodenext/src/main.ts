// An ES module project with a minimal tsconfig (module nodenext): createEmulator, emu.fetch and listen() under
// `await using`, typed by lib esnext.disposable alone.
import { createEmulator, type Emulator, type RunningServer } from 'catalog-emulator';

// The declarations are real ones (were they `any`, the unused directive would be the compile error).
// @ts-expect-error cnpjRoot is a string of 8 digits
const wrong = (emu: Emulator) => emu.companies.create({ cnpjRoot: 11222333 });
void wrong;
let url: string;
{
  await using emu = createEmulator();
  const company = emu.companies.create({ cnpjRoot: '11222333' });
  const inProcess = await emu.fetch('/v1/empresa', { headers: { authorization: `Bearer ${company.token}` } });
  console.log(`emu.fetch ${inProcess.status} ${((await inProcess.json()) as { cnpj_raiz: string }).cnpj_raiz}`);
  await using server: RunningServer = await emu.listen({ port: 0 });
  url = server.url;
  console.log(
    `listen ${(await fetch(`${url}/v1/empresa`, { headers: { authorization: `Bearer ${company.token}` } })).status}`,
  );
}
await fetch(`${url}/v1/empresa`).then(
  () => console.log('still open'),
  () => console.log('closed by await using'),
);
