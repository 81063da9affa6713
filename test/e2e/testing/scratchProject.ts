import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '../../support/mockProcess.js';

const run = promisify(execFile);

/**
 * Runs a command the way a user's shell does: without the `npm_*` and vitest variables of the run around this
 * process, so npm, Node and the runner see only the scratch project.
 */
export function sh(
  command: string,
  args: readonly string[],
  cwd: string,
  extra: Record<string, string> = {},
) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(npm_|VITEST|TEST$|JEST_WORKER_ID)/i.test(name)),
  );
  return run(command, args, {
    cwd,
    env: { ...env, ...extra },
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
    timeout: 300_000,
  });
}

/**
 * A user's project at `path` (`"type": "module"` or `"commonjs"`) with the packed tarball installed, and the test
 * tools it would install itself (vitest, jest, testcontainers) linked from this repository's node_modules.
 */
export async function scratchProject(
  path: string,
  type: 'module' | 'commonjs',
  tarball: string,
): Promise<string> {
  mkdirSync(join(path, 'test'), { recursive: true });
  writeFileSync(
    join(path, 'package.json'),
    JSON.stringify({ name: `${type}-project`, version: '1.0.0', private: true, type }),
  );
  await sh('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], path);
  for (const tool of ['vitest', 'jest', 'testcontainers']) {
    const link = join(path, 'node_modules', tool);
    if (!existsSync(link)) symlinkSync(join(repoRoot, 'node_modules', tool), link);
  }
  return path;
}

/** One test's outcome as the runners' JSON reports give it. */
export interface Outcome {
  readonly title: string;
  readonly status: string;
  readonly failureMessages: readonly string[];
}

/** The outcomes of a runner's JSON report (vitest's and Jest's share this shape). */
export function outcomes(report: string): Outcome[] {
  const { testResults } = JSON.parse(report) as { testResults: { assertionResults: Outcome[] }[] };
  return testResults.flatMap((file) =>
    file.assertionResults.map(({ title, status, failureMessages }) => ({ title, status, failureMessages })),
  );
}

/**
 * A test file of a client under test, written for `runner`: one test keeps the contract, four break it (no key,
 * `Token undefined`, `Bearer`, a misspelt field) and must fail with the fix. With `MOCK=container` the same file
 * runs against the image through user-group-mock/testcontainers.
 */
export function clientTests(runner: 'vitest' | 'jest', onContractBreak?: 'warn'): string {
  const options = `{ ...(process.env.MOCK === 'container' ? { start: () => startUserGroupMockContainer() } : {})${onContractBreak === undefined ? '' : `, onContractBreak: '${onContractBreak}'`} }`;
  const imports =
    runner === 'vitest'
      ? `import { request } from 'undici';
import { expect, it } from 'vitest';
import { createUserGroupClient } from 'user-group-mock';
import { startUserGroupMockContainer } from 'user-group-mock/testcontainers';
import { useUserGroupMock } from 'user-group-mock/vitest';`
      : `const { request } = require('undici');
const { createUserGroupClient } = require('user-group-mock');
const { startUserGroupMockContainer } = require('user-group-mock/testcontainers');
const { useUserGroupMock } = require('user-group-mock/jest');`;
  return `${imports}

const fixture = useUserGroupMock(${options});

async function send(authorization, body) {
  const headers = { 'content-type': 'application/json' };
  if (authorization !== undefined) headers.authorization = authorization;
  const answer = await request(fixture.url + '/api/user', { method: 'GET', headers, body: JSON.stringify(body) });
  await answer.body.dump();
  return answer.statusCode;
}

it('keeps the contract', async () => {
  const client = createUserGroupClient({ baseUrl: fixture.url, apiKey: fixture.tenant.keys.Customer });
  expect((await client.getOrCreate({ name: 'A', user_group_id: 'a' })).new_user_group).toBe(true);
});

it('sends no key', async () => {
  expect(await send(undefined, { name: 'A', user_group_id: 'a' })).toBe(401);
});

it('sends Token undefined', async () => {
  expect(await send('Token ' + process.env.UNSET_KEY, { name: 'A', user_group_id: 'a' })).toBe(401);
});

it('sends a Bearer key', async () => {
  expect(await send('Bearer ' + fixture.tenant.keys.Customer, { name: 'A', user_group_id: 'a' })).toBe(401);
});

it('misspells a field', async () => {
  expect(await send('Token ' + fixture.tenant.keys.Customer, { name: 'A', userGroupId: 'a' })).toBe(400);
});
`;
}

/**
 * Two tests that run at once, each with its own tenant taken through its context: the slower keeps the contract,
 * the quicker breaks it; a third reads `fixture.tenant`, which refuses. Under Jest (which runs no beforeEach for a
 * test.concurrent) the first reads `fixture.tenant` and fails with the reason.
 */
export function concurrentTests(runner: 'vitest' | 'jest'): string {
  const imports =
    runner === 'vitest'
      ? `import { expect, it } from 'vitest';
import { createUserGroupClient } from 'user-group-mock';
import { useUserGroupMock } from 'user-group-mock/vitest';`
      : `const { createUserGroupClient } = require('user-group-mock');
const { useUserGroupMock } = require('user-group-mock/jest');`;
  const tenant = runner === 'vitest' ? 'fixture.tenantOf(context)' : 'fixture.tenant';
  // Jest starts its test.concurrent tests with the file and runs its test()s meanwhile: one that holds a tenant
  // while a test.concurrent reads fixture.tenant late.
  const meanwhile =
    runner === 'jest'
      ? `
test('holds a tenant meanwhile', async () => {
  expect(fixture.tenant.id).toMatch(/^t-/);
  await new Promise((resolve) => setTimeout(resolve, 600));
});

test.concurrent('reads fixture.tenant late, while a test() holds one', async () => {
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(() => fixture.tenant).toThrow('Jest runs no beforeEach or afterEach for a test.concurrent');
});
`
      : '';
  return `${imports}

const fixture = useUserGroupMock();
${meanwhile}
it.concurrent('keeps the contract, slowly', async (context) => {
  const tenant = ${tenant};
  await new Promise((resolve) => setTimeout(resolve, 100));
  const client = createUserGroupClient({ baseUrl: fixture.url, apiKey: tenant.keys.Customer });
  expect((await client.getOrCreate({ name: 'A', user_group_id: 'a' })).new_user_group).toBe(true);
});

it.concurrent('misspells a field, quickly', async (context) => {
  const tenant = ${tenant};
  const answer = await fetch(fixture.url + '/api/user', {
    method: 'PUT',
    headers: { authorization: 'Token ' + tenant.keys.Customer, 'content-type': 'application/json' },
    body: JSON.stringify({ userGroupId: 'b', name: 'B' }),
  });
  expect(answer.status).toBe(400);
});

it.concurrent('reads fixture.tenant', async () => {
  expect(() => fixture.tenant).toThrow(${runner === 'vitest' ? "'run at once (it.concurrent or describe.concurrent)'" : "'Jest runs no beforeEach or afterEach for a test.concurrent'"});
});
`;
}

/** What each test of `clientTests` must end with, and the fix its failure must name. */
export const expected: readonly [string, string, RegExp | undefined][] = [
  ['keeps the contract', 'passed', undefined],
  [
    'sends no key',
    'failed',
    /Authorization header is missing; send "Authorization: Token <API_KEY>".*with no tenant's key/,
  ],
  [
    'sends Token undefined',
    'failed',
    /AUTH_UNKNOWN_KEY, with no tenant's key: check that the client sends the test's key/,
  ],
  [
    'sends a Bearer key',
    'failed',
    /Authorization uses the Token scheme, not Bearer: send "Authorization: Token <API_KEY>"/,
  ],
  ['misspells a field', 'failed', /body has unknown field "userGroupId"; did you mean "user_group_id"\?/],
];
