import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtImage, dockerApi, engine } from '../../support/container.js';
import { repoRoot } from '../../support/mockProcess.js';
import { type TempDir, tempDir } from '../../support/tempDir.js';
import {
  clientTests,
  concurrentTests,
  expected,
  type Outcome,
  outcomes,
  scratchProject,
  sh,
} from './scratchProject.js';

const vitest = join(repoRoot, 'node_modules/vitest/vitest.mjs');
const jest = join(repoRoot, 'node_modules/jest/bin/jest.js');

/** Runs a runner in the project with a JSON report; resolves with its outcomes (failed tests are expected). */
async function runTests(
  project: string,
  runner: 'vitest' | 'jest',
  env: Record<string, string> = {},
): Promise<{ results: Outcome[]; output: string }> {
  const report = join(project, `${runner}-report.json`);
  rmSync(report, { force: true });
  const args =
    runner === 'vitest'
      ? [
          vitest,
          'run',
          '--root',
          project,
          '--reporter=json',
          '--reporter=default',
          `--outputFile.json=${report}`,
        ]
      : [jest, '--rootDir', project, '--ci', '--watchman=false', '--json', `--outputFile=${report}`];
  const ran = await sh(process.execPath, args, project, env).catch(
    (error: { stdout: string; stderr: string }) => error,
  );
  if (!existsSync(report)) throw new Error(`${runner} wrote no report:\n${ran.stdout}\n${ran.stderr}`);
  return { results: outcomes(readFileSync(report, 'utf8')), output: `${ran.stdout}\n${ran.stderr}` };
}

/** Checks that each test ended as `expected` says, and that each failure names its fix. */
function expectOutcomes(results: readonly Outcome[]) {
  expect(results.map((r) => [r.title, r.status])).toEqual(expected.map(([title, status]) => [title, status]));
  for (const [title, , fix] of expected)
    if (fix !== undefined)
      expect(results.find((r) => r.title === title)?.failureMessages.join('\n')).toMatch(fix);
}

/*
 * Projects of a user that installed the packed tarball (the dist/ of `npm run build`), in which the helpers of
 * user-group-mock/vitest (an ES module project) and user-group-mock/jest (a CommonJS one) run a client's tests.
 */
describe('useUserGroupMock() from the packed tarball', { tags: ['slow'] }, () => {
  let dir: TempDir;
  let esm: string;
  let cjs: string;

  beforeAll(async () => {
    if (!existsSync(join(repoRoot, 'dist/cjs/testing/jest.cjs')))
      throw new Error('user-group-mock: dist/ is not built. Run `npm run build` before this test.');
    dir = await tempDir('helpers');
    const pack = await sh(
      'npm',
      ['pack', '--ignore-scripts', '--json', '--pack-destination', dir.path],
      repoRoot,
    );
    const [{ filename }] = JSON.parse(pack.stdout) as [{ filename: string }];
    esm = await scratchProject(join(dir.path, 'esm'), 'module', join(dir.path, filename));
    cjs = await scratchProject(join(dir.path, 'cjs'), 'commonjs', join(dir.path, filename));
  }, 300_000);
  afterAll(() => dir?.remove());

  it('fails each vitest test whose client broke the contract, naming the fix, and passes the one that kept it', async () => {
    writeFileSync(join(esm, 'test/client.test.ts'), clientTests('vitest'));
    expectOutcomes((await runTests(esm, 'vitest')).results);
  }, 120_000);

  it('fails each Jest test (CommonJS) whose client broke the contract, naming the fix, and passes the one that kept it', async () => {
    writeFileSync(join(cjs, 'test/client.test.js'), clientTests('jest'));
    expectOutcomes((await runTests(cjs, 'jest')).results);
  }, 120_000);

  it("only warns with onContractBreak: 'warn'", async () => {
    writeFileSync(join(esm, 'test/client.test.ts'), clientTests('vitest', 'warn'));
    const { results, output } = await runTests(esm, 'vitest');
    expect(results.map((r) => r.status)).toEqual(expected.map(() => 'passed'));
    expect(output).toMatch(expected[4]?.[2] as RegExp);
  }, 120_000);

  it('gives each vitest it.concurrent test its own tenant through its context, failing only the one that broke the contract; under Jest, test.concurrent gets no tenant and says why', async () => {
    const file = (name: string, text: string, project: string) => {
      rmSync(join(project, 'test', name === 'concurrent.test.ts' ? 'client.test.ts' : 'client.test.js'), {
        force: true,
      });
      writeFileSync(join(project, 'test', name), text);
      return join(project, 'test', name);
    };
    const written = [
      file('concurrent.test.ts', concurrentTests('vitest'), esm),
      file('concurrent.test.js', concurrentTests('jest'), cjs),
    ];
    try {
      const vitestRun = (await runTests(esm, 'vitest')).results;
      expect(vitestRun.map((r) => [r.title, r.status])).toEqual([
        ['keeps the contract, slowly', 'passed'],
        ['misspells a field, quickly', 'failed'],
        ['reads fixture.tenant', 'passed'],
      ]);
      expect(vitestRun[1]?.failureMessages.join('\n')).toMatch(
        /body has unknown field "userGroupId"; did you mean "user_group_id"\?/,
      );
      const jestRun = (await runTests(cjs, 'jest')).results;
      // The two tests that read fixture.tenant fail with the reason; those that expect the refusal pass, the late
      // one too, though a test() held a tenant when it asked.
      expect(jestRun.map((r) => [r.title, r.status])).toEqual([
        ['holds a tenant meanwhile', 'passed'],
        ['reads fixture.tenant late, while a test() holds one', 'passed'],
        ['keeps the contract, slowly', 'failed'],
        ['misspells a field, quickly', 'failed'],
        ['reads fixture.tenant', 'passed'],
      ]);
      expect(jestRun[2]?.failureMessages.join('\n')).toContain(
        'no test of this file holds a tenant now. Jest runs no beforeEach or afterEach for a test.concurrent, so such a test gets no tenant and is not checked: write it with test()',
      );
    } finally {
      for (const path of written) rmSync(path, { force: true });
    }
  }, 120_000);

  it.skipIf(engine === undefined)(
    'gives the same outcomes to the same files run against the image, through user-group-mock/testcontainers',
    async () => {
      await builtImage();
      const api = await dockerApi();
      try {
        const env = { MOCK: 'container', ...api.env };
        writeFileSync(join(esm, 'test/client.test.ts'), clientTests('vitest'));
        expectOutcomes((await runTests(esm, 'vitest', env)).results);
        writeFileSync(join(cjs, 'test/client.test.js'), clientTests('jest'));
        expectOutcomes((await runTests(cjs, 'jest', env)).results);
      } finally {
        api.stop();
      }
    },
    1_800_000,
  );
});
