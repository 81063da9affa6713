import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuiltImage } from '../../../scripts/containerImage.js';
import {
  builtImage,
  container,
  containersRequired,
  engine,
  engineMissing,
  logsOf,
  waitExited,
  waitLive,
} from '../../support/container.js';
import { call, jsonHeaders } from '../../support/http.js';
import { freePort } from '../../support/ports.js';

if (engine === undefined && !containersRequired) console.warn(engineMissing);

const adminKey = 'container-admin-secret';

/**
 * The image as users run it: `npm run image`'s build (cached by the engine: a second build of the same sources takes
 * seconds), then containers with a volume, published on a free port of 127.0.0.1. Every container is removed after.
 */
describe.skipIf(engine === undefined && !containersRequired)(
  'the container image',
  { tags: ['slow'] },
  () => {
    let built: BuiltImage;
    const names: string[] = [];
    const dirs: string[] = [];

    beforeAll(async () => {
      built = await builtImage();
      console.info(
        `user-group-mock image ${built.tag}: ${(built.bytes / 1e6).toFixed(0)} MB, from ${built.base}, built in ${built.seconds.toFixed(1)} s`,
      );
    }, 1_200_000);

    afterAll(async () => {
      for (const name of names) await container(['rm', '--force', name]).catch(() => undefined);
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    });

    it('leaves no unnamed image of its own behind: the build stage is named, an earlier build’s images removed', async () => {
      const stage = await container([
        'image',
        'inspect',
        '--format',
        '{{.Id}}',
        `user-group-mock-build:${built.tag.split(':')[1]}`,
      ]);
      expect(stage).toMatch(/^(sha256:)?[0-9a-f]{64}$/);
      const unnamed = await container([
        'images',
        '--quiet',
        '--filter',
        'dangling=true',
        '--filter',
        'label=user-group-mock.stage',
      ]);
      expect(unnamed).toBe('');
    });

    /** A host folder for /data, owned by root (as a folder made for a bind mount is) with mode 0755. */
    const dataDir = (): string => {
      const dir = mkdtempSync(join(tmpdir(), 'ugm-container-'));
      chmodSync(dir, 0o755);
      dirs.push(dir);
      return dir;
    };

    /** Runs the image detached: /data on `dir`, port 4010 on a free port of 127.0.0.1; `options` go before the image. */
    async function run(
      dir: string,
      options: readonly string[] = [],
      volumeOption = engine === 'podman' ? ':U' : '',
    ) {
      const name = `ugm-test-${process.pid}-${names.length}`;
      names.push(name);
      const port = await freePort();
      await container([
        'run',
        '--detach',
        '--name',
        name,
        '--publish',
        `127.0.0.1:${port}:4010`,
        '--volume',
        `${dir}:/data${volumeOption}`,
        ...options,
        built.tag,
      ]);
      return { name, url: `http://127.0.0.1:${port}` };
    }

    const getOrCreate = (url: string, id: string) =>
      call(url, 'GET', '/api/user', {
        headers: jsonHeaders(),
        body: { name: `Group ${id}`, user_group_id: id },
      });

    it('serves get-or-create through the published port, as a user other than root, healthy', async () => {
      const { name, url } = await run(dataDir(), ['--env', `USER_GROUP_MOCK_ADMIN_KEY=${adminKey}`]);
      const startup = await waitLive(url, name);
      console.info(`user-group-mock container: answering ${startup} ms after podman run returned`);

      const created = await getOrCreate(url, 'customer-a');
      const again = await getOrCreate(url, 'customer-a');
      expect([created.status, created.body.new_user_group]).toEqual([200, true]);
      expect([again.body.new_user_group, again.body.user_group.token]).toEqual([
        false,
        created.body.user_group.token,
      ]);

      // PID 1 of the container is the mock itself, run by uid 1000.
      const status = await container(['exec', name, 'cat', '/proc/1/status']);
      expect(status).toMatch(/^Uid:\s+1000\s+1000\s+1000\s+1000$/m);
      expect(await container(['exec', name, 'cat', '/proc/1/cmdline'])).toContain('/app/entrypoint.mjs');

      // The image's HEALTHCHECK probes the keyless /__admin/health/live; the full health needs the key.
      expect(
        await container(['image', 'inspect', '--format', '{{json .Config.Healthcheck.Test}}', built.tag]),
      ).toContain('/__admin/health/live');
      if (engine === 'podman') await container(['healthcheck', 'run', name]);
      expect((await call(url, 'GET', '/__admin/health', { headers: {} })).status).toBe(401);
      const health = await call(url, 'GET', '/__admin/health', { headers: { 'x-admin-key': adminKey } });
      expect([health.status, health.body.store]).toEqual([200, 'file']);
    });

    it('keeps every acknowledged group across a kill -9 and a restart on the same volume', async () => {
      const dir = dataDir();
      const { name, url } = await run(dir);
      await waitLive(url, name);
      const tokens = new Map<string, string>();
      for (let i = 0; i < 20; i++) {
        const answer = await getOrCreate(url, `group-${i}`);
        expect(answer.status).toBe(200);
        tokens.set(`group-${i}`, answer.body.user_group.token);
      }

      await container(['kill', '--signal', 'KILL', name]);
      expect(await waitExited(name)).toEqual({ status: 'exited', exitCode: 137 });
      await container(['start', name]);
      await waitLive(url, name);

      for (const [id, token] of tokens) {
        const answer = await getOrCreate(url, id);
        expect([id, answer.body.new_user_group, answer.body.user_group.token]).toEqual([id, false, token]);
      }
    });

    it('stops cleanly on SIGTERM (podman stop) within 3 s, exit code 0', async () => {
      const { name, url } = await run(dataDir());
      await waitLive(url, name);
      await getOrCreate(url, 'customer-a');

      const started = Date.now();
      await container(['stop', '--time', '10', name]);
      const took = Date.now() - started;

      expect(await waitExited(name)).toEqual({ status: 'exited', exitCode: 0 });
      expect(took).toBeLessThan(3_000);
      expect(await logsOf(name)).toContain('user-group-mock: SIGTERM received');
    });

    it('makes and prints an admin key when none is given, and names the fix for a /data it cannot write', async () => {
      const { name } = await run(dataDir(), [], '');
      const { exitCode } = await waitExited(name);
      const logs = await logsOf(name);
      expect(exitCode).toBe(1);
      expect(logs).toMatch(/this container made one: send "X-Admin-Key: [\w-]{32}"/);
      expect(logs).toContain("/data is not writable by this container's user (uid 1000)");
      expect(logs).toContain('-v "$PWD/data:/data:U"');
    });
  },
);
