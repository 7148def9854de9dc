#!/usr/bin/env node
/**
 * catalog-emulator [serve] [--port 4747] [--host 127.0.0.1] [--seed N] [--clock real|manual]
 *                  [--start ISO] [--route FROM=TO]... [--log pretty|json|silent]
 * catalog-emulator demo [NAME]
 *
 * DESIGN §7. Imports the public entry only.
 */
import { parseArgs } from 'node:util';
import { createEmulator, demos, VERSION, type JournalEntry } from '../src/index.js';

const USAGE = `catalog-emulator ${VERSION}: the Catalog Integration Service, emulated

Usage:
  catalog-emulator [serve] [options]   serve the API and the /_emulator controls over HTTP
  catalog-emulator demo [NAME]         list the teaching scenarios, or run one
  catalog-emulator --help | --version

Options of serve:
  --port N            port to listen on (default 4747; 0 picks a free one)
  --host HOST         address to bind (default 127.0.0.1)
  --seed N            seed of every id, token and secret (default 1)
  --clock MODE        real (default: time flows) or manual (moves only through /_emulator/clock)
  --start ISO         virtual start instant (default: now for real, 2026-01-01T00:00:00Z for manual)
  --route FROM=TO     deliver webhooks for URLs under FROM to the local URL TO (repeatable)
  --log FORMAT        pretty (default), json (one line per request) or silent
`;

function fail(message: string): never {
  process.stderr.write(`catalog-emulator: ${message}\nRun "catalog-emulator --help" for usage.\n`);
  process.exit(2);
}

async function main(argv: string[]): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        seed: { type: 'string' },
        clock: { type: 'string' },
        start: { type: 'string' },
        route: { type: 'string', multiple: true },
        log: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    });
  } catch (error) {
    fail((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return void process.stdout.write(USAGE);
  if (values.version) return void process.stdout.write(`${VERSION}\n`);
  const [command = 'serve', ...rest] = positionals;
  if (command === 'demo') return runDemo(rest);
  if (command !== 'serve') fail(`unknown command "${command}" (commands: serve, demo)`);
  if (rest.length > 0) fail(`unexpected argument "${rest[0]}"`);
  await serve(values);
}

interface ServeFlags {
  port?: string;
  host?: string;
  seed?: string;
  clock?: string;
  start?: string;
  route?: string[];
  log?: string;
}

async function serve(flags: ServeFlags): Promise<void> {
  const port = flags.port === undefined ? 4747 : Number(flags.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port must be an integer from 0 to 65535 (got "${flags.port}")`);
  const clock = flags.clock ?? 'real';
  if (clock !== 'real' && clock !== 'manual') fail(`--clock must be "real" or "manual" (got "${clock}")`);
  const log = flags.log ?? 'pretty';
  if (log !== 'pretty' && log !== 'json' && log !== 'silent') fail(`--log must be "pretty", "json" or "silent" (got "${log}")`);
  if (flags.start !== undefined && !Number.isFinite(Date.parse(flags.start))) fail(`--start must be an ISO 8601 date-time such as 2026-01-01T00:00:00Z (got "${flags.start}")`);
  const seed = flags.seed === undefined ? undefined : /^-?\d+$/.test(flags.seed) ? Number(flags.seed) : flags.seed;

  const routeFlags = flags.route ?? [];
  const routes = routeFlags.map((route) => {
    const at = route.indexOf('=');
    if (at <= 0) fail(`--route takes FROM=TO, e.g. --route https://hooks.example.com=http://127.0.0.1:9000 (got "${route}")`);
    return { from: route.slice(0, at), to: route.slice(at + 1) };
  });
  // Routes given as options, not added afterwards: they are configuration, so POST /_emulator/reset keeps them.
  let emu;
  try {
    emu = createEmulator({ seed, clock, ...(flags.start === undefined ? {} : { start: flags.start }), companies: [{}], routes });
  } catch (error) {
    const bad = /^routes\[(\d+)\]: (.*)$/s.exec((error as Error).message);
    if (bad) fail(`--route ${routeFlags[Number(bad[1])]}: ${bad[2]}`);
    // An instant outside the clock's bounds (1970 to 9999): createEmulator says which, as "start must be …".
    if ((error as Error).message.startsWith('start ')) fail(`--${(error as Error).message}`);
    throw error;
  }

  // Before listening: whoever reads the banner may signal at once, and must get a clean exit.
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    if (log !== 'silent') process.stdout.write(`\n${signal}: closing\n`);
    void emu.close().then(() => process.exit(0));
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));

  let server;
  try {
    server = await emu.listen({ port, host: flags.host ?? '127.0.0.1' });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') fail(`port ${port} is busy: stop what uses it, choose another with --port N, or use --port 0 for a free one`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') fail(`cannot bind to host "${flags.host}": not an address of this machine`);
    if (code === 'EACCES') fail(`no permission to bind port ${port}: use a port above 1023`);
    throw error;
  }


  // The same seed always gives the same company and token, also after POST /_emulator/reset.
  const [company] = emu.companies.initial();
  const token = company?.token ?? '';
  process.stdout.write(
    `catalog-emulator ${VERSION} listening on ${server.url}\n` +
      `  company:  ${company?.cnpjRoot} (${company?.companyId}), all permissions\n` +
      `  token:    ${token}\n` +
      `  controls: ${server.url}/_emulator\n` +
      `  clock:    ${clock}, seed ${String(emu.seed)}, now ${emu.clock.now().toISOString()}\n` +
      `Try: curl -H "Authorization: Bearer ${token}" ${server.url}/v1/empresa\n`,
  );
  if (log !== 'silent') emu.journal.subscribe((entry) => process.stdout.write(formatEntry(entry, log) + '\n'));

}

function formatEntry(entry: JournalEntry, log: string): string {
  if (log === 'json') return JSON.stringify(entry);
  const flags = [entry.replayed ? 'replayed' : '', entry.faultId ? `fault ${entry.faultId}` : ''].filter(Boolean).join(', ');
  return `${entry.at} ${entry.method.padEnd(6)} ${entry.path} → ${entry.status}${flags ? ` (${flags})` : ''}`;
}

async function runDemo(args: string[]): Promise<void> {
  const [name, ...extra] = args;
  if (extra.length > 0) fail(`demo takes one name (got "${args.join(' ')}")`);
  if (name === undefined) {
    process.stdout.write('Teaching scenarios (run one with: catalog-emulator demo NAME):\n');
    const width = Math.max(...demos.map((d) => d.name.length)) + 2;
    for (const demo of demos) process.stdout.write(`  ${demo.name.padEnd(width)}${demo.summary}\n`);
    return;
  }
  const demo = demos.find((d) => d.name === name);
  if (!demo) fail(`no demo "${name}" (demos: ${demos.map((d) => d.name).join(', ')})`);
  await demo.run((line) => process.stdout.write(`${line}\n`));
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`catalog-emulator: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
