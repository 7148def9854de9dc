/** The openapi command: the service's OpenAPI document, or the controls'. */
import { openApiText } from '../src/index.js';
import { fail } from './exit.js';
import type { CommandHelp } from './help.js';

/** Its lines of the Usage block. */
export const OPENAPI_HELP: CommandHelp = {
  usage: `  catalog-emulator openapi [--controls]
                                       print the OpenAPI 3.1 document of the service API
                                       (with --controls, of the /_emulator controls)`,
};

/** `openapi [--controls]`: the document the package ships as openapi.json (openapi.controls.json), to stdout. */
export function printDocument(args: string[], flags: { controls?: boolean; [flag: string]: unknown }): void {
  if (args.length > 0) fail(`openapi takes no argument (got "${args[0]}"); --controls prints the controls' document`);
  const other = Object.keys(flags).find((flag) => flag !== 'controls' && flags[flag] !== undefined);
  if (other !== undefined) fail(`--${other} is not an option of the openapi command (it takes --controls)`);
  process.stdout.write(openApiText(flags.controls ? 'controls' : 'api'));
}
