/**
 * The regulatory reference (emu.regulatory, /_emulator/regulatory): the NCM table and attribute rules products are
 * evaluated against, and new snapshots of it.
 */
import * as z from 'zod';
import { currentReference, type Published } from '../../core/regulatory/reference.js';
import { snapshotView, type SnapshotChange, type SnapshotView } from '../../core/regulatory/snapshot.js';
import { publishReferenceChange } from '../../core/surveillance-executions.js';
import { unwrap, type ControlContext } from '../context.js';
import { BAD_BODY, control, type Control } from '../row.js';
import { lazy } from '../schemas.js';

/** emu.regulatory. */
export function regulatoryControls({ engine }: ControlContext) {
  return {
    /** The snapshot in force: id, publication time, every NCM and attribute definition. */
    current: (): SnapshotView => snapshotView(currentReference(engine.world.state)),
    /**
     * Publishes a new snapshot (extinguish or add NCMs, replace required attributes, add or change attributes) and
     * triggers the surveillance executions it affects, in every company's world: the reference is the same for all.
     */
    publish: (change: SnapshotChange): Published => {
      const [shared, ...own] = engine.worlds();
      const published = unwrap(shared!.apply((state, ctx) => publishReferenceChange(state, change, ctx)));
      // The same change on the same reference: accepted in every world, as it was in the shared one.
      for (const world of own) world.apply((state, ctx) => publishReferenceChange(state, change, ctx));
      return published;
    },
  };
}

export type RegulatoryControls = ReturnType<typeof regulatoryControls>;

const attributeDefinition = z.strictObject({
  codigo: z.string().min(1).max(32),
  nome: z.string().min(1).max(200),
  dominio: z.array(z.string().min(1).max(200)).min(1).max(500).optional(),
});
const snapshotChange = z.strictObject({
  extinguir: z.array(z.string()).max(10_000).optional(),
  adicionar: z
    .array(
      z.strictObject({
        codigo: z.string(),
        descricao: z.string().min(1).max(500),
        obrigatorios: z.array(z.string()).max(100).optional(),
      }),
    )
    .max(10_000)
    .optional(),
  obrigatorios: z.record(z.string(), z.array(z.string()).max(100)).optional(),
  atributos: z.array(attributeDefinition).max(1_000).optional(),
});

const regulatoryView = lazy(() =>
  z.strictObject({
    id: z.string(),
    publicadoEm: z.string(),
    ncms: z.array(
      z.strictObject({
        codigo: z.string(),
        descricao: z.string(),
        extinta: z.boolean(),
        extintaDesde: z.string().nullable(),
        obrigatorios: z.array(z.string()),
      }),
    ),
    atributos: z.array(
      z.strictObject({ codigo: z.string(), nome: z.string(), dominio: z.array(z.string()).nullable() }),
    ),
  }),
);
const published = lazy(() =>
  z.strictObject({
    id: z.string(),
    publicadoEm: z.string(),
    afetadas: z.array(z.string()),
    atributosAlterados: z.array(z.string()),
  }),
);

export const ROWS = [
  control({
    method: 'GET',
    path: '/regulatory',
    id: 'getRegulatoryReference',
    summary: 'The regulatory snapshot in force: every NCM and attribute definition',
    tag: 'Regulatory',
    scope: 'emulator',
    success: { 200: { description: 'The snapshot.', body: regulatoryView } },
    errors: {},
    run: ({ emu }) => emu.regulatory.current(),
    sample: () => ({ path: '/regulatory' }),
  }),
  control({
    method: 'POST',
    path: '/regulatory/snapshots',
    id: 'publishRegulatorySnapshot',
    summary:
      'Publish a new regulatory snapshot (extinguish or add NCMs, change required attributes), triggering the ' +
      'surveillance executions it affects',
    tag: 'Regulatory',
    scope: 'emulator',
    body: { schema: snapshotChange },
    success: { 201: { description: 'The snapshot published and what it affects.', body: published } },
    errors: { 422: BAD_BODY },
    run: ({ emu, body }) => emu.regulatory.publish(body),
    sample: () => ({
      path: '/regulatory/snapshots',
      body: { adicionar: [{ codigo: '01012100', descricao: 'Cavalos reprodutores' }] },
    }),
  }),
] as const satisfies readonly Control[];
