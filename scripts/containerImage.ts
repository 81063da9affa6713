// What npm run image does (scripts/image.ts), and the container tests with it: builds the container image user-group-mock:<version> and :latest from the Dockerfile, with podman
// or docker, whichever runs here. The Dockerfile starts from the official node:24-bookworm-slim; where it cannot be
// pulled (no access to the image registry), an equivalent base is made from Debian's packages (debootstrap) and
// the npm registry's Node 24 and npm, imported once as user-group-mock-base:node24-bookworm and reused after.
// Prints one line per step and, last, "user-group-mock: built <tag> (<size>) in <seconds> s".
import { type ExecFileSyncOptions, execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
export const officialBase = 'docker.io/library/node:24-bookworm-slim';
export const localBase = 'localhost/user-group-mock-base:node24-bookworm';
/** Unqualified, so that `docker run user-group-mock` finds it; podman stores it as localhost/user-group-mock. */
export const imageName = 'user-group-mock';
/** The name of the build stage's image: named, it is the layer cache of the next build, not an unnamed image. */
export const buildStageName = 'user-group-mock-build';
/** The label both stages of the Dockerfile carry, by which the unnamed images of earlier builds are found. */
export const stageLabel = 'user-group-mock.stage';
const say = (line: string): boolean => process.stdout.write(`user-group-mock: ${line}\n`);

/** Whether the command exits 0 (within 30 s, its output discarded). */
const runs = (command: string, args: readonly string[]): boolean =>
  spawnSync(command, args, { stdio: 'ignore', timeout: 30_000 }).status === 0;

export type Engine = 'podman' | 'docker';

/** The container engine here: podman when installed, else docker when its engine answers; undefined for neither. */
export function findEngine(): Engine | undefined {
  if (runs('podman', ['--version'])) return 'podman';
  if (runs('docker', ['info'])) return 'docker';
  return undefined;
}

const run = (command: string, args: readonly string[], options: ExecFileSyncOptions = {}): void => {
  execFileSync(command, args, { stdio: 'inherit', ...options });
};
export const read = (command: string, args: readonly string[]): string =>
  execFileSync(command, args, { encoding: 'utf8' }).trim();
const hasImage = (engine: Engine, name: string): boolean => runs(engine, ['image', 'inspect', name]);

/**
 * Debian bookworm (minbase), Node 24 and npm from the npm registry, and the user `node` (uid 1000) of the official
 * image: what the Dockerfile needs of its base. Built in a temporary folder and imported as `localBase`.
 */
function buildLocalBase(engine: Engine): void {
  for (const tool of ['debootstrap', 'tar'])
    if (!runs('sh', ['-c', `command -v ${tool}`]))
      throw new Error(
        `user-group-mock: ${officialBase} cannot be pulled and ${tool} is missing to build an equivalent base; install it (apt-get install -y ${tool}) or give the engine access to docker.io`,
      );
  const work = mkdtempSync(join(tmpdir(), 'user-group-mock-base-'));
  try {
    const rootfs = join(work, 'rootfs');
    say('making the base: Debian bookworm (debootstrap --variant=minbase) ...');
    run('debootstrap', ['--variant=minbase', 'bookworm', rootfs, 'http://deb.debian.org/debian'], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    say('adding Node 24 and npm from the npm registry ...');
    const npmDir = join(work, 'npm');
    mkdirSync(npmDir);
    // The node package fetches its binary in an install script: allowScripts lets npm versions that ask run it.
    execFileSync(
      'sh',
      ['-c', `echo '{ "private": true, "allowScripts": { "node": true } }' > package.json`],
      {
        cwd: npmDir,
      },
    );
    run('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', npmDir, 'node@24', 'npm@11'], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const node = read('find', [
      join(npmDir, 'node_modules'),
      '-path',
      '*/bin/node',
      '-type',
      'f',
      '-size',
      '+10M',
    ]);
    const local = join(rootfs, 'usr/local');
    run('install', ['-m', '0755', node.split('\n')[0] as string, join(local, 'bin/node')]);
    mkdirSync(join(local, 'lib/node_modules'), { recursive: true });
    run('cp', ['-a', join(npmDir, 'node_modules/npm'), join(local, 'lib/node_modules/npm')]);
    symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', join(local, 'bin/npm'));
    symlinkSync('../lib/node_modules/npm/bin/npx-cli.js', join(local, 'bin/npx'));
    run('chroot', [
      rootfs,
      'sh',
      '-c',
      'groupadd -g 1000 node && useradd -u 1000 -g node -m -s /bin/sh node',
    ]);
    for (const dir of [
      'var/lib/apt/lists',
      'var/cache/apt',
      'usr/share/doc',
      'usr/share/man',
      'usr/share/info',
    ])
      rmSync(join(rootfs, dir), { recursive: true, force: true });
    mkdirSync(join(rootfs, 'var/lib/apt/lists/partial'), { recursive: true });
    chmodSync(join(rootfs, 'tmp'), 0o1777);
    const tarball = join(work, 'rootfs.tar');
    run('tar', ['-C', rootfs, '--numeric-owner', '-cf', tarball, '.']);
    run(
      engine,
      [
        'import',
        '--change',
        'ENV PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin',
        '--change',
        'CMD ["node"]',
        tarball,
        localBase,
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The base to build from: the official image when present or pullable, else the local one (made once). */
export function chooseBase(engine: Engine): string {
  if (hasImage(engine, officialBase)) return officialBase;
  if (hasImage(engine, localBase)) {
    say(`${officialBase} is not here; building on the local equivalent ${localBase} (made earlier)`);
    return localBase;
  }
  if (runs(engine, ['pull', '--quiet', officialBase])) return officialBase;
  say(`${officialBase} cannot be pulled here; making an equivalent base locally, once: ${localBase}`);
  const started = Date.now();
  buildLocalBase(engine);
  say(`made ${localBase} in ${Math.round((Date.now() - started) / 1000)} s`);
  return localBase;
}

/** What a build made: the versioned tag (`:latest` too), the base it started from, its size and its time. */
export interface BuiltImage {
  readonly tag: string;
  readonly base: string;
  readonly bytes: number;
  readonly seconds: number;
}

/**
 * Builds `imageName:<version>` and `:latest`. The engine's layer cache makes a build of unchanged sources take
 * seconds, so a second build in the same checkout (CI's second Node) reuses the first. `quiet` keeps the engine's
 * step-by-step output off stdout (its errors still go to stderr).
 */
export function buildImage(engine: Engine | undefined = findEngine(), quiet = false): BuiltImage {
  if (engine === undefined)
    throw new Error(
      'user-group-mock: npm run image needs podman or docker; install one (apt-get install -y podman runc) and run it again',
    );
  const started = Date.now();
  const base = chooseBase(engine);
  const tag = `${imageName}:${version}`;
  const ca = process.env.NODE_EXTRA_CA_CERTS;
  const secret = ca !== undefined && ca !== '' ? ['--secret', `id=npm_ca,src=${ca}`] : [];
  say(
    `building ${tag} with ${engine} from ${base}${secret.length > 0 ? `, npm trusting ${ca} (NODE_EXTRA_CA_CERTS)` : ''} ...`,
  );
  const build = (target: readonly string[]) =>
    run(
      engine,
      [
        'build',
        // podman's default (OCI) image format drops HEALTHCHECK; the docker format keeps it.
        ...(engine === 'podman' ? ['--format', 'docker'] : []),
        ...secret,
        '--build-arg',
        `BASE=${base}`,
        '--build-arg',
        `VERSION=${version}`,
        ...target,
        root,
      ],
      { stdio: ['ignore', quiet ? 'ignore' : 'inherit', 'inherit'] },
    );
  // The build stage first, named: the engine leaves a multi-stage build's earlier stages as unnamed images. The
  // second build finds its layers in the cache.
  build(['--target', 'build', '--tag', `${buildStageName}:${version}`]);
  build(['--tag', tag, '--tag', `${imageName}:latest`]);
  // The images of earlier builds whose names these took (each of hundreds of MB), no longer named: removed.
  run(engine, ['image', 'prune', '--force', '--filter', `label=${stageLabel}`], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const bytes = Number(read(engine, ['image', 'inspect', '--format', '{{.Size}}', tag]));
  const seconds = (Date.now() - started) / 1000;
  say(`built ${tag} and :latest (${(bytes / 1e6).toFixed(0)} MB) in ${seconds.toFixed(1)} s`);
  return { tag, base, bytes, seconds };
}
