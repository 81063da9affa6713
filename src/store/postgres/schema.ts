import type pg from 'pg';
import { product } from '../../errors.js';
import { latestVersion, migrations } from './migrations.js';

/** The advisory lock every replica takes while it checks and migrates the schema (an arbitrary constant). */
const migrationLock = 7_346_221_017;

/** The database holds a schema this version of the mock does not know: it refuses to start rather than guess. */
export class SchemaTooNewError extends Error {
  constructor(found: number, known: number) {
    super(
      `${product}: the database's schema is version ${found}, newer than the ${known} this version of user-group-mock knows; upgrade user-group-mock (every replica) or point --db at another database`,
    );
  }
}

/**
 * Brings the schema to `target` (the latest by default): takes the advisory lock, so that replicas starting at once
 * migrate one after the other, reads `schema_version`, applies each missing migration in a transaction of its own,
 * and refuses a schema newer than it knows.
 */
export async function migrate(client: pg.ClientBase, target = latestVersion): Promise<void> {
  await client.query('SELECT pg_advisory_lock($1)', [migrationLock]);
  try {
    await client.query(
      'CREATE TABLE IF NOT EXISTS schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const { rows } = await client.query<{ version: number | null }>(
      'SELECT max(version) AS version FROM schema_version',
    );
    const found = rows[0]?.version ?? 0;
    if (found > latestVersion) throw new SchemaTooNewError(found, latestVersion);
    // Each migration is one query of several statements, which PostgreSQL runs as one transaction: the schema and
    // its version row change together or not at all.
    for (let version = found + 1; version <= target; version++)
      await client.query(
        `${migrations[version - 1]};\nINSERT INTO schema_version (version) VALUES (${version})`,
      );
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [migrationLock]);
  }
}
