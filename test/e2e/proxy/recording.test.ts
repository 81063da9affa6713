import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { call, customerKey, jsonHeaders, testingKey, useMocks } from '../../support/http.js';
import { answerJson, useProxies, useTargets } from '../../support/proxy.js';
import { useTempDir } from '../../support/tempDir.js';

const mocks = useMocks();
const proxies = useProxies();
const targets = useTargets();
const tempDir = useTempDir('proxy-record');

describe('a recording of the proxy', () => {
  it('starts a mock that answers as the target did, and a Pact file of the exchanges, without the API key', async () => {
    const path = join(tempDir(), 'staging.json');
    const target = await mocks({
      apiKeys: [
        { key: 'staging-secret-key', environment: 'Customer' },
        { key: 'staging-test-key', environment: 'Testing' },
      ],
    });
    const proxy = await proxies({ target: target.url, record: path, pactProvider: 'staging' });
    const via = (method: string, body: unknown, key = 'staging-secret-key') =>
      call(proxy.url, method, '/api/user', { headers: jsonHeaders(key), body });
    const created = await via('GET', {
      name: 'Customer A',
      user_group_id: 'customer-a',
      mapping: { '40': '213' },
      properties: { plan: 'pro' },
    });
    await via('PUT', {
      name: 'Customer A (EU)',
      user_group_id: 'customer-a',
      mapping: { '40': '213' },
      properties: { plan: 'pro' },
    });
    await via('POST', { current_token: created.body.user_group.token });
    await via('GET', { name: 'Test B', user_group_id: 'test-b' }, 'staging-test-key');
    await via('PUT', { name: 'Test B', user_group_id: 'test-b' }, 'staging-test-key');
    const lastSeen = await via('GET', { name: 'Customer A (EU)', user_group_id: 'customer-a' });
    const testSeen = await via('GET', { name: 'Test B', user_group_id: 'test-b' }, 'staging-test-key');
    await proxy.close();

    const fixtures = await readFile(path, 'utf8');
    const pact = await readFile(path.replace(/\.json$/, '.pact.json'), 'utf8');
    for (const text of [fixtures, pact]) {
      expect(text).not.toContain('staging-secret-key');
      expect(text).not.toContain('staging-test-key');
    }
    const replay = await mocks({ fixtures: path });
    const again = await call(replay.url, 'GET', '/api/user', {
      headers: jsonHeaders(customerKey),
      body: { name: 'Customer A (EU)', user_group_id: 'customer-a' },
    });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(lastSeen.body);
    const test = await call(replay.url, 'GET', '/api/user', {
      headers: jsonHeaders(testingKey),
      body: { name: 'Test B', user_group_id: 'test-b' },
    });
    expect(test.body).toEqual(testSeen.body);
    const updated = await call(replay.url, 'PUT', '/api/user', {
      headers: jsonHeaders(customerKey),
      body: { name: 'Customer A (EU)', user_group_id: 'customer-a' },
    });
    expect(updated.body.user_group.api_environment_tag).toBe('Customer');

    const contract = JSON.parse(pact);
    expect(contract.provider).toEqual({ name: 'staging' });
    expect(contract.consumer).toEqual({ name: 'user-group-client' });
    expect(contract.metadata.pactSpecification.version).toBe('3.0.0');
    expect(contract.interactions).toHaveLength(7);
    expect(contract.interactions[0]).toMatchObject({
      request: {
        method: 'GET',
        path: '/api/user',
        headers: { Authorization: 'Token <API_KEY>' },
        body: { user_group_id: 'customer-a' },
      },
      response: { status: 200, body: created.body },
    });
  });
});

