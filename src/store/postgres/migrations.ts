/**
 * The schema of the PostgreSQL store, one migration per version (version n is the nth), applied in order at start
 * (`migrate`). A migration is never edited once released: a change of the schema is a new entry at the end.
 */
export const migrations: readonly string[] = [
  // 1: tenants, groups and the team_id sequence
  `
      CREATE TABLE tenants (
        id text COLLATE "C" PRIMARY KEY,
        customer_key text COLLATE "C" UNIQUE,
        testing_key text COLLATE "C" UNIQUE,
        CHECK ((customer_key IS NULL) = (testing_key IS NULL))
      );
      INSERT INTO tenants (id) VALUES ('default');
      CREATE SEQUENCE team_ids;
      CREATE TABLE groups (
        tenant text COLLATE "C" NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
        environment text NOT NULL CHECK (environment IN ('Customer', 'Testing')),
        provided_id text COLLATE "C" NOT NULL,
        team_id bigint NOT NULL,
        token text COLLATE "C" NOT NULL,
        name text NOT NULL,
        mapping text,
        properties text,
        CONSTRAINT groups_id_key PRIMARY KEY (tenant, environment, provided_id),
        CONSTRAINT groups_token_key UNIQUE (token),
        CONSTRAINT groups_team_id_key UNIQUE (team_id)
      );
    `,
  // 2: the journal and the planned faults, shared by every replica
  `
      CREATE TABLE journal (
        id bigserial PRIMARY KEY,
        tenant text COLLATE "C" NOT NULL,
        at timestamptz NOT NULL DEFAULT now(),
        operation_id text,
        invalid boolean NOT NULL,
        record text NOT NULL
      );
      CREATE INDEX journal_tenant_id ON journal (tenant, id);
      CREATE TABLE faults (
        id bigserial PRIMARY KEY,
        tenant text COLLATE "C" NOT NULL,
        operation_id text,
        status integer,
        delay_ms integer NOT NULL,
        action text,
        remaining integer NOT NULL
      );
      CREATE INDEX faults_tenant_id ON faults (tenant, id);
    `,
  // 3: the token each journaled rotation replaced, indexed, so that a key is looked up without a scan
  `
      ALTER TABLE journal ADD COLUMN retired_token text COLLATE "C";
      UPDATE journal SET retired_token = (record::jsonb->>'requestText')::jsonb->>'current_token'
        WHERE operation_id = 'rotateUserGroupToken' AND record::jsonb->>'status' = '200';
      CREATE INDEX journal_retired_token ON journal (retired_token) WHERE retired_token IS NOT NULL;
    `,
];

export const latestVersion = migrations.length;
