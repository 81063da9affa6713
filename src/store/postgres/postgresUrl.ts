/** The form a PostgreSQL database URL takes, for messages. */
export const postgresUrlForm = 'postgres://user@host:5432/db';

/**
 * Whether a database value is meant for PostgreSQL rather than a file: it starts with `postgres:` or `postgresql:`
 * (any case). Such a value is never taken for a file path, even when it is not a valid URL (`postgres:/host/db`).
 */
export const isPostgresUrl = (db: string): boolean => /^postgres(ql)?:/i.test(db);

/** A PostgreSQL URL as it may be printed: its password, if any, replaced by `***` (the URL need not be valid). */
export const withoutPassword = (db: string): string =>
  db
    .replace(
      /^(\s*(?:[a-z][a-z0-9+.-]*\s*(?::\/*|\/\/)|\/\/)[^/@:]*):.*@/i,
      (_, user: string) => `${user}:***@`,
    )
    .replace(/([?&]password=)[^&#]*/gi, '$1***');

/**
 * What is wrong with a `db` value, as a phrase after it, or undefined: a PostgreSQL URL's problem
 * (`postgresUrlProblem`), or a URL of another scheme (`postgress://`, `pg://`, `postgres ://`), which would
 * otherwise be taken for a file path: a replica with a misspelt URL would keep a state of its own, beside the
 * shared one, in a folder named after the URL.
 */
export function dbProblem(db: string): string | undefined {
  if (isPostgresUrl(db)) return postgresUrlProblem(db);
  if (db.trim() === ':memory:')
    return 'is how SQLite names a database in memory; the mock keeps everything in memory when db is left out (--in-memory on the command line)';
  const scheme = /^\s*([a-z][a-z0-9+.-]*)\s*:\/\//i.exec(db)?.[1];
  if (scheme !== undefined)
    return /^postgres(ql)?$/i.test(scheme)
      ? `has a space before or after "${scheme}:"; a PostgreSQL database is given as ${postgresUrlForm}, nothing before or inside "postgres:"`
      : `is a URL (${scheme}:), not a file path, and not PostgreSQL's: a PostgreSQL database is given as ${postgresUrlForm} (postgres: or postgresql:), a database file as a path`;
  // A PostgreSQL URL missing its colon or a slash (postgresql//…, postgres:/…), or any value with a user and a
  // password before an @ (//user:password@host): a file path has neither.
  if (
    /^\s*(postgres\w*|postgre|pg|pgsql|psql)\s*(:\/?|\/\/)/i.test(db) ||
    /^[^/@]*\/\/[^/@]*:[^/@]*@/.test(db)
  )
    return `looks like a PostgreSQL URL written wrong, not a file path: a PostgreSQL database is given as ${postgresUrlForm} (postgres: or postgresql:, then two slashes)`;
  return undefined;
}

/**
 * What is wrong with a PostgreSQL URL, as a phrase after the URL (`has no host …`), or undefined when it names a
 * host (or a Unix socket folder with `?host=`) and, if it has one, a numeric port.
 */
export function postgresUrlProblem(db: string): string | undefined {
  if (!URL.canParse(db)) {
    const port = portText(db);
    return port !== undefined && (!/^\d+$/.test(port) || Number(port) > 65535)
      ? `has the port "${port}", which is not a number from 1 to 65535`
      : 'is not a valid URL (a character in the user name or password may need percent-encoding)';
  }
  const url = new URL(db);
  if (url.hostname === '' && !url.searchParams.has('host'))
    return db.slice(url.protocol.length).startsWith('//')
      ? 'names no host'
      : `names no host (two slashes follow "${url.protocol}", then the host)`;
  return undefined;
}

/** The text after the host's `:` in the authority of a URL that could not be parsed, if there is one. */
function portText(db: string): string | undefined {
  const authority = /^[a-z]+:\/\/([^/?#]*)/i.exec(db)?.[1];
  if (authority === undefined) return undefined;
  const hostAndPort = authority.slice(authority.lastIndexOf('@') + 1);
  const colon = hostAndPort.startsWith('[') ? hostAndPort.indexOf(']:') + 1 : hostAndPort.lastIndexOf(':');
  return colon <= 0 ? undefined : hostAndPort.slice(colon + 1);
}

/**
 * Where and as whom a valid PostgreSQL URL connects, as the driver reads it: the host (or a Unix socket's folder,
 * `?host=`), the port (`?port=` when the authority has none; 5432 by default) and the user (`?user=` likewise).
 */
export function postgresWhere(db: string): {
  readonly host: string;
  readonly port: string;
  readonly user: string | undefined;
} {
  const url = new URL(db);
  return {
    host: decodeURIComponent(url.hostname) || url.searchParams.get('host') || 'localhost',
    port: url.port || url.searchParams.get('port') || '5432',
    user: decodeURIComponent(url.username) || url.searchParams.get('user') || undefined,
  };
}