describe('a recording from a wrong provider', () => {
  const token = (n: number): string => n.toString(16).padStart(64, '0');

  it('starts the mock all the same: groups of broken answers left out, clashes resolved for the group seen last, each said on close', async () => {
    const path = join(tempDir(), 'seen.json');
    // Each id answered as a wrong (or restarted) service would: [team_id, token] per API key.
    const answers: Record<string, [number, string]> = {
      'grp-1': [1, token(1)],
      'grp-9039': [1, token(2)], // after a restart, team_id 1 again
      'grp-upper': [3, 'ABCDEF'.padEnd(64, '0')], // flagged: INVALID_FORMAT
      'grp-same-token': [6, token(2)], // the token grp-9039 holds
    };
    const target = await targets((req, res) => {
      const { user_group_id: id } = JSON.parse(req.body.toString());
      const key = req.rawHeaders[req.rawHeaders.findIndex((h) => h.toLowerCase() === 'authorization') + 1];
      const [team_id, answered] =
        id === 'shared'
          ? key === 'Token key-one'
            ? [4, token(4)]
            : [5, token(5)]
          : (answers[id] ?? [9, token(9)]);
      answerJson(res, 200, {
        success: 1,
        new_user_group: true,
        user_group: { team_id, token: answered, name: id, provided_id: id, properties: null },
      });
    });
    const warnings: string[] = [];
    const proxy = await proxies({ target: target.url, record: path, onWarning: (m) => warnings.push(m) });
    const via = (id: string, key = 'key-one') =>
      call(proxy.url, 'GET', '/api/user', {
        headers: jsonHeaders(key),
        body: { name: id, user_group_id: id },
      });
    // A service restarted behind the proxy reuses team ids and tokens: the proxy is reset after each restart, so
    // the reference model does not flag what the recording must resolve.
    await via('grp-1');
    await proxy.reset();
    await via('grp-9039');
    await proxy.reset();
    for (const id of ['grp-upper', 'shared']) await via(id);
    await via('shared', 'key-two');
    await via('grp-same-token');
    expect((await proxy.requests({ invalid: true })).map((e) => e.diagnostics[0]?.code)).toEqual([
      'INVALID_FORMAT',
    ]);
    await proxy.close();

    const replay = await mocks({ fixtures: path });
    expect(
      (await replay.groups())
        .map((g) => [g.provided_id, g.team_id, g.token === token(2) ? 'token(2)' : g.token.length])
        .sort(),
    ).toEqual([
      ['grp-1', 7, 64],
      ['grp-9039', 1, 64],
      ['grp-same-token', 6, 'token(2)'],
      ['shared', 5, 64],
    ]);
    expect((await replay.token(token(5)))?.provided_id).toBe('shared');
    expect((await replay.token(token(1)))?.provided_id).toBe('grp-1');
    expect(warnings.at(-1)).toBe(
      `user-group-mock: ${path} differs from the traffic in 4 place(s), so that serve --fixtures accepts it: "grp-1" is recorded without team_id 1, which "grp-9039", seen later, also has (the service reused it): the mock gives it a fresh one; "grp-9039" is recorded without its token, which "grp-same-token", seen later, also holds (tokens are unique): the mock gives it a new one; "grp-upper" is left out: its answer broke the contract (INVALID_FORMAT at /body/user_group/token); "shared" is recorded once, as the newest answer showed it: two API keys whose environment no answer showed got a group of this id. The answers that broke the contract are in the journal (/__admin/requests?invalid=true).`,
    );
  });

  it('keeps a group as its last answer within the contract showed it, when a later one broke it', async () => {
    const path = join(tempDir(), 'seen.json');
    let answered = 0;
    const target = await targets((_req, res) => {
      answered++;
      answerJson(res, 200, {
        success: 1,
        new_user_group: answered === 1,
        user_group: { team_id: 1, token: token(answered), name: 'A', provided_id: 'a', properties: null },
      });
    });
    const warnings: string[] = [];
    const proxy = await proxies({ target: target.url, record: path, onWarning: (m) => warnings.push(m) });
    for (let i = 0; i < 2; i++)
      await call(proxy.url, 'GET', '/api/user', {
        headers: jsonHeaders(),
        body: { name: 'A', user_group_id: 'a' },
      });
    await proxy.close();

    const replay = await mocks({ fixtures: path });
    expect((await replay.groups()).map((g) => [g.provided_id, g.token])).toEqual([['a', token(1)]]);
    expect(warnings.at(-1)).toContain(
      '"a" is recorded as an earlier exchange showed it: in the newest, its answer broke the contract (PROVIDER_TOKEN_CHANGED at /body/user_group/token)',
    );
  });

  it('leaves out a group whose request the service should have refused, as the mock would refuse it from the file', async () => {
    const path = join(tempDir(), 'seen.json');
    const target = await targets((_req, res) =>
      answerJson(res, 200, {
        success: 1,
        new_user_group: true,
        user_group: { team_id: 1, token: token(1), name: 'M', provided_id: 'm', properties: null },
      }),
    );
    const warnings: string[] = [];
    const proxy = await proxies({ target: target.url, record: path, onWarning: (m) => warnings.push(m) });
    const badMapping = { name: 'M', user_group_id: 'm', mapping: { '40': 213 } };
    await call(proxy.url, 'GET', '/api/user', { headers: jsonHeaders(), body: badMapping });
    expect((await proxy.requests({ invalid: true })).map((e) => e.fault)).toEqual(['client']);
    await proxy.close();

    const replay = await mocks({ fixtures: path });
    expect(await replay.groups()).toEqual([]);
    expect(warnings.at(-1)).toContain(
      '"m" is left out: as seen (the answer, with the mapping of the request), serve --fixtures refuses it (/mapping/40: ',
    );
  });
});

