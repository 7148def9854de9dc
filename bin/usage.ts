/**
 * The CLI's one usage text (--help, help COMMAND), assembled from each command's part (its module's *_HELP), in the
 * order of COMMANDS: their lines of the Usage block, then their options sections, then the section about the flags
 * the commands for a running server share.
 */
import { VERSION } from '../src/index.js';
import { CHECK_RECEIVER_HELP } from './check-receiver.js';
import { CLOCK_HELP } from './clock.js';
import { CONFORMANCE_HELP } from './conformance.js';
import { DEMO_HELP } from './demo.js';
import { EVENTS_HELP } from './events.js';
import { EXPLORE_HELP } from './explore.js';
import { FAULT_HELP } from './fault.js';
import { COMMANDS, HELP_HELP, type CommandHelp, type CommandName } from './help.js';
import { LOGS_HELP } from './logs-tail.js';
import { OPENAPI_HELP } from './openapi.js';
import { REMOTE_SHARED_HELP } from './remote-command.js';
import { REPORT_HELP } from './report.js';
import { SERVE_HELP } from './serve.js';

const HELP = {
  serve: SERVE_HELP,
  demo: DEMO_HELP,
  openapi: OPENAPI_HELP,
  conformance: CONFORMANCE_HELP,
  'check-receiver': CHECK_RECEIVER_HELP,
  explore: EXPLORE_HELP,
  clock: CLOCK_HELP,
  fault: FAULT_HELP,
  events: EVENTS_HELP,
  logs: LOGS_HELP,
  report: REPORT_HELP,
  help: HELP_HELP,
} satisfies Record<CommandName, CommandHelp>;

/** The usage text, made when asked: the fault effects' part reads the fault schema, which a start need not build. */
export function usage(): string {
  const parts: CommandHelp[] = COMMANDS.map((command) => HELP[command]);
  const lines = [...parts.map((part) => part.usage), '  catalog-emulator --version'];
  const sections = [...parts.flatMap((part) => (part.options === undefined ? [] : [part.options])), REMOTE_SHARED_HELP];
  return `catalog-emulator ${VERSION}: the Catalog Integration Service, emulated

Usage:
${lines.join('\n')}

${sections.join('\n\n')}
`;
}
