import { describe, expect, it } from 'vitest';
import { parseServeArgs } from '../../../src/cli/args.js';
import { environmentMeant, parseApiKey } from '../../../src/runtime/serveOptions.js';

const expectedForm = 'a PostgreSQL database is given as postgres://user@host:5432/db';

describe('serve --db', () => {
  it.each([
    ['postgres:/127.0.0.1/ugm', 'names no host (two slashes follow "postgres:", then the host)'],
    ['postgres:127.0.0.1/ugm', 'names no host (two slashes follow "postgres:", then the host)'],
    ['PostgreSQL:/db.internal/ugm', 'names no host (two slashes follow "postgresql:", then the host)'],
    ['postgres://', 'names no host'],
    [
      'postgres://postgres@127.0.0.1:notaport/ugm',
      'has the port "notaport", which is not a number from 1 to 65535',
    ],
    [
      'postgres://postgres@127.0.0.1:99999/ugm',
      'has the port "99999", which is not a number from 1 to 65535',
    ],
    ['POSTGRES://postgres@[::1:5432/ugm', 'is not a valid URL'],
  ])('refuses %j, naming --db, the value and the expected form', (db, problem) => {
    expect(() => parseServeArgs(['--db', db], {})).toThrow(`user-group-mock: --db "${db}" ${problem}`);
    expect(() => parseServeArgs(['--db', db], {})).toThrow(expectedForm);
  });

  it('masks the password of a refused URL', () => {
    const refuse = () => parseServeArgs(['--db', 'postgres://mock:s3cr:et@db.internal:port/ugm'], {});
    expect(refuse).toThrow('--db "postgres://mock:***@db.internal:port/ugm" has the port "port"');
    expect(refuse).not.toThrow(/s3cr|et@/);
  });

  it.each([
    [
      'USER_GROUP_MOCK_DB',
      'postgresql:/db.internal/ugm',
      '--db (USER_GROUP_MOCK_DB) "postgresql:/db.internal/ugm"',
    ],
    [
      'DATABASE_URL',
      'postgres://mock:pw@db.internal:x/ugm',
      '--db (DATABASE_URL) "postgres://mock:***@db.internal:x/ugm"',
    ],
  ])('refuses a malformed URL in %s, naming the variable', (variable, db, named) => {
    expect(() => parseServeArgs([], { [variable]: db })).toThrow(`user-group-mock: ${named} `);
  });

  it.each([
    [
      'postgress://mock:s3cret@127.0.0.1:5544/ugm',
      'postgress://mock:***@127.0.0.1:5544/ugm',
      "is a URL (postgress:), not a file path, and not PostgreSQL's",
    ],
    ['pg://127.0.0.1/ugm', 'pg://127.0.0.1/ugm', 'is a URL (pg:), not a file path'],
    [
      'postgres ://mock:s3cret@127.0.0.1/ugm',
      'postgres ://mock:***@127.0.0.1/ugm',
      'has a space before or after "postgres:"',
    ],
  ])(
    "refuses %j, a URL that is not PostgreSQL's, rather than take it for a file path",
    (db, shown, problem) => {
      const refuse = () => parseServeArgs(['--db', db], {});
      expect(refuse).toThrow(`user-group-mock: --db "${shown}" ${problem}`);
      expect(refuse).toThrow(expectedForm);
      expect(refuse).not.toThrow(/s3cret/);
    },
  );

  it.each([
    ['postgresql//mock:s3cret@db.internal/ugm', 'postgresql//mock:***@db.internal/ugm'],
    ['postgress:/mock:s3cret@db.internal/ugm', 'postgress:/mock:***@db.internal/ugm'],
    ['//mock:s3cret@db.internal/ugm', '//mock:***@db.internal/ugm'],
  ])('refuses %j, a PostgreSQL URL written wrong, rather than take it for a file path', (db, shown) => {
    const refuse = () => parseServeArgs(['--db', db], {});
    expect(refuse).toThrow(`user-group-mock: --db "${shown}" looks like a PostgreSQL URL written wrong`);
    expect(refuse).toThrow(expectedForm);
    expect(refuse).not.toThrow(/s3cret/);
  });

  it('masks a password given as a parameter, and tells :memory: how the mock keeps its state in memory', () => {
    const refuse = () => parseServeArgs(['--db', 'postgres://mock@db.internal:port/ugm?password=s3cret'], {});
    expect(refuse).toThrow('--db "postgres://mock@db.internal:port/ugm?password=***" has the port "port"');
    expect(refuse).not.toThrow(/s3cret/);
    expect(() => parseServeArgs(['--db', ':memory:'], {})).toThrow(
      '--db ":memory:" is how SQLite names a database in memory; the mock keeps everything in memory when db is left out (--in-memory on the command line)',
    );
  });

  it.each([
    'postgres://postgres@127.0.0.1:25432/ugm',
    'postgresql://mock:p%40ss@db.internal/ugm',
    'postgres://[::1]:5432/ugm',
    'postgres:///ugm?host=/var/run/postgresql',
  ])('takes %j as the PostgreSQL URL it is', (db) => {
    expect(parseServeArgs(['--db', db], {}).db).toBe(db);
  });

  it.each(['postgres.json', 'data/postgres:old/db.json', './postgres:/db.json'])(
    'takes %j, which does not start with postgres:, as a file path',
    (db) => {
      expect(parseServeArgs(['--db', db], {}).db).toBe(db);
    },
  );

  it('leaves a DATABASE_URL that is not PostgreSQL to other programs', () => {
    expect(parseServeArgs([], { DATABASE_URL: 'mysql://db.internal/ugm' }).db).toBe(
      '.user-group-mock/db.json',
    );
  });
});