describe('the environment of a recorded group', () => {
  it('is learnt from an update of the same key, and where nothing tells it, recorded as Customer and said on close', async () => {
    const path = join(tempDir(), 'seen.json');
    const target = await mocks({
      apiKeys: [
        { key: 'test-key-1', environment: 'Testing' },
        { key: 'test-key-2', environment: 'Testing' },
      ],
    });
    const warnings: string[] = [];
    const proxy = await proxies({ target: target.url, record: path, onWarning: (m) => warnings.push(m) });
    const via = (method: string, id: string, key: string) =>
      call(proxy.url, method, '/api/user', {
        headers: jsonHeaders(key),
        body: { name: id, user_group_id: id },
      });
    await via('GET', 'only-created', 'test-key-1');
    await via('GET', 'then-updated', 'test-key-2');
    await via('PUT', 'then-updated', 'test-key-2');
    await proxy.close();

    const fixtures = JSON.parse(await readFile(path, 'utf8'));
    expect(
      fixtures.groups.map((g: { user_group_id: string; environment: string }) => [
        g.user_group_id,
        g.environment,
      ]),
    ).toEqual([
      ['only-created', 'Customer'],
      ['then-updated', 'Testing'],
    ]);
    expect(warnings).toEqual([
      `user-group-mock: ${path} records 1 group(s) as Customer without knowing their environment ("only-created"): their API key was seen only in get-or-create, whose answer does not say it. Where they are Testing groups, change "environment" in the file, or let the client update or rotate once through the proxy before it stops.`,
    ]);
  });
});

describe('a recording that cannot be written', () => {
  it.each([
    [
      'a folder that does not exist',
      (dir: string) => join(dir, 'rec', 'seen.json'),
      'rec does not exist',
      'mkdir -p',
    ],
    [
      'a file in place of the folder',
      (dir: string) => {
        writeFileSync(join(dir, 'rec'), '');
        return join(dir, 'rec', 'seen.json');
      },
      'rec is not a folder',
      'give a file path inside a folder',
    ],
    ['a folder as the path', (dir: string) => dir, 'it is a folder', 'give a file inside it'],
  ])(
    'is refused at the start when the path names %s, naming the folder and the fix',
    async (_case, pathIn, why, fix) => {
      const target = await mocks();
      const path = pathIn(tempDir());
      const started = proxies({ target: target.url, record: path });
      await expect(started).rejects.toThrow(
        `user-group-mock: cannot record to ${path}, the record option (--record): `,
      );
      await expect(started).rejects.toThrow(why);
      await expect(started).rejects.toThrow(fix);
    },
  );

  it('warns once when a write fails, keeps what it sees, and writes it all once the folder is back', async () => {
    const target = await mocks();
    const folder = join(tempDir(), 'rec');
    mkdirSync(folder);
    const path = join(folder, 'seen.json');
    const warnings: string[] = [];
    const proxy = await proxies({ target: target.url, record: path, onWarning: (m) => warnings.push(m) });
    const via = (id: string) =>
      call(proxy.url, 'GET', '/api/user', { headers: jsonHeaders(), body: { name: id, user_group_id: id } });
    rmSync(folder, { recursive: true });
    await via('a');
    await vi.waitFor(() => expect(warnings).toHaveLength(1), { timeout: 10_000, interval: 50 });
    await via('b');
    await new Promise((resolve) => setTimeout(resolve, 600)); // room for another failing write, said no more
    mkdirSync(folder);
    await via('c');
    await vi.waitFor(() => expect(warnings).toHaveLength(2), { timeout: 10_000, interval: 50 });

    expect(warnings[0]).toMatch(/^user-group-mock: cannot write the recording .*seen\.json \(ENOENT/);
    expect(warnings[0]).toContain('Check that the folder exists');
    expect(warnings[1]).toBe(
      `user-group-mock: the recording is written to ${path} again, with everything seen meanwhile`,
    );
    const fixtures = JSON.parse(await readFile(path, 'utf8'));
    expect(fixtures.groups.map((g: { user_group_id: string }) => g.user_group_id)).toEqual(['a', 'b', 'c']);
  });

  it('makes close() reject saying what is lost and where when the last write fails', async () => {
    const target = await mocks();
    const folder = join(tempDir(), 'rec');
    mkdirSync(folder);
    const path = join(folder, 'seen.json');
    const proxy = await proxies({ target: target.url, record: path, onWarning: () => undefined });
    rmSync(folder, { recursive: true });
    await call(proxy.url, 'GET', '/api/user', {
      headers: jsonHeaders(),
      body: { name: 'A', user_group_id: 'a' },
    });

    const closed = proxy.close();

    await expect(closed).rejects.toMatchObject({ name: 'RecordingLostError' });
    await expect(closed).rejects.toThrow(
      `user-group-mock: the recording could not be written to ${path} and ${join(folder, 'seen.pact.json')} (ENOENT`,
    );
    await expect(closed).rejects.toThrow(
      'the last 1 exchange(s) seen are lost; nothing was ever written there',
    );
  });
});
