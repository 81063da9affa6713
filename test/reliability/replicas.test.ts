import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, apiHeaders, apiRequest, call, jsonHeaders } from '../support/http.js';
import { killAllMockProcesses, type MockProcess, startMockProcess } from '../support/mockProcess.js';
import {
  postgresAvailable,
  startTestCluster,
  storeUnavailableProblems,
  type TestCluster,
} from '../support/postgres.js';
import { race, rawRequest } from '../support/rawHttp.js';

/** A replica: the built command line on a shared PostgreSQL database. */
interface Replica {
  readonly process: MockProcess;
  readonly url: string;
  readonly port: number;
}

const bytes = (operation: Parameters<typeof apiRequest>[0], body: unknown): Buffer => {
  const request = apiRequest(operation, body);
  return rawRequest(request.method, request.path, apiHeaders(), request.body);
};

const api = (replica: Replica, method: string, body: unknown, key?: string): Promise<Answer> =>
  call(replica.url, method, '/api/user', { body, headers: jsonHeaders(key) });

const adminGet = async (replica: Replica, path: string): Promise<Answer> =>
  call(replica.url, 'GET', path, { headers: {} });

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Requests `count` calls of `work` at once over `replicas`, each on its own connection, released together. */
async function raceOver(replicas: readonly Replica[], requests: readonly Buffer[]): Promise<Answer[]> {
  const shares = replicas.map((replica, i) =>
    race(
      replica.port,
      requests.filter((_, j) => j % replicas.length === i),
    ),
  );
  return (await Promise.all(shares)).flat();
}

