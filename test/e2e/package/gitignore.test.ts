import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../support/builtCli.js';

const pkg = JSON.parse(readFileSync(`${packageRoot}package.json`, 'utf8')) as {
  name: string;
  version: string;
};
const inGit = spawnSync('git', ['rev-parse', '--is-inside-work-tree'], { cwd: packageRoot }).status === 0;

describe.runIf(inGit)('a clone', () => {
  it('ignores the tarball npm pack leaves in it', () => {
    const tarball = `${pkg.name}-${pkg.version}.tgz`;
    const checked = spawnSync('git', ['check-ignore', '--no-index', tarball], {
      cwd: packageRoot,
      encoding: 'utf8',
    });
    expect(checked.stdout.trim()).toBe(tarball);
  });
});
