import { execFile, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtImage, containersRequired, engine, waitLive } from '../../support/container.js';
import { call, jsonHeaders } from '../../support/http.js';
import { freePort } from '../../support/ports.js';

const exec = promisify(execFile);
const composeFile = fileURLToPath(new URL('../../../deploy/compose.yaml', import.meta.url));
const composeAvailable =
  engine === 'podman' && spawnSync('podman-compose', ['version'], { stdio: 'ignore' }).status === 0;
if (!composeAvailable && !containersRequired)
  console.warn(
    'user-group-mock: podman-compose is missing (apt-get install -y podman-compose): the compose test is skipped',
  );

/**
 * deploy/compose.yaml's `mock` service, as written, through podman-compose (no docker compose here). Its `replicas`
 * profile needs the postgres and nginx images, which cannot be pulled here: kubernetes.test.ts tests the replicas.
 */
describe.skipIf(!composeAvailable && !containersRequired)(
  'deploy/compose.yaml under podman-compose',
  { tags: ['slow'] },
  () => {
    const project = `ugm-compose-${process.pid}`;
    let url = '';
    let env: NodeJS.ProcessEnv = {};
    const compose = (args: readonly string[]) =>
      exec('podman-compose', ['--project-name', project, '--file', composeFile, ...args], {
        env,
        timeout: 120_000,
      });

    beforeAll(async () => {
      await builtImage();
      const port = await freePort();
      env = {
        ...process.env,
        USER_GROUP_MOCK_HOST_PORT: String(port),
        USER_GROUP_MOCK_ADMIN_KEY: 'compose-key',
      };
      url = `http://127.0.0.1:${port}`;
      await compose(['up', '--detach', 'mock']);
      await waitLive(url, `${project}_mock_1`);
    }, 1_200_000);

    afterAll(async () => {
      await compose(['down', '--volumes']).catch(() => undefined);
    });

    it('serves the mock with its volume and the admin key from the environment', async () => {
      const group = { name: 'Customer A', user_group_id: 'customer-a' };
      const created = await call(url, 'GET', '/api/user', { headers: jsonHeaders(), body: group });
      expect([created.status, created.body.new_user_group]).toEqual([200, true]);
      const health = await call(url, 'GET', '/__admin/health', { headers: { 'x-admin-key': 'compose-key' } });
      expect([health.status, health.body.store]).toEqual([200, 'file']);
    });
  },
);
