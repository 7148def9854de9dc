// CommonJS (require): Jest's default, a TypeScript project compiled to CommonJS, a plain .cjs script.
const { createEmulator } = require('catalog-emulator');

async function main() {
  const emu = createEmulator();
  const acme = emu.companies.create({ cnpjRoot: '11222333' });
  const answer = await emu.fetch('/v1/empresa', { headers: { authorization: `Bearer ${acme.token}` } });
  console.log(answer.status, (await answer.json()).nome); // 200 Empresa 11222333
}

main();
