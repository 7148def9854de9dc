// ES modules (import): vitest, node:test, a "type": "module" project, a .mjs script.
import { createEmulator } from 'catalog-emulator';

const emu = createEmulator();
const acme = emu.companies.create({ cnpjRoot: '11222333' });
const answer = await emu.fetch('/v1/empresa', { headers: { authorization: `Bearer ${acme.token}` } });
console.log(answer.status, (await answer.json()).nome); // 200 Empresa 11222333
