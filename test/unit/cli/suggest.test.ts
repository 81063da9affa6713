import { describe, expect, it } from 'vitest';
import { serveFlags } from '../../../src/cli/args.js';
import { run } from '../../../src/cli/run.js';
import { verifyFlags } from '../../../src/cli/verify.js';
import { nearest } from '../../../src/validate/nearest.js';
import { captured } from '../../support/captured.js';

describe('nearest', () => {
  it.each([
    ['prot', Object.keys(serveFlags), 'port'],
    ['in-memroy', Object.keys(serveFlags), 'in-memory'],
    ['apikey', Object.keys(serveFlags), 'api-key'],
    ['log', Object.keys(serveFlags), 'log-level'],
    ['provider-url', Object.keys(verifyFlags), 'provider-base-url'],
    ['serv', ['serve', 'verify'], 'serve'],
    ['verfiy', ['serve', 'verify'], 'verify'],
  ])('takes %j for %j', (given, known, expected) => {
    expect(nearest(given, known)).toBe(expected);
  });

  it.each([
    ['no-such-flag', Object.keys(serveFlags)],
    ['key', Object.keys(verifyFlags)],
    ['url', Object.keys(verifyFlags)],
    ['start', ['serve', 'verify']],
  ])('suggests nothing for %j: nothing is near, or several are', (given, known) => {
    expect(nearest(given, known)).toBeUndefined();
  });
});

describe('an unknown flag', () => {
  it.each([
    [['--prot', '4010'], 'unknown flag --prot (did you mean --port?)'],
    [['serve', '--prot=4010'], 'unknown flag --prot (did you mean --port?)'],
    [['serve', '--port', '0', '--in-memroy'], 'unknown flag --in-memroy (did you mean --in-memory?)'],
    [['serve', '-p', '4010'], 'unknown flag -p (did you mean --port?)'],
    [['serve', '--no-such-flag'], 'unknown flag --no-such-flag'],
  ])('exits 2 naming it and the nearest serve flag: %j', async (argv, message) => {
    const { code, stdout, stderr } = await captured(() => run(argv, {}));
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(`user-group-mock: ${message}. Run "user-group-mock serve --help" for the flags.\n`);
  });

  it.each([
    [
      ['--provider-url', 'http://127.0.0.1:4010'],
      'unknown flag --provider-url (did you mean --provider-base-url?)',
    ],
    [['--api-kye', 'k'], 'unknown flag --api-kye (did you mean --api-key?)'],
  ])('exits 2 naming it and the nearest verify flag: %j', async (argv, message) => {
    const { code, stderr } = await captured(() => run(['verify', ...argv], {}));
    expect(code).toBe(2);
    expect(stderr).toBe(`user-group-mock: ${message}. Run "user-group-mock verify --help" for the flags.\n`);
  });
});