describe.skipIf(!postgresAvailable())(
  'replicas of the CLI sharing one PostgreSQL database',
  { tags: ['slow'] },
  () => {
    let cluster: TestCluster;
    const started: Replica[] = [];
    beforeAll(async () => {
      cluster = await startTestCluster();
    }, 60_000);
    afterEach(async () => {
      for (const replica of started.splice(0)) {
        replica.process.child.kill('SIGTERM');
        await replica.process.exited;
      }
    });
    afterAll(() => {
      killAllMockProcesses();
      cluster?.remove();
    });

    async function replicas(count: number, db?: string): Promise<Replica[]> {
      const url = db ?? (await cluster.createDatabase());
      const processes = Array.from({ length: count }, () => startMockProcess(url));
      const made = await Promise.all(
        processes.map(async (process) => {
          const base = await process.ready;
          return { process, url: base, port: Number(new URL(base).port) };
        }),
      );
      started.push(...made);
      return made;
    }

    it('makes one group and exactly one new_user_group: true from 200 get-or-creates of a new id over 2 replicas', async () => {
      const pair = await replicas(2);
      const answers = await raceOver(
        pair,
        Array.from({ length: 200 }, () =>
          bytes('getOrCreateUserGroup', { name: 'Racer', user_group_id: 'race-1' }),
        ),
      );
      expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
      expect(answers.filter((a) => a.body?.new_user_group === true)).toHaveLength(1);
      expect(new Set(answers.map((a) => a.body?.user_group?.token)).size).toBe(1);
      const groups = (await adminGet(pair[1] as Replica, '/__admin/groups')).body;
      expect(groups).toHaveLength(1);
    });

    it('lets exactly one of 60 rotations with one token through 3 replicas succeed, the rest 404', async () => {
      const three = await replicas(3);
      const [a, b, c] = three as [Replica, Replica, Replica];
      const token = (await api(a, 'GET', { name: 'R', user_group_id: 'rotate' })).body.user_group.token;
      const answers = await raceOver(
        three,
        Array.from({ length: 60 }, () => bytes('rotateUserGroupToken', { current_token: token })),
      );
      const winners = answers.filter((x) => x.status === 200);
      expect(winners).toHaveLength(1);
      expect(answers.filter((x) => x.body?.error?.code === 'TOKEN_NOT_FOUND')).toHaveLength(59);
      const stored = (await adminGet(b, '/__admin/groups')).body[0].token;
      expect(stored).toBe(winners[0]?.body.user_group.token);
      expect((await api(c, 'POST', { current_token: stored })).status).toBe(200);
    });

    it('leaves the fields of exactly one of 40 updates through 2 replicas, never a mix', async () => {
      const pair = await replicas(2);
      await api(pair[0] as Replica, 'GET', { name: 'U', user_group_id: 'update' });
      const bodies = Array.from({ length: 40 }, (_, i) => ({
        user_group_id: 'update',
        name: `Writer ${i}`,
        mapping: { [String(i)]: `m-${i}` },
        properties: { writer: i },
      }));
      const answers = await raceOver(
        pair,
        bodies.map((body) => bytes('updateUserGroup', body)),
      );
      expect(answers.every((a) => a.status === 200)).toBe(true);
      const final = (await adminGet(pair[1] as Replica, '/__admin/groups')).body[0];
      const writer = final.properties.writer as number;
      expect(final).toMatchObject({ name: `Writer ${writer}`, mapping: { [String(writer)]: `m-${writer}` } });
    });

    it('shows a client spreading its calls over replicas one state: groups, tenants, journal and faults', async () => {
      const [a, b, c] = (await replicas(3)) as [Replica, Replica, Replica];
      const created = await api(a, 'GET', { name: 'Spread', user_group_id: 'spread' });
      const read = await api(b, 'GET', { name: 'Spread', user_group_id: 'spread' });
      expect(read.body).toEqual({ ...created.body, new_user_group: false });
      const rotated = await api(c, 'POST', { current_token: created.body.user_group.token });
      expect((await api(a, 'POST', { current_token: created.body.user_group.token })).status).toBe(404);
      await api(b, 'PUT', { user_group_id: 'spread', name: 'Renamed' });
      const after = await api(c, 'GET', { name: 'Renamed', user_group_id: 'spread' });
      expect(after.body.user_group).toMatchObject({ name: 'Renamed', token: rotated.body.user_group.token });
      // A tenant made through one replica works through another at once.
      const tenant = (await call(a.url, 'POST', '/__admin/tenants', { headers: {} })).body;
      const tenantGroup = await api(
        b,
        'GET',
        { name: 'T', user_group_id: 'spread' },
        tenant.api_keys.Testing,
      );
      expect(tenantGroup.body.new_user_group).toBe(true);
      // An invalid request through one replica is listed by every replica's journal.
      await api(c, 'GET', { user_group_id: 'no-name' });
      for (const replica of [a, b, c]) {
        const invalid = (await adminGet(replica, '/__admin/requests?invalid=true')).body;
        expect(invalid.map((e: { status: number }) => e.status)).toEqual([400]);
      }
      // A fault planned through one replica strikes the next call, whichever replica serves it.
      await call(a.url, 'POST', '/__admin/faults', {
        body: { status: 503 },
        headers: { 'content-type': 'application/json' },
      });
      expect((await api(b, 'GET', { name: 'Renamed', user_group_id: 'spread' })).status).toBe(503);
      expect((await api(c, 'GET', { name: 'Renamed', user_group_id: 'spread' })).status).toBe(200);
    });

    /** Clients creating groups in turn over `targets`, until `stop` says so or `limit` requests have been sent. */
    /** A group as the load last had it acknowledged, or null once a change of it had no known outcome. */
    type Known = { token: string; name: string } | null;

    /**
     * The crash tests' load: 8 clients in turn over `targets`, each making a group, then updating it, then
     * rotating its token (so that creates, updates and rotations arrive together and share batches), until `stop`
     * or `limit` requests. Keeps what each acknowledged answer says the group now is; a change whose outcome is
     * unknown (the connection lost, a 503 while the database is down: it may or may not have committed) leaves its
     * group known to exist only. Prints how many of each were acknowledged.
     */
    async function load(
      targets: () => readonly Replica[],
      stop: () => boolean,
      limit: number,
    ): Promise<{ acknowledged: Map<string, Known>; statuses: number[]; refused: Answer[] }> {
      const acknowledged = new Map<string, Known>();
      const statuses: number[] = [];
      const refused: Answer[] = [];
      const counts = { create: 0, update: 0, rotate: 0 };
      let sent = 0;
      const client = async (n: number): Promise<void> => {
        let last: string | undefined;
        for (let i = 0; !stop() && sent < limit; i++) {
          sent++;
          const pool = targets();
          const replica = pool[i % pool.length] as Replica;
          const known = last === undefined ? null : acknowledged.get(last);
          const kind = known == null ? 'create' : i % 3 === 1 ? 'update' : i % 3 === 2 ? 'rotate' : 'create';
          const id = kind === 'create' ? `load-${n}-${i}` : (last as string);
          const [method, body] =
            kind === 'create'
              ? ['GET', { name: id, user_group_id: id }]
              : kind === 'update'
                ? ['PUT', { user_group_id: id, name: `${id} renamed at ${i}` }]
                : ['POST', { current_token: known?.token }];
          try {
            const answer = await api(replica, method, body);
            statuses.push(answer.status);
            if (answer.status === 200) {
              const group = answer.body.user_group as { token: string; name: string };
              acknowledged.set(id, { token: group.token, name: group.name });
              counts[kind]++;
              last = id;
            } else {
              refused.push(answer);
              if (kind !== 'create') acknowledged.set(id, null);
              await sleep(10); // 503 while the database is down: retry a little later
            }
          } catch {
            statuses.push(0); // the connection was lost: the outcome is unknown
            if (kind !== 'create') acknowledged.set(id, null);
            await sleep(20);
          }
        }
      };
      await Promise.all(Array.from({ length: 8 }, (_, n) => client(n)));
      const unknown = statuses.filter((status) => status === 0).length;
      console.info(
        `crash load: ${statuses.length} requests, acknowledged ${counts.create} creates, ${counts.update} updates, ${counts.rotate} rotations; ${statuses.filter((status) => status === 503).length} answered 503, ${unknown} connections lost`,
      );
      return { acknowledged, statuses, refused };
    }

    /** Every acknowledged group is stored, as the last acknowledged answer of it said. */
    async function expectStored(replica: Replica, acknowledged: Map<string, Known>): Promise<void> {
      const groups = (await adminGet(replica, '/__admin/groups')).body as {
        provided_id: string;
        token: string;
        name: string;
      }[];
      const stored = new Map(groups.map((g) => [g.provided_id, g]));
      const lost = [...acknowledged].filter(([id, known]) => {
        const group = stored.get(id);
        return (
          group === undefined ||
          (known !== null && (group.token !== known.token || group.name !== known.name))
        );
      });
      expect(lost, 'acknowledged changes missing or changed').toEqual([]);
      console.info(`crash check: ${acknowledged.size} groups acknowledged, ${lost.length} lost or changed`);
    }

    it('keeps every acknowledged change when a replica is killed with -9 under load, and the other keeps serving', async () => {
      const [a, b] = (await replicas(2)) as [Replica, Replica];
      let killed = false;
      let alive: readonly Replica[] = [a, b];
      const running = load(
        () => alive,
        () => false,
        600,
      );
      while (!killed) {
        await sleep(50);
        const count = (await adminGet(b, '/__admin/tenants')).body[0].groups as number;
        if (count >= 100) {
          a.process.child.kill('SIGKILL');
          killed = true;
        }
      }
      await a.process.exited;
      alive = [b];
      const { acknowledged, statuses } = await running;
      expect(acknowledged.size).toBeGreaterThan(100);
      expect(statuses.filter((s) => s !== 200 && s !== 0)).toEqual([]);
      expect(statuses.slice(-20).every((s) => s === 200)).toBe(true);
      await expectStored(b, acknowledged);
    });

    it('answers 503 while PostgreSQL is stopped immediately, loses nothing acknowledged, and serves again once it is back', async () => {
      const url = await cluster.createDatabase();
      const [a, b] = (await replicas(2, url)) as [Replica, Replica];
      let phase: 'before' | 'down' | 'back' = 'before';
      let done = false;
      const running = load(
        () => [a, b],
        () => done,
        3000,
      );
      while ((await adminGet(b, '/__admin/tenants')).body[0].groups < 50) await sleep(50);
      cluster.stopImmediately();
      phase = 'down';
      await sleep(1500);
      const health = (await adminGet(a, '/__admin/health')).body;
      expect(health).toMatchObject({ status: 'degraded', store: 'postgres', database: 'down' });
      const down = await api(b, 'GET', { name: 'x', user_group_id: 'while-down' });
      expect(storeUnavailableProblems(down)).toEqual([]);
      cluster.start();
      phase = 'back';
      let served = false;
      for (let i = 0; i < 100 && !served; i++) {
        served = (await api(a, 'GET', { name: 'y', user_group_id: `after-${i}` })).status === 200;
        if (!served) await sleep(100);
      }
      expect(phase).toBe('back');
      expect(served).toBe(true);
      await sleep(300);
      done = true;
      const { acknowledged, statuses, refused } = await running;
      expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
      // Every refusal is the error envelope: no answer decided before the store failed goes out with it.
      expect(refused.flatMap(storeUnavailableProblems)).toEqual([]);
      expect(statuses.filter((s) => ![200, 503].includes(s))).toEqual([]);
      expect(statuses.at(-1)).toBe(200);
      expect((await adminGet(b, '/__admin/health')).body).toMatchObject({ status: 'ready', database: 'up' });
      await expectStored(a, acknowledged);
    });
  },
);
