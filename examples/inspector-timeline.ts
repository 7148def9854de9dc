// The inspector's data from a script: a webhook retry cycle read from a company's timeline, page by page, and the
// signature headers of one attempt. The same routes answer over HTTP (with the control token, when one is set).
import { createEmulator, type ItemDetail, type Timeline } from 'catalog-emulator';

const emu = createEmulator({ clock: 'manual' });
const acme = emu.companies.create();
await emu.fetch('/v1/webhook', {
  method: 'PUT',
  headers: {
    authorization: `Bearer ${acme.token}`,
    'content-type': 'application/json',
    'idempotency-key': 'inspector-example-01',
    'if-none-match': '*',
  },
  body: JSON.stringify({ url: 'https://hooks.acme.example/catalog' }),
});
emu.faults.add({ target: 'delivery', effect: { status: 503 }, times: null }); // every attempt fails
const { eventId } = emu.webhooks.raise(acme.companyId, { tipo: 'webhook.teste' });
await emu.clock.advance('1d');

// Newest first, a page at a time: follow nextBefore until it is null.
const attempts: string[] = [];
let before: string | null = null;
do {
  const query = before === null ? '?limit=100' : `?limit=100&before=${before}`;
  const page = (await (
    await emu.fetch(`/_emulator/inspector/companies/${acme.companyId}/timeline${query}`)
  ).json()) as Timeline;
  for (const item of page.items) if (item.kind === 'attempt') attempts.unshift(`${item.at} ${item.title}`);
  before = page.nextBefore;
} while (before !== null);
console.log(attempts.join('\n'));

const third = (await (
  await emu.fetch(`/_emulator/inspector/companies/${acme.companyId}/items/att:${eventId}:3`)
).json()) as ItemDetail;
const signature = third.sections.find((section) => section.title === 'Signature headers');
console.log(Object.keys(signature?.value ?? {}).join(', '));
await emu.close();
