import type { IdSource } from '../domain/ids.js';
import type { FileSystem } from './fileSystem.js';

/** Where the store reports trouble it recovers from by itself, such as a failed compaction. */
export type OnWarning = (message: string) => void;

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
