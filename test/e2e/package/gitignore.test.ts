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

  it("ignores the data/ folder the README's container steps make, and what the mock writes in it", () => {
    const readme = readFileSync(`${packageRoot}README.md`, 'utf8');
    expect(readme).toContain('mkdir -p data && podman run');
    const checked = spawnSync('git', ['check-ignore', '--no-index', 'data/db.json', 'data/db.json.log.1'], {
      cwd: packageRoot,
      encoding: 'utf8',
    });
    expect(checked.stdout.trim().split('\n')).toEqual(['data/db.json', 'data/db.json.log.1']);
  });
});
