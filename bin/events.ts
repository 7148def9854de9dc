/** `catalog-emulator events trigger --company ID --type TYPE [--data JSON]`: an event of a running server's company. */
import type { CommandHelp } from './help.js';
import { shown } from './log-format.js';
import { actionOf, namedActions } from './remote-actions.js';
import { call, remoteOf, usageError, type Io } from './remote-client.js';
import { noMore, nonEmpty, printJson, read } from './remote-command.js';
import { alternatives } from './suggest.js';

const EVENTS_USAGE = 'events trigger --company ID --type TYPE [--data JSON]';

/** Its lines of the Usage block, and its options. */
export const EVENTS_HELP: CommandHelp = {
  usage: `  catalog-emulator ${EVENTS_USAGE}
                                       raise a webhook event of a running server's company`,
  options: `Options of events:
  trigger             raise an event of any kind for the webhook destination of --company ID,
                      delivered like the service's own: --type TYPE (webhook.teste is a test
                      event; catalogo.aplicado, analise.concluida, …), --data JSON its other fields
  --json              print the server's answer (JSON) instead of the line`,
};

export async function eventsCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = read(args, {
    company: { type: 'string' },
    type: { type: 'string' },
    data: { type: 'string' },
    json: { type: 'boolean' },
  });
  const remote = remoteOf(values, io.env);
  const [word, ...rest] = positionals;
  const action = actionOf('events', word);
  if (action === undefined) {
    const actions = alternatives(namedActions('events'));
    throw usageError(
      word === undefined ? `events needs ${actions} (${EVENTS_USAGE})` : `events takes ${actions} (got "${word}")`,
    );
  }
  action satisfies 'trigger';
  noMore(rest, EVENTS_USAGE);
  const company = nonEmpty(
    values.company,
    '--company',
    `events trigger needs --company ID: the company whose webhook destination gets the event (${EVENTS_USAGE})`,
  );
  const type = nonEmpty(
    values.type,
    '--type',
    `events trigger needs --type TYPE, e.g. webhook.teste or catalogo.aplicado (${EVENTS_USAGE})`,
  );
  let data: Record<string, unknown> = {};
  if (values.data !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(values.data);
    } catch (error) {
      throw usageError(
        `--data must be a JSON object, the event's fields, e.g. '{"catalogoId":"…"}' (${(error as Error).message})`,
      );
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw usageError(`--data must be a JSON object, the event's fields (got ${values.data})`);
    data = parsed as Record<string, unknown>;
    if (data.tipo !== undefined && data.tipo !== type)
      throw usageError(`--data names tipo ${JSON.stringify(data.tipo)}, not --type ${type}`);
  }
  const body = { dados: { ...data, tipo: type } };
  const raised = (await call(remote, 'raiseEvent', { params: { companyId: company }, body })) as { eventId: string };
  if (values.json) return printJson(io, raised);
  const eventId = shown(raised.eventId);
  io.out(`raised ${type} event ${eventId} for company ${company}: delivered as the clock runs its attempts`);
  return 0;
}
