import type { IdSource } from '../domain/ids.js';
import { EmbeddedStore } from './embeddedStore.js';
import type { FileSystem } from './fileSystem.js';
import { memoryPersistence, type OnWarning, openFilePersistence, processWarning } from './persistence.js';
import { isPostgresUrl } from './postgres/postgresUrl.js';
import type { Store } from './store.js';

/** As `MockServerOptions` has them; `ids` makes tokens, ids and team ids. */
export interface StoreOptions {
  readonly ids: IdSource;
  /** How many journal entries (and, on PostgreSQL, faults) each tenant keeps. */
  readonly journalLimit: number;
  /** PostgreSQL: the connections of this replica (default 10). */
  readonly poolSize?: number | undefined;
  readonly files?: FileSystem | undefined;
  /** A file: compact once the current log holds this many records (and at least as many as there are groups). */
  readonly compactAfter?: number | undefined;
  readonly onWarning?: OnWarning | undefined;
}

/** The options as the stores take them, with where warnings go settled. */
export type OpenedStoreOptions = StoreOptions & { readonly onWarning: OnWarning };

/** The store `db` names: none, memory; a PostgreSQL URL, PostgreSQL; anything else, a database file. */
export async function openStore(db: string | undefined, options: StoreOptions): Promise<Store> {
  const opened = { ...options, onWarning: options.onWarning ?? processWarning };
  const { ids, onWarning } = opened;
  if (db === undefined) return new EmbeddedStore(memoryPersistence(), 'memory', ids, onWarning);
  // Loaded only for PostgreSQL (with its driver and batching): the embedded stores start without them.
  if (isPostgresUrl(db)) return (await import('./postgres/postgresStore.js')).PostgresStore.open(db, opened);
  return new EmbeddedStore(await openFilePersistence(db, opened), 'file', ids, onWarning);
}

export {
  isPostgresUrl,
  postgresUrlForm,
  postgresUrlProblem,
  withoutPassword,
} from './postgres/postgresUrl.js';
// What the command line needs to know of PostgreSQL: how its URL is written, and the start-up failures it names
// with their own exit codes.
export { SchemaTooNewError } from './postgres/schema.js';
export { DatabaseRefusedError, DatabaseUnreachableError } from './postgres/startErrors.js';
