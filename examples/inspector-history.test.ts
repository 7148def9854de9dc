// The inspector history bounds of docs/inspector.md ("What the inspector records, and when"), run: the bounds as
// set, as the timeline's `history` shows them.
import { expect, test } from 'vitest';
import { createEmulator } from 'catalog-emulator';

test("the inspector's history bounds, as createEmulator takes them and the timeline shows them", async () => {
  // #region inspector-history
  // The defaults: 10,000 entries and 16 MiB for all companies. 0 for either keeps none (the request path then
  // records nothing).
  const emu = createEmulator({ inspector: { historyEntries: 50_000, historyBytes: 64 * 1024 * 1024 } });
  // #endregion
  const acme = emu.companies.create();
  const timeline = (await (await emu.fetch(`/_emulator/inspector/companies/${acme.companyId}/timeline`)).json()) as {
    history: unknown;
  };
  expect(timeline.history).toEqual({
    entries: 0,
    bytes: 0,
    maxEntries: 50_000,
    maxBytes: 64 * 1024 * 1024,
    dropped: 0,
  });
  await emu.close();
});
