import { product } from '../errors.js';
import { type MockServerOptions, serveOptions } from '../runtime/serveOptions.js';
import { dbProblem, isPostgresUrl, postgresUrlForm, withoutPassword } from '../store/openStore.js';
import { commandHelp, type Env, flagsOf, readFlags } from './flags.js';

export const serveFlags = flagsOf(serveOptions);

export const serveHelp = (): string =>
  commandHelp('serve [flags]', 'Runs the stateful User Group Service mock.', serveOptions);

export type ServeArgs = MockServerOptions & { readonly help: boolean };

export function parseServeArgs(argv: readonly string[], env: Env): ServeArgs {
  const { options, source } = readFlags('serve', serveOptions, argv, env);
  const { inMemory, db: given, ...rest } = options;
  const { DATABASE_URL: databaseUrl } = env;
  const postgres = databaseUrl !== undefined && isPostgresUrl(databaseUrl) && inMemory !== true;
  const db = source('db') !== undefined ? (given as string) : postgres ? databaseUrl : undefined;
  if (inMemory === true && db !== undefined)
    throw new Error(`${product}: --db and --in-memory exclude each other; choose one`);
  const named = { flag: '', env: ` (${serveFlags.db?.env})`, none: ' (DATABASE_URL)' }[
    source('db') ?? 'none'
  ];
  if (db !== undefined) checkPostgresUrl(db, named);
  return { ...(rest as ServeArgs), ...(inMemory === true ? {} : { db: db ?? serveOptions.db.flagDefault }) };
}

/**
 * A `--db` value that starts with `postgres:` or `postgresql:` is a PostgreSQL URL, never a file path: one that is not
 * a valid URL with a host is refused, and so is a URL of another scheme (`postgress://`), its password masked in the
 * message.
 */
function checkPostgresUrl(db: string, source: string): void {
  const problem = dbProblem(db);
  if (problem === undefined) return;
  throw new Error(
    isPostgresUrl(db)
      ? `${product}: --db${source} "${withoutPassword(db)}" ${problem}; a PostgreSQL database is given as ${postgresUrlForm} (a value starting with postgres: is never a file path)`
      : `${product}: --db${source} "${withoutPassword(db)}" ${problem}`,
  );
}
