import { product } from '../../errors.js';
import { postgresWhere } from './postgresUrl.js';

/** PostgreSQL cannot be reached at start: the CLI prints this and exits with its own code. */
export class DatabaseUnreachableError extends Error {
  constructor(where: string, cause: Error) {
    super(`${product}: cannot reach PostgreSQL at ${where} (${cause.message}); start it or check --db`, {
      cause,
    });
  }
}

/**
 * PostgreSQL was reached but refused the URL's database, user or password (or the user may not create the
 * schema): the CLI prints this, with what the server said and what to do, and exits as for an unreachable one.
 */
export class DatabaseRefusedError extends Error {}

/** The error to report for a failed start: refused (with the fix) when PostgreSQL said why, else unreachable. */
export function startFailure(url: string, error: Error): Error {
  const target = targetOf(url);
  const refusal = refusalAdvice(target, error);
  return refusal === undefined
    ? new DatabaseUnreachableError(target.where, error)
    : new DatabaseRefusedError(
        `${product}: PostgreSQL at ${target.where} refused the connection: ${error.message}. ${refusal}`,
        { cause: error },
      );
}

/** What to do about a refusal, by its SQLSTATE (or the driver's own complaint); undefined when it is not one. */
function refusalAdvice(target: Target, error: Error): string | undefined {
  const code = (error as { code?: unknown }).code;
  const user = target.user ?? 'USER';
  const connect = `-h ${shell(target.host)} -p ${target.port}${target.user === undefined ? '' : ` -U ${shell(target.user)}`}`;
  if (code === '3D000') {
    const named = /database "(.*)" does not exist/.exec(error.message)?.[1] ?? target.database ?? 'DB';
    return `Create it (createdb ${connect} ${shell(named)}) or correct the database name in --db`;
  }
  if (code === '28P01' || /password must be a string|password authentication failed/i.test(error.message))
    return `Check the user and password in --db (postgres://${user}:PASSWORD@${target.host}:${target.port}/${target.database ?? 'DB'}; percent-encode special characters)`;
  if (code === '28000' && /role ".*" does not exist/.test(error.message))
    return `Check the user in --db (postgres://USER@${target.host}:${target.port}/…), or create the role (createuser -h ${shell(target.host)} -p ${target.port} -U postgres ${shell(user)})`;
  if (typeof code === 'string' && code.startsWith('28'))
    return `Check the user in --db, and that the server's pg_hba.conf lets it connect from this host`;
  if (code === '42501')
    return `The user must be able to create tables in the database: GRANT CREATE ON SCHEMA public TO ${shell(user)}, or use the database's owner in --db`;
  return undefined;
}

/** Who connects, as the URL says: for the commands a message proposes. */
type Target = ReturnType<typeof targetOf>;

function targetOf(url: string) {
  const parsed = new URL(url);
  const { host, port, user } = postgresWhere(url);
  const database = decodeURIComponent(parsed.pathname.slice(1));
  return {
    where: `${host}:${port}`,
    host,
    port,
    user,
    database: database === '' ? undefined : database,
  };
}

/** A word as a shell reads it back: quoted when it holds anything but letters, digits, `_`, `.`, `-` and `/`. */
const shell = (word: string): string =>
  /^[\w./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
