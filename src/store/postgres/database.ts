import DataLoader from 'dataloader';
import { LRUCache } from 'lru-cache';
import type pg from 'pg';
import { product } from '../../errors.js';
import { StoreUnavailableError } from '../store.js';
import { postgresUrlForm, postgresUrlProblem, withoutPassword } from './postgresUrl.js';
import { migrate } from './schema.js';
import { DatabaseRefusedError, startFailure } from './startErrors.js';

export type Client = pg.PoolClient;

/** The connections of one replica: the pool, its statements and transactions, out of reach told apart. */
export class Database {
  private constructor(private readonly pool: pg.Pool) {}

  /** Connects, migrates the schema (under an advisory lock), and opens the pool. */
  static async open(
    url: string,
    options: { readonly poolSize?: number | undefined; readonly onWarning: (message: string) => void },
  ): Promise<Database> {
    const problem = postgresUrlProblem(url);
    if (problem !== undefined)
      throw new Error(
        `${product}: the PostgreSQL URL "${withoutPassword(url)}" ${problem}; write it as ${postgresUrlForm}`,
      );
    // Loaded only when PostgreSQL is the store: the file and memory stores start without it.
    const { default: driver } = await import('pg');
    // The schema is checked on a connection of its own, ended whatever happens: one the driver gave up on itself
    // (a password the server asks for and the URL lacks) would otherwise stay open and keep the process alive.
    const first = new driver.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
    // A connection lost while no statement runs is an 'error' event; the next statement fails and says why.
    first.on('error', () => undefined);
    let connected = false;
    try {
      await first.connect();
      connected = true;
      await migrate(first);
    } catch (error) {
      const failed = startFailure(url, error as Error);
      throw !connected || failed instanceof DatabaseRefusedError || isUnavailable(error) ? failed : error;
    } finally {
      await first.end().catch(() => undefined);
    }
    const pool = new driver.Pool({
      connectionString: url,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: 5_000,
      idleTimeoutMillis: 30_000,
    });
    // A pooled, idle connection the server dropped: the pool discards it and makes a new one when next needed.
    // Without a listener, the 'error' event would end the process.
    pool.on('error', (error) =>
      options.onWarning(
        `${product}: a PostgreSQL connection was lost (${error.message}); a new one is made when needed`,
      ),
    );
    return new Database(pool);
  }

  /**
   * One statement outside a transaction; a lost connection becomes `StoreUnavailableError`. Each text is prepared on
   * a connection the first time it runs there (named in the order the texts came), so PostgreSQL parses and plans a
   * request's statements once, not per request. The texts are this directory's constants: the names are few.
   */
  query<R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<pg.QueryResult<R>> {
    const name = this.#names.get(text) ?? `ugm_${this.#names.size}`;
    this.#names.set(text, name);
    return this.pool.query<R>({ name, text, values }).catch(throwClassified);
  }

  readonly #names = new Map<string, string>();

  /** Runs `work` in one transaction: committed when it returns, rolled back when it throws. */
  async transaction<T>(work: (client: Client) => Promise<T>): Promise<T> {
    const client = await this.pool.connect().catch(throwClassified);
    let broken: Error | undefined;
    // A checked-out client is this code's to watch: a connection lost between two statements is an 'error' event
    // (the pool listens only to idle clients), which unheard would end the process. The next statement fails too,
    // and the client is released as broken.
    const lost = (error: Error): void => {
      broken ??= error;
    };
    client.on('error', lost);
    // Until COMMIT is sent, a lost connection rolls the transaction back: nothing of it can have been kept.
    let committing = false;
    try {
      await client.query('BEGIN');
      const result = await work(client);
      committing = true;
      await client.query('COMMIT');
      return result;
    } catch (error) {
      if (error instanceof StoreUnavailableError) {
        broken = error;
        throw error;
      }
      if (!isUnavailable(error)) {
        await client.query('ROLLBACK').catch((e: Error) => (broken = e));
        throw error;
      }
      broken = error as Error;
      throw new StoreUnavailableError(error as Error, committing && mayHaveReached(error as Error));
    } finally {
      client.off('error', lost);
      client.release(broken);
    }
  }

  /**
   * Keeps the newest `keep` rows of a tenant in `journal` or `faults` (each replica trims now and then: the table
   * may hold more for a while); returns how many it deleted. The rows below this replica's last cut for the table and
   * tenant are gone already (ids only grow), so the delete looks only above it: the index entries of the rows deleted
   * before stay until a vacuum, and a delete from the tenant's first id walked them all, each trim more of them. A
   * row of a transaction that committed after a cut with an id below it is left until every 64th trim, which looks
   * from the first id.
   */
  async trim(table: 'journal' | 'faults', tenant: string, keep: number): Promise<number> {
    const key = `${table} ${tenant}`;
    const last = this.#cuts.get(key);
    const sweep = last === undefined || last.trims % 64 === 63;
    const { rows } = await this.query<{ cut: string | null; deleted: number }>(
      `WITH cut AS (SELECT id FROM ${table} WHERE tenant = $1 ORDER BY id DESC OFFSET $2 LIMIT 1),
       gone AS (DELETE FROM ${table} WHERE tenant = $1 AND id >= $3 AND id < (SELECT id FROM cut) RETURNING 1)
       SELECT (SELECT id FROM cut) AS cut, (SELECT count(*) FROM gone)::integer AS deleted`,
      [tenant, keep - 1, sweep ? '0' : last.below],
    );
    const row = rows[0];
    if (row?.cut != null) this.#cuts.set(key, { below: row.cut, trims: (last?.trims ?? 0) + 1 });
    return row?.deleted ?? 0;
  }

