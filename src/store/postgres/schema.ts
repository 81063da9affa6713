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
 * The database holds tables (or a sequence) of the names the schema uses, yet no `schema_version` of the mock's
 * (none, or another tool's): another application's, most likely (`--db` pointed at its database). The mock refuses to
 * start and changes nothing.
 */
export class SchemaNotOursError extends Error {
  constructor(database: string, taken: readonly string[]) {
    super(
      `${product}: the database "${database}" already holds ${taken.join(', ')}, which ${taken.length === 1 ? 'is' : 'are'} not user-group-mock's (it has no schema_version table of the mock's): point --db at a database of the mock's own (createdb user_group_mock, then …/user_group_mock), or give it a schema of its own (CREATE SCHEMA ugm, then add ?options=-c%20search_path%3Dugm to --db); nothing was changed`,
    );
  }
}

/** What the schema makes (`migrations`): a database holding one of these without `schema_version` is not the mock's. */
const schemaNames = ['tenants', 'groups', 'journal', 'faults', 'team_ids'];

/**
 * Brings the schema to `target` (the latest by default): takes the advisory lock, so that replicas starting at once
 * migrate one after the other, refuses a database whose tables of the schema's names are another application's,
 * reads `schema_version`, applies each missing migration in a transaction of its own, and refuses a schema newer
 * than it knows.
 */
export async function migrate(client: pg.ClientBase, target = latestVersion): Promise<void> {
  await client.query('SELECT pg_advisory_lock($1)', [migrationLock]);
  try {
    const { rows: held } = await client.query<{
      versioned: boolean | null;
      versionTable: boolean;
      taken: string[];
      database: string;
    }>(
      `SELECT current_database() AS database,
         -- Ours has the columns version and applied_at alone (Flyway's, of the same name, has installed_rank...).
         (SELECT array_agg(column_name::text ORDER BY column_name) FROM information_schema.columns
           WHERE table_schema = current_schema() AND table_name = 'schema_version') = ARRAY['applied_at', 'version']
           AS versioned,
         to_regclass('schema_version') IS NOT NULL AS "versionTable",
         array(SELECT name FROM unnest($1::text[]) AS name WHERE to_regclass(quote_ident(name)) IS NOT NULL) AS taken`,
      [schemaNames],
    );
    const { versioned, versionTable, taken, database } = held[0] as (typeof held)[number];
    // A schema_version of another tool (Flyway's) is another application's too, whatever else the database holds.
    if (versionTable && versioned !== true)
      throw new SchemaNotOursError(database, ['schema_version', ...taken]);
    if (versioned !== true && taken.length > 0) throw new SchemaNotOursError(database, taken);
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
