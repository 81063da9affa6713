import { EmbeddedStore } from './embeddedStore.js';
import { memoryPersistence, openFilePersistence, processWarning } from './persistence.js';
import { isPostgresUrl } from './postgres/postgresUrl.js';
import type { Store } from './store.js';
import type { StoreOptions } from './storeOptions.js';

export type { OpenedStoreOptions, StoreOptions } from './storeOptions.js';

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
  dbProblem,
  isPostgresUrl,
  postgresUrlForm,
  postgresUrlProblem,
  postgresWhere,
  withoutPassword,
} from './postgres/postgresUrl.js';
// What the command line needs to know of PostgreSQL: how its URL is written, and the start-up failures it names
// with their own exit codes.
export { SchemaNotOursError, SchemaTooNewError } from './postgres/schema.js';
export { DatabaseRefusedError, DatabaseUnreachableError } from './postgres/startErrors.js';
