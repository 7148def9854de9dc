// A TypeScript project with a minimal tsconfig, compiled to CommonJS, run with node: the package's declarations
// compile without @types/node and without lib esnext.disposable (no `await using` here: its lib does not have it).
import { createEmulator, type Emulator } from 'catalog-emulator';

async function main(): Promise<void> {
  // The declarations are real ones (were they `any`, the unused directive would be the compile error).
  // @ts-expect-error cnpjRoot is a string of 8 digits
  const wrong = (emu: Emulator) => emu.companies.create({ cnpjRoot: 11222333 });
  void wrong;
  const emu = createEmulator();
  const company = emu.companies.create({ cnpjRoot: '11222333' });
  const inProcess = await emu.fetch('/v1/empresa', { headers: { authorization: `Bearer ${company.token}` } });
  const body = (await inProcess.json()) as { cnpj_raiz: string };
  console.log(`emu.fetch ${inProcess.status} ${body.cnpj_raiz}`);
  const server = await emu.listen({ port: 0 });
  const overHttp = await fetch(`${server.url}/v1/empresa`, { headers: { authorization: `Bearer ${company.token}` } });
  console.log(
    `listen ${overHttp.status} ${server.port === Number(new URL(server.url).port) ? 'same port' : 'another port'}`,
  );
  await emu.close();
  await fetch(`${server.url}/v1/empresa`).then(
    () => console.log('still open'),
    () => console.log('closed'),
  );
}

// Without @types/node there is no `process.exitCode`: a rejection left unhandled fails the run.
void main();
