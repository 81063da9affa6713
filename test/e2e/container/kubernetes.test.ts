import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { builtImage, container, containersRequired, engine, waitLive } from '../../support/container.js';
import { call, jsonHeaders } from '../../support/http.js';
import { freePort } from '../../support/ports.js';
import { postgresAvailable, startTestCluster, type TestCluster } from '../../support/postgres.js';
import { useTempDir } from '../../support/tempDir.js';

const manifest = new URL('../../../deploy/kubernetes.yaml', import.meta.url);
const network = 'podman-default-kube-network';
const playable = engine === 'podman' && postgresAvailable();
if (!playable && !containersRequired)
  console.warn(
    'user-group-mock: podman or PostgreSQL (initdb) is missing: the podman kube play test of deploy/kubernetes.yaml is skipped',
  );

// biome-ignore lint/suspicious/noExplicitAny: the manifest is read as loosely typed YAML and rewritten in place
type Loose = any;

/**
 * deploy/kubernetes.yaml played by `podman kube play`: its mock Deployment, as two replicas, on one PostgreSQL.
 * What podman 4.3 cannot do the Kubernetes way is done by hand, and only that:
 * - it publishes every replica of a Deployment on the same host port (so the second fails to start) and has no
 *   Services: each replica is played as its own copy of the Deployment (replicas: 1) with a hostPort of its own;
 * - it stores a `kind: Secret` document as YAML but reads `secretKeyRef`s as JSON: the Secret is made with
 *   `podman secret create` as the JSON map of base64 values that podman reads;
 * - the manifest's PostgreSQL Deployment needs the postgres image, which cannot be pulled here: the replicas use a
 *   PostgreSQL cluster of the host instead, reached through the pod network's gateway (the Secret's database-url
 *   is pointed at it).
 */
describe.skipIf(!playable && !containersRequired)(
  'deploy/kubernetes.yaml under podman kube play',
  { tags: ['slow'] },
  () => {
    const dir = useTempDir('kube');
    let cluster: TestCluster | undefined;
    let secret: string | undefined;
    const replicas: { name: string; url: string }[] = [];
    let adminKey = '';

    beforeAll(async () => {
      const { tag } = await builtImage();
      cluster = await startTestCluster({ listen: '*' });
      const password = 'kube-test-password';
      await cluster.createRoleWithPassword('mock', password);
      await cluster.asSuperuser('CREATE DATABASE user_group_mock OWNER mock');
      const hba = join(cluster.dir, 'data', 'pg_hba.conf');
      writeFileSync(hba, `host all mock 0.0.0.0/0 scram-sha-256\n${readFileSync(hba, 'utf8')}`);
      await cluster.asSuperuser('SELECT pg_reload_conf()');

      await container(['network', 'exists', network]).catch(() => container(['network', 'create', network]));
      const gateway = await container([
        'network',
        'inspect',
        '--format',
        '{{range .Subnets}}{{.Gateway}}{{end}}',
        network,
      ]);

      const documents: Loose[] = parseAllDocuments(readFileSync(manifest, 'utf8')).map((d) => d.toJS());
      const secretDoc = documents.find((d) => d.kind === 'Secret');
      const mockDoc = documents.find((d) => d.kind === 'Deployment' && d.metadata.name === 'user-group-mock');
      secret = secretDoc.metadata.name as string;
      adminKey = secretDoc.stringData['admin-key'];
      const values: Record<string, string> = {
        ...secretDoc.stringData,
        'database-url': `postgres://mock:${password}@${gateway}:${cluster.port}/user_group_mock`,
      };
      const encoded = Object.fromEntries(
        Object.entries(values).map(([key, value]) => [key, Buffer.from(value).toString('base64')]),
      );
      const secretFile = join(dir(), 'secret.json');
      writeFileSync(secretFile, JSON.stringify(encoded));
      await container(['secret', 'rm', secret]).catch(() => undefined);
      await container(['secret', 'create', secret, secretFile]);

      const copies = [];
      for (const suffix of ['a', 'b']) {
        const copy = structuredClone(mockDoc);
        copy.metadata.name = `${mockDoc.metadata.name}-${suffix}`;
        copy.spec.replicas = 1;
        const [mock] = copy.spec.template.spec.containers;
        mock.image = tag;
        const port = await freePort();
        mock.ports = [{ containerPort: 4010, hostPort: port, hostIP: '127.0.0.1' }];
        copies.push(copy);
        replicas.push({ name: `${copy.metadata.name}-pod-0-mock`, url: `http://127.0.0.1:${port}` });
      }
      const played = join(dir(), 'replicas.yaml');
      writeFileSync(played, copies.map((copy) => JSON.stringify(copy)).join('\n---\n'));
      await removePods();
      await container(['kube', 'play', played], 180_000);
      for (const replica of replicas) await waitLive(replica.url, replica.name, 60_000);
    }, 1_200_000);

    /** Removes the replicas' pods (left by an earlier run that stopped half-way, too). */
    const removePods = async (): Promise<void> => {
      const pods = replicas.map((replica) => replica.name.replace(/-mock$/, ''));
      if (pods.length > 0) await container(['pod', 'rm', '--force', ...pods]).catch(() => undefined);
    };

    afterAll(async () => {
      await removePods();
      if (secret !== undefined) await container(['secret', 'rm', secret]).catch(() => undefined);
      cluster?.remove();
    });

    it('runs both replicas on PostgreSQL, with one state across them', async () => {
      const [a, b] = replicas.map((replica) => replica.url) as [string, string];
      const group = { name: 'Customer A', user_group_id: 'customer-a' };
      const created = await call(a, 'GET', '/api/user', { headers: jsonHeaders(), body: group });
      const again = await call(b, 'GET', '/api/user', { headers: jsonHeaders(), body: group });
      expect([created.status, created.body.new_user_group]).toEqual([200, true]);
      expect([again.body.new_user_group, again.body.user_group.token]).toEqual([
        false,
        created.body.user_group.token,
      ]);

      const rotated = await call(b, 'POST', '/api/user', {
        headers: jsonHeaders(),
        body: { current_token: created.body.user_group.token },
      });
      expect(rotated.status).toBe(200);
      const owner = await call(a, 'GET', `/__admin/tokens/${rotated.body.user_group.token}`, {
        headers: { 'x-admin-key': adminKey },
      });
      expect([owner.status, owner.body.provided_id]).toEqual([200, 'customer-a']);

      for (const { url } of replicas) {
        const health = await call(url, 'GET', '/__admin/health', { headers: { 'x-admin-key': adminKey } });
        expect([health.body.store, health.body.database]).toEqual(['postgres', 'up']);
      }
    });
  },
);
