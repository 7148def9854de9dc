// A TypeScript project compiled to CommonJS by tsc (module node16), run with node.
import { createEmulator, formatReport, type Emulator, type Report } from 'catalog-emulator';

async function main(): Promise<void> {
  console.log(
    `loaded ${require
      .resolve('catalog-emulator')
      .replace(/^.*[\\/]node_modules[\\/]catalog-emulator[\\/]/, '')
      .replaceAll('\\', '/')}`,
  );
  // The declarations are real ones (were they `any`, the unused directive would be the compile error).
  // @ts-expect-error cnpjRoot is a string of 8 digits
  const wrong = (emu: Emulator) => emu.companies.create({ cnpjRoot: 11222333 });
  void wrong;
  let url: string;
  {
    await using emu: Emulator = createEmulator();
    const company = emu.companies.create({ cnpjRoot: '11222333' });
    const server = await emu.listen({ port: 0 });
    url = server.url;
    const answer = await fetch(`${url}/v1/empresa`, { headers: { authorization: `Bearer ${company.token}` } });
    const body = (await answer.json()) as { id: string; cnpj_raiz: string; nome: string };
    console.log(
      `${answer.status} ${body.cnpj_raiz} ${body.nome} ${body.id === company.companyId ? 'same id' : 'another id'}`,
    );
    // The report's declarations, typed strictly: what the emulator saw, judged, and its Markdown.
    const report: Report = emu.report({ companyId: company.companyId });
    const operation = report.coverage.operations[0];
    if (
      report.findings.length !== 0 ||
      operation?.id !== 'getCompany' ||
      !formatReport(report).startsWith('# catalog-emulator report\n')
    )
      throw new Error(`unexpected report:\n${formatReport(report)}`);
  }
  await fetch(`${url}/v1/empresa`).then(
    () => console.log('still open'),
    () => console.log('closed by await using'),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
