import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../support/mockProcess.js';
import { type TempDir, tempDir } from '../../support/tempDir.js';

const run = promisify(execFile);
const jestExample = fileURLToPath(new URL('../../../docs/examples/ci/jest.example.cjs', import.meta.url));

/**
 * Runs a command the way a user's shell does: without the `npm_*` variables of the `npm test` around this
 * process (they name this repository as npm's prefix and package), so npm and Node see only the scratch project.
 */
function sh(command: string, args: readonly string[], cwd: string) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  return run(command, args, { cwd, env, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
}

/** Runs a script with `node -e` in the scratch project and parses the JSON line it prints. */
async function node(cwd: string, script: string, ...flags: string[]): Promise<unknown> {
  const { stdout } = await sh(process.execPath, [...flags, '-e', script], cwd);
  return JSON.parse(stdout);
}

/** The package's files as `npm pack` lists them. */
interface Packed {
  readonly filename: string;
  readonly files: readonly { readonly path: string }[];
}

/*
 * A user's CommonJS project (`npm init -y` makes `"type": "commonjs"`) that installs the packed tarball. The pack
 * uses the dist/ that `npm test` has just built (`npm run build` before running this file alone): --ignore-scripts
 * keeps `prepare` from building a second time.
 */
describe('the packed tarball installed in a CommonJS project', { tags: ['slow'] }, () => {
  let dir: TempDir;
  let project: string;
  let packed: Packed;

  beforeAll(async () => {
    if (!existsSync(join(repoRoot, 'dist/cjs/index.cjs'))) {
      throw new Error('user-group-mock: dist/ is not built. Run `npm run build` before this test.');
    }
    dir = await tempDir('commonjs');
    const pack = await sh(
      'npm',
      ['pack', '--ignore-scripts', '--json', '--pack-destination', dir.path],
      repoRoot,
    );
    [packed] = JSON.parse(pack.stdout) as [Packed];
    project = join(dir.path, 'project');
    mkdirSync(join(project, 'test'), { recursive: true });
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'commonjs-project', version: '1.0.0', private: true, type: 'commonjs' }),
    );
    const tarball = join(dir.path, packed.filename);
    await sh('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], project);
  });
  afterAll(() => dir?.remove());

  it('loads with require(), from the CommonJS build, and validates with the shipped document', async () => {
    const result = await node(
      project,
      `
      const m = require('user-group-mock');
      const request = m.validateRequest({ method: 'GET', path: '/api/user', headers: { authorization: 'Token k', 'content-type': 'application/json' }, body: { name: 'A' } });
      console.log(JSON.stringify({
        resolved: require.resolve('user-group-mock').replace(/^.*node_modules/, ''),
        exports: ['createMockServer', 'createUserGroupClient', 'validateRequest', 'validateResponse'].map((name) => typeof m[name]),
        missing: request.diagnostics.map((d) => d.path),
        response: m.validateResponse({ method: 'POST', path: '/api/user', status: 200, body: { success: 1 } }).ok,
      }));
      `,
    );
    expect(result).toEqual({
      resolved: '/user-group-mock/dist/cjs/index.cjs',
      exports: ['function', 'function', 'function', 'function'],
      missing: ['/body/user_group_id'],
      response: false,
    });
  });

  it('finds the checks precompiled at build time from the CommonJS build', async () => {
    const { stderr } = await sh(
      process.execPath,
      ['-e', "require('user-group-mock').createMockServer({ logLevel: 'debug' }).then((m) => m.close())"],
      project,
    );
    expect(stderr).toContain('"requestChecks":"precompiled"');
  });

  it('loads with import, from the ES modules, with the same exports', async () => {
    const result = await node(
      project,
      `
      import * as esm from 'user-group-mock';
      import { createRequire } from 'node:module';
      const cjs = createRequire(process.cwd() + '/')('user-group-mock');
      console.log(JSON.stringify({
        resolved: import.meta.resolve('user-group-mock').replace(/^.*node_modules/, ''),
        same: Object.keys(esm).sort().join() === Object.keys(cjs).sort().join(),
        createMockServer: typeof esm.createMockServer,
      }));
      `,
      '--input-type=module',
    );
    expect(result).toEqual({
      resolved: '/user-group-mock/dist/index.js',
      same: true,
      createMockServer: 'function',
    });
  });

  it('gives TypeScript types to a CommonJS project (module node16)', async () => {
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'node16',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
          typeRoots: [join(repoRoot, 'node_modules/@types')],
        },
        files: ['check.ts'],
      }),
    );
    writeFileSync(
      join(project, 'check.ts'),
      `import { createMockServer, validateRequest, type MockServer } from 'user-group-mock';

export async function start(): Promise<MockServer> {
  const checked = validateRequest({ method: 'GET', path: '/api/user', headers: {}, body: {} });
  // @ts-expect-error validateRequest answers a value with ok, never a string
  const wrong: string = checked.ok;
  void wrong;
  const mock = await createMockServer({ port: 0 });
  // @ts-expect-error the mock's url is a string
  const url: number = mock.url;
  void url;
  return mock;
}
`,
    );
    const tsc = join(repoRoot, 'node_modules/typescript/bin/tsc');
    const checked = await sh(process.execPath, [tsc, '-p', 'tsconfig.json'], project).catch(
      (error: { stdout: string }) => ({ stdout: error.stdout }),
    );
    expect(checked.stdout).toBe('');
  });

  it('passes the Jest example, run by Jest in CommonJS mode', async () => {
    copyFileSync(jestExample, join(project, 'test/user-group.test.js'));
    const jest = join(repoRoot, 'node_modules/jest/bin/jest.js');
    const { stderr } = await sh(
      process.execPath,
      [
        jest,
        '--rootDir',
        project,
        '--ci',
        '--watchman=false',
        '--cacheDirectory',
        join(dir.path, 'jest-cache'),
      ],
      project,
    );
    expect(stderr).toContain('PASS test/user-group.test.js');
    expect(stderr).toMatch(/^Tests: +3 passed, 3 total$/m);
  });

  it('is shown verbatim in docs/install.md', () => {
    const install = readFileSync(join(repoRoot, 'docs/install.md'), 'utf8');
    expect(install).toContain(`\`\`\`js\n${readFileSync(jestExample, 'utf8')}\`\`\``);
  });

  it('ships every file that the README and the shipped docs link to', () => {
    const shipped = new Set(packed.files.map((file) => file.path));
    const documents = ['README.md', ...readdirSync(join(repoRoot, 'docs')).map((name) => `docs/${name}`)];
    const broken: string[] = [];
    for (const document of documents.filter((name) => name.endsWith('.md'))) {
      expect(shipped).toContain(document);
      const text = readFileSync(join(repoRoot, document), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (target === undefined || /^([a-z]+:|#)/.test(target)) continue;
        const path = normalize(join(dirname(document), target.replace(/#.*$/, ''))).replace(/\/$/, '');
        if (!shipped.has(path) && ![...shipped].some((file) => file.startsWith(`${path}/`))) {
          broken.push(`${document}: ${target}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it("ships none of docs/examples: they import from this repository's src/ (the docs show them with the package's name)", () => {
    expect(packed.files.map((file) => file.path).filter((path) => path.startsWith('docs/examples/'))).toEqual(
      [],
    );
    expect(packed.files.map((file) => file.path)).toContain('docs/ci.md');
  });

  it('ships no compiled module whose source is gone (the build starts from an empty dist/)', () => {
    // tsc's output mirrors src/; a declaration without its source is left over from an earlier layout.
    const orphans = packed.files
      .map((file) => file.path)
      .filter((path) => /^dist\/.*\.d\.ts$/.test(path) && !path.startsWith('dist/cjs/'))
      .filter(
        (path) => !existsSync(join(repoRoot, path.replace(/^dist\//, 'src/').replace(/\.d\.ts$/, '.ts'))),
      );
    expect(orphans).toEqual([]);
  });
});

describe('docs/install.md', () => {
  const install = readFileSync(join(repoRoot, 'docs/install.md'), 'utf8');
  const engines = (path: string) =>
    (JSON.parse(readFileSync(join(repoRoot, path), 'utf8')) as { engines: { node: string } }).engines.node;

  it('shows the Jest example verbatim', () => {
    expect(install).toContain(`\`\`\`js\n${readFileSync(jestExample, 'utf8')}\`\`\``);
  });

  it('states the Node versions that the package and its Pact peer declare', () => {
    const own = /^>=(\d+(?:\.\d+)?)$/.exec(engines('package.json'))?.[1];
    const pact = /^>=(\d+)$/.exec(engines('node_modules/@pact-foundation/pact/package.json'))?.[1];
    expect(install).toContain(`**Node ${own} or later**`);
    expect(install).toContain(`**Node ${pact} or later**`);
  });
});
