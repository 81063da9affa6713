import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../support/mockProcess.js';
import { type TempDir, tempDir } from '../../support/tempDir.js';

const run = promisify(execFile);
const tsc = join(repoRoot, 'node_modules/typescript/lib/tsc.js');

/**
 * What a user's TypeScript writes against the package: every entry of the public API it is likely to touch, and
 * the types a mistake should fail (`@ts-expect-error` fails the check when the line is accepted).
 */
const consumer = (from: 'import' | 'require') => `
${from === 'import' ? "import { request } from 'node:http';" : "import http = require('node:http');"}
import {
  createMockServer,
  createValidatingProxy,
  createUserGroupClient,
  validateRequest,
  validateResponse,
  type JournalQuery,
  MockControlError,
  type MockServerOptions,
  type Tenant,
} from 'user-group-mock';
import { useUserGroupMock } from 'user-group-mock/jest';

const options: MockServerOptions = { host: '127.0.0.1', port: 0, apiKeys: [{ key: 'k', environment: 'Testing' }] };
export async function main(): Promise<void> {
  const mock = await createMockServer(options);
  const query: JournalQuery = { operationId: 'rotateUserGroupToken', invalid: true, limit: 10 };
  // @ts-expect-error an operation id that is not one of the service's
  const misspelt: JournalQuery = { operationId: 'rotate' };
  const entries = (await mock.requests(query)).concat((await mock.requests(misspelt)));
  const client = createUserGroupClient({ baseUrl: mock.url, apiKey: 'k' });
  const outgoing = ${from === 'import' ? 'request' : 'http.request'}(mock.url).getHeaders();
  const checked = validateRequest({ method: 'GET', path: '/api/user', headers: outgoing, body: {} });
  const answered = validateResponse({ method: 'GET', path: '/api/user', status: 200, body: {} });
  const tenant: Tenant = await mock.createTenant();
  const fault = await tenant.injectFault({ operationId: 'updateUserGroup', status: 503 });
  const remaining: number = fault.remaining;
  // @ts-expect-error a control resolves to its value (0.3), not to a result to check
  const stillResult: boolean = (await tenant.seedGroup({ environment: 'Customer', user_group_id: 'a', name: 'A' })).ok;
  // @ts-expect-error the tenant's controls take no tenant id
  await tenant.requests({ invalid: true }, tenant.id);
  await mock.reset().catch((error: unknown) => {
    if (error instanceof MockControlError) console.log(error.code, error.control, error.details.length);
  });
  const fixtureKey = () => useUserGroupMock({ onContractBreak: 'warn' }).tenant.keys.Customer;
  // @ts-expect-error onContractBreak is 'fail', 'warn' or 'off'
  useUserGroupMock({ onContractBreak: 'error' });
  console.log(remaining, stillResult, fixtureKey);
  const proxy = await createValidatingProxy({ target: mock.url });
  // The proxy's journal is awaited, as the mock's is.
  const verdicts: number = (await proxy.requests({ invalid: true })).length;
  console.log(entries.length, client, checked.ok, answered.ok, (await proxy.health()).status, verdicts);
  await proxy.close();
  await mock.close();
}
`;

/** The module settings a consumer's project may have; each must type-check the package without skipLibCheck. */
const projects = {
  nodenext: { module: 'nodenext', moduleResolution: 'nodenext' },
  bundler: { module: 'esnext', moduleResolution: 'bundler' },
  // The classic CommonJS project: `types` of package.json (the .d.cts), and no esModuleInterop.
  commonjs: { module: 'commonjs', moduleResolution: 'node10', esModuleInterop: false },
} as const;

/*
 * A consumer whose node_modules holds only what installing the package brings: a copy of its declarations (a copy,
 * not a link, so that nothing resolves through this repository's node_modules and its devDependencies), its runtime
 * dependencies, and @types/node, which a Node project has. Needs `npm run build` first.
 */
describe('the published declarations in a project that has only the package and its dependencies', {
  tags: ['slow'],
}, () => {
  let dir: TempDir;

  beforeAll(async () => {
    if (!existsSync(join(repoRoot, 'dist/cjs/index.d.cts')))
      throw new Error('user-group-mock: dist/ is not built. Run `npm run build` before this test.');
    dir = await tempDir('types');
    const modules = join(dir.path, 'node_modules');
    const installed = join(modules, 'user-group-mock');
    mkdirSync(join(modules, '@types'), { recursive: true });
    cpSync(join(repoRoot, 'dist'), join(installed, 'dist'), {
      recursive: true,
      filter: (source) => !/\.(js|cjs|map|json|html|css)$/.test(source),
    });
    cpSync(join(repoRoot, 'package.json'), join(installed, 'package.json'));
    const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    for (const name of [...Object.keys(manifest.dependencies), '@types/node'])
      symlinkSync(join(repoRoot, 'node_modules', name), join(modules, name), 'dir');
    writeFileSync(join(dir.path, 'consumer.ts'), consumer('import'));
    writeFileSync(join(dir.path, 'consumer.cts'), consumer('require'));
  });

  afterAll(() => dir?.remove());

  it.each(Object.entries(projects))('type-checks a strict %s project', async (name, settings) => {
    const files = name === 'nodenext' ? ['consumer.ts', 'consumer.cts'] : ['consumer.ts'];
    const tsconfig = `tsconfig.${name}.json`;
    writeFileSync(
      join(dir.path, tsconfig),
      JSON.stringify({
        compilerOptions: {
          ...settings,
          target: 'es2022',
          strict: true,
          skipLibCheck: false,
          noEmit: true,
          types: ['node'],
        },
        files,
      }),
    );
    writeFileSync(
      join(dir.path, 'package.json'),
      JSON.stringify({ private: true, type: name === 'commonjs' ? 'commonjs' : 'module' }),
    );
    const checked = await run(process.execPath, [tsc, '-p', tsconfig], { cwd: dir.path }).then(
      () => '',
      (error: { stdout: string }) => error.stdout,
    );
    expect(checked).toBe('');
  });
});
