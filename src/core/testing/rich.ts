/**
 * A state with every kind of record and every derived table non-empty, for the snapshot and company-data tests.
 * Test support, never shipped (see support.ts).
 */
import { requestAnalysis } from '../analyses.js';
import { createCatalog } from '../catalogs.js';
import { requestCnpjCorrection } from '../cnpj-corrections.js';
import { establishmentEtag } from '../establishments.js';
import { storeIdempotency } from '../idempotency.js';
import { startIngestion } from '../ingestion/ingestions.js';
import { JOBS } from '../jobs.js';
import { drainOutbox } from '../outbox.js';
import { createProduct, dropLink } from '../products.js';
import { publishReference } from '../regulatory/reference.js';
import type { State } from '../state.js';
import { scheduleDailyExecutions } from '../surveillance-executions.js';
import { changeSelection, surveillanceEtag, surveillanceOf } from '../surveillance.js';
import { MINUTE } from '../time.js';
import { destinationEtag } from '../webhooks/destination.js';
import { raiseEvent } from '../webhooks/events.js';
import { sendTestEvent } from '../webhooks/sending.js';
import { cnpj, configureWebhook, raised, seededWorld, T0, unwrap } from './support.js';

/**
 * `companies` companies, the first `busy` of them with every kind of record, each step taken by every busy company
 * in turn (so their positions interleave): links removed and a product deactivated (so indexes hold gaps), a
 * selection, open and closed webhook events, test sends, analyses and surveillance executions that ran (with
 * evaluations and allowance taken), a published reference, and a pending CNPJ correction, an open ingestion and a
 * stored answer.
 */
export function richState(companies: number, busy: number): { state: State; ids: string[] } {
  const { state, ctx, company } = seededWorld();
  const ids = Array.from({ length: companies }, () => company());
  const each = (step: (a: string) => void) => ids.slice(0, busy).forEach(step);
  const headOffice = (a: string) => state.companies.get(a)!.headOfficeId;
  const catalogs = new Map<string, string>();
  each((a) =>
    catalogs.set(a, unwrap(createCatalog(state, a, { establishmentId: headOffice(a), nome: 'Loja' }, ctx(T0))).id),
  );
  each((a) => {
    const catalog = catalogs.get(a)!;
    const products = [0, 1, 2, 3].map(
      (i) =>
        unwrap(createProduct(state, a, catalog, { origem: 'erp', ncm: '84713012', idExterno: `ext-${i}` }, ctx(T0))).id,
    );
    dropLink(state, state.products.get(products[3]!)!, catalog, true, ctx(T0));
    unwrap(
      changeSelection(
        state,
        a,
        [surveillanceEtag(surveillanceOf(state, a))],
        { modo: 'selecao', adicionar: products.slice(0, 2), remover: [] },
        ctx(T0),
      ),
    );
  });
  each((a) => {
    configureWebhook(state, a, ctx(T0));
    raised(raiseEvent(state, a, { tipo: 'webhook.teste' }, ctx(T0)));
  });
  // A new destination cancels the open events: closed ones, in the retention queue.
  each((a) => {
    const destination = configureWebhook(state, a, ctx(T0 + 1), 'https://hooks.example.com/b');
    unwrap(sendTestEvent(state, a, [destinationEtag(destination)], ctx(T0 + 2)));
  });
  each((a) => requestAnalysis(state, a, ctx(T0)));
  scheduleDailyExecutions(state, ctx(T0));
  unwrap(publishReference(state, { extinguir: ['84713012'] }, T0 + 3));
  // Run every job the changes asked for (not the deliveries), until none is left.
  for (let intents = drainOutbox(state); intents.length > 0; intents = drainOutbox(state)) {
    for (const intent of intents)
      JOBS.find((job) => job.task === intent.kind)?.run(
        state,
        intent.payload as Record<string, string>,
        ctx(intent.due),
        false,
      );
  }
  each((a) => {
    const establishment = state.establishments.get(headOffice(a))!;
    unwrap(
      requestCnpjCorrection(
        state,
        a,
        establishment.id,
        [establishmentEtag(establishment)],
        { cnpjNovo: cnpj(state.companies.get(a)!.cnpjRoot, '0002'), motivo: 'erro' },
        ctx(T0 + 10 * MINUTE),
      ),
    );
    unwrap(startIngestion(state, a, { operacao: 'mesclar', catalogId: catalogs.get(a)! }, ctx(T0 + 10 * MINUTE)));
    storeIdempotency(
      state,
      a,
      'key-0001',
      'fingerprint-0000000001',
      { status: 201, body: '{}', etag: null, location: null, headers: null },
      T0,
      100,
    );
  });
  drainOutbox(state);
  return { state, ids };
}

/** Everything a state derives from its records, as plain data: what importState must rebuild exactly. */
export function derived(state: State) {
  return {
    indexes: [...state.indexes].map(([companyId, i]) => ({
      companyId,
      establishments: state.establishments.listOf(companyId).entries(),
      establishmentsByCnpj: [...i.establishmentsByCnpj],
      catalogs: state.catalogs.listOf(companyId).entries(),
      products: state.products.listOf(companyId).entries(),
      productsByExternalId: [...i.productsByExternalId],
      catalogProducts: [...i.catalogProducts].map(([catalogId, links]) => [catalogId, links.entries()]),
      webhookEvents: state.webhookEvents.listOf(companyId).entries(),
      openWebhookEvents: [...i.openWebhookEvents],
      analyses: state.analyses.listOf(companyId).entries(),
      executions: state.executions.listOf(companyId).entries(),
    })),
    surveillance: [...state.surveillance.values()].map((s) => ({ ...s, selected: s.selected.entries() })),
    openAnalyses: [...state.openAnalyses],
    openIngestions: [...state.openIngestions],
    pendingCnpjCorrections: [...state.pendingCnpjCorrections],
    closedWebhookEvents: state.closedWebhookEvents,
    regulatory: state.regulatory,
  };
}
