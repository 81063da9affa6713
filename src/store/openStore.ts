import type { IdSource } from '../domain/ids.js';
import { EmbeddedStore } from './embeddedStore.js';
import type { FileSystem } from './fileSystem.js';
import { type OnWarning, openFilePersistence, openMemoryPersistence } from './persistence.js';
import { PostgresStore } from './postgres/postgresStore.js';
import { isPostgresUrl } from './postgres/postgresUrl.js';
import type { Store } from './store.js';

export interface StoreOptions {
  /** Where tokens, ids and team ids come from. */
  readonly ids: IdSource;
  /** How many journal entries and faults each tenant keeps. */
  readonly journalLimit: number;
  /** Connections to PostgreSQL (default 10). */
  readonly poolSize?: number | undefined;
  /** The database file's file-system seam (tests inject disk faults here). */
  readonly files?: FileSystem | undefined;
  /** Compact the change log after this many records. */
  readonly compactAfter?: number | undefined;
  /** Trouble the store recovers from by itself. */
  readonly onWarning?: OnWarning | undefined;
}

/** The store `db` names: none, memory; a PostgreSQL URL, PostgreSQL; anything else, a database file. */
export async function openStore(db: string | undefined, options: StoreOptions): Promise<Store> {
  const { ids, onWarning } = options;
  const warn = onWarning === undefined ? {} : { onWarning };
  if (db === undefined) return new EmbeddedStore(await openMemoryPersistence(), 'memory', ids, onWarning);
  if (isPostgresUrl(db))
    return PostgresStore.open(db, {
      ids,
      capacity: options.journalLimit,
      ...(options.poolSize ? { poolSize: options.poolSize } : {}),
      ...warn,
    });
  const persistence = await openFilePersistence(db, {
    ...(options.files ? { files: options.files } : {}),
    ...(options.compactAfter ? { compactAfter: options.compactAfter } : {}),
    ...warn,
  });
  return new EmbeddedStore(persistence, 'file', ids, onWarning);
}