  /** Per table and tenant, the id below which this replica's last trim left no row, and how many trims it made. */
  readonly #cuts = new LRUCache<string, { below: string; trims: number }>({ max: 10_000 });

  close(): Promise<void> {
    return this.pool.end();
  }
}

const connectionErrors = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
]);

/**
 * Whether an error from the driver means the database is out of reach rather than a mistake in a statement:
 * a socket error, a connection that ended or timed out, a SQLSTATE of class 08 (connection exception) or 57P
 * (the server shutting down or starting up), or a new connection refused while serving: class 28 (the user or
 * password no longer accepted), 3D000 (the database dropped) or 53300 (too many connections).
 */
function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (connectionErrors.has(code) || /^(?:08|57P|28|3D000$|53300$)/.test(code)))
    return true;
  return /Connection terminated|connection timeout|timeout exceeded|Client has encountered a connection error|not queryable/i.test(
    error.message,
  );
}

/**
 * Whether an error that makes the database unavailable may have come after the statement reached it: the
 * connection ended or was reset under it (the server stopped, crashed or was cut off), or the server ended the
 * session (SQLSTATE 57P01, 57P02, or a connection exception of class 08 other than a refused connection). Then the
 * commit may have happened before the answer was lost. A connection refused, never made, or already broken
 * before the statement was sent kept nothing.
 */
export function mayHaveReached(error: Error): boolean {
  const code = (error as { code?: unknown }).code;
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === '57P01' || code === '57P02') return true;
  if (typeof code === 'string' && code.startsWith('08') && code !== '08001' && code !== '08004') return true;
  return /Connection terminated unexpectedly/i.test(error.message);
}

/** Throws what the driver threw: unavailable as `StoreUnavailableError`, anything else as it is. */
function throwClassified(error: unknown): never {
  throw isUnavailable(error)
    ? new StoreUnavailableError(error as Error, mayHaveReached(error as Error))
    : error;
}

/** Whether the database refused a statement by this constraint (a unique key or a tenant's removal). */
export const violates = (error: unknown, ...constraints: readonly string[]): boolean =>
  constraints.includes((error as { constraint?: string }).constraint as string);

/**
 * A statement for many requests at once, one batch in flight: what is asked while a batch runs goes in the next.
 * Under a flood (of wrong keys, say) the work holds one pool connection and costs a statement per batch, not per
 * request, so the flood cannot take the pool from the other requests. A batch gathers for `gatherMs` after its
 * first item (0: a request alone goes at once). With `comebackMs()` above 0 when a batch would go, a batch holding
 * fewer items than the batch before it answered waits, up to that many ms, for as many: the clients just answered
 * come back into it rather than each into a batch (and a commit) of fewer; a request alone, or as many as the batch
 * before answered, goes at once. `run` answers the items in their order (an `Error` in an item's place fails that
 * item alone); a statement that fails fails each of its items.
 */
export function oneBatchAtATime<T, R>(
  run: (items: readonly T[]) => Promise<readonly (R | Error)[]>,
  gatherMs = 0,
  comebackMs: () => number = () => 0,
): (item: T) => Promise<R> {
  let previous: Promise<unknown> = Promise.resolve();
  /** How many items the batch before held, and how many the batch being gathered holds. */
  let answered = 0;
  let queued = 0;
  /** Sends the batch being gathered while it waits for the clients the batch before answered. */
  let complete: (() => void) | undefined;
  // The gathering runs while the batch before is in flight: a batch goes at its due time or once that one is done.
  const gathered = (dispatch: () => void) => {
    const due = performance.now() + gatherMs;
    void previous.then(() => {
      const wait = due - performance.now();
      const comeback = queued < answered ? comebackMs() : 0;
      if (wait > 0) setTimeout(dispatch, wait);
      else if (comeback <= 0) dispatch();
      else {
        const timer = setTimeout(() => complete?.(), comeback);
        complete = () => {
          complete = undefined;
          clearTimeout(timer);
          dispatch();
        };
      }
    });
  };
  const loader = new DataLoader<T, R>(
    (items) => {
      [answered, queued] = [items.length, 0];
      const batch = run(items);
      previous = batch.catch(() => undefined);
      return batch;
    },
    { cache: false, maxBatchSize: 1_000, batchScheduleFn: gathered },
  );
  return (item) => {
    const answer = loader.load(item);
    if (++queued >= answered) complete?.();
    return answer;
  };
}
