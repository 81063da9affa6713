import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { builtImage, containersRequired, engine, engineMissing } from '../../support/container.js';
import { publishedExample } from '../../support/publishedExample.js';

const docs = new URL('../../../docs/', import.meta.url);
const example = new URL('examples/container/testcontainers.example.ts', docs);

/**
 * Testcontainers talks to a Docker API: with podman, the one `podman system service` serves on a socket of its own
 * for this file. Its reaper container (Ryuk) is an image of docker.io, so it is turned off: the example stops its
 * container itself.
 */
async function dockerApi(): Promise<ChildProcess | undefined> {
  if (engine !== 'podman') return undefined;
  const socket = join(tmpdir(), `ugm-podman-${process.pid}.sock`);
  const service = spawn('podman', ['system', 'service', '--time=0', `unix://${socket}`], { stdio: 'ignore' });
  for (let i = 0; i < 100 && !existsSync(socket); i++)
    await new Promise((resolve) => setTimeout(resolve, 100));
  if (!existsSync(socket))
    throw new Error(`user-group-mock: podman system service did not open ${socket} in 10 s`);
  process.env.DOCKER_HOST = `unix://${socket}`;
  process.env.TESTCONTAINERS_RYUK_DISABLED = 'true';
  return service;
}

const runs = engine !== undefined || containersRequired;
if (!runs) console.warn(engineMissing);

/* docs/container.md shows this file verbatim, importing from the package name; here it runs as written. */
describe.skipIf(!runs)('docs/container.md, the Testcontainers example', { tags: ['slow'] }, async () => {
  const service = await dockerApi();
  afterAll(() => {
    service?.kill();
  });
  await builtImage();
  await import('../../../docs/examples/container/testcontainers.example.js');
});

describe('docs/container.md', () => {
  it('shows the Testcontainers example verbatim, importing from user-group-mock', () => {
    expect(readFileSync(new URL('container.md', docs), 'utf8')).toContain(publishedExample(example));
  });
});