describe('serve --api-key', () => {
  it.each([
    ['k:Prod', 'k:Customer'],
    ['k:production', 'k:Customer'],
    ['k:live', 'k:Customer'],
    ['k:customer', 'k:Customer'],
    ['k:Test', 'k:Testing'],
    ['k:staging', 'k:Testing'],
    ['k:dev', 'k:Testing'],
  ])('refuses %j and suggests %j', (given, meant) => {
    expect(() => parseApiKey(given)).toThrow(`did you mean --api-key ${meant}?`);
  });

  it('tells a key given with its Authorization scheme to drop the word', () => {
    expect(() => parseApiKey('Token my-key:Testing')).toThrow(
      'user-group-mock: --api-key "Token my-key:Testing" has spaces: give the key alone, without "Token " (the word a client puts before the key in Authorization): --api-key my-key:Testing; give KEY[:Customer|:Testing], e.g. --api-key my-key:Testing',
    );
    expect(() => parseApiKey('my key')).toThrow(
      'user-group-mock: --api-key "my key" has spaces; give KEY[:Customer|:Testing]',
    );
  });

  it('tells an empty key before ":" that its variable was most likely unset', () => {
    expect(() => parseApiKey(':Testing')).toThrow(
      'user-group-mock: --api-key ":Testing" has an empty key before ":": was the variable that holds it unset (--api-key "$KEY":Testing with no KEY)?; give KEY[:Customer|:Testing], e.g. --api-key my-key:Testing',
    );
    expect(() => parseApiKey(' ')).toThrow('user-group-mock: --api-key " " is empty; give KEY');
  });

  it('guesses no environment from a word that names neither, and says which holds what', () => {
    const refuse = () => parseApiKey('k:blue');
    expect(refuse).toThrow(
      'user-group-mock: --api-key "k:blue": the environment after ":" is Customer (production groups) or Testing (test groups), spelt exactly so, and a key has no ":"',
    );
    expect(refuse).not.toThrow(/did you mean/);
    expect(environmentMeant('blue')).toBeUndefined();
  });

  it('refuses one key given for both environments, naming both flags', () => {
    expect(() => parseServeArgs(['--api-key', 'k:Customer', '--api-key', 'k:Testing'], {})).toThrow(
      'user-group-mock: --api-key "k:Testing": the key "k" is already given ("k:Customer"); a key belongs to one environment',
    );
  });

  it('reads a bare key as Customer and a named environment as given', () => {
    expect(parseApiKey('k')).toEqual({ key: 'k', environment: 'Customer' });
    expect(parseApiKey('k:Testing')).toEqual({ key: 'k', environment: 'Testing' });
  });
});

describe('serve --journal-limit', () => {
  it('reads the flag, else USER_GROUP_MOCK_JOURNAL_LIMIT, else keeps 1000 entries', () => {
    expect(parseServeArgs(['--journal-limit', '5000'], {}).journalLimit).toBe(5000);
    expect(parseServeArgs([], { USER_GROUP_MOCK_JOURNAL_LIMIT: '20' }).journalLimit).toBe(20);
    expect(parseServeArgs([], {}).journalLimit).toBe(1000);
  });

  it.each(['0', 'many', '100001'])('refuses %j, naming the flag and its range', (limit) => {
    expect(() => parseServeArgs(['--journal-limit', limit], {})).toThrow(
      `--journal-limit must be an integer from 1 to 100000, not "${limit}"`,
    );
  });
});
