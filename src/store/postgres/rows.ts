import { type Environment, emptyWorld, type Group, groupKey, type World } from '../../domain/model.js';

/**
 * Text as PostgreSQL can hold it: a `text` value cannot contain U+0000, which JSON allows in an id or a name. A NUL
 * is kept as `\0` and a backslash as `\\`, so reading the two escapes back gives the text exactly.
 */
export const toText = (text: string): string => text.replace(/[\\\0]/g, (c) => (c === '\\' ? '\\\\' : '\\0'));

const fromText = (text: string): string =>
  text.replace(/\\([\\0])/g, (_, c: string) => (c === '0' ? '\0' : '\\'));

/** A row of `groups` as the driver returns it (bigint comes back as text). */
export interface GroupRow {
  readonly tenant: string;
  readonly environment: Environment;
  readonly provided_id: string;
  readonly team_id: string | number;
  readonly token: string;
  readonly name: string;
  readonly mapping: string | null;
  readonly properties: string | null;
}

export function groupOf(row: GroupRow): Group {
  return {
    environment: row.environment,
    team_id: Number(row.team_id),
    token: row.token,
    name: fromText(row.name),
    provided_id: fromText(row.provided_id),
    mapping: row.mapping === null ? null : JSON.parse(row.mapping),
    properties: row.properties === null ? null : JSON.parse(row.properties),
  };
}

/** The parameters of an INSERT of a group: $1 … $8 in the column order of `groupColumns`. */
export const groupColumns = 'tenant, environment, provided_id, team_id, token, name, mapping, properties';

export const groupValues = (tenant: string, group: Group): unknown[] => rowValues(groupRow(tenant, group));

/** A row's values in the column order of `groupColumns`. */
export function rowValues(row: GroupRow): unknown[] {
  return [
    row.tenant,
    row.environment,
    row.provided_id,
    row.team_id,
    row.token,
    row.name,
    row.mapping,
    row.properties,
  ];
}

/** A group as its row holds it. */
export function groupRow(tenant: string, group: Group): GroupRow {
  return {
    tenant,
    environment: group.environment,
    provided_id: toText(group.provided_id),
    team_id: group.team_id,
    token: group.token,
    name: toText(group.name),
    mapping: group.mapping === null ? null : JSON.stringify(group.mapping),
    properties: group.properties === null ? null : JSON.stringify(group.properties),
  };
}

/**
 * The part of the world a rule needs, read from the database for one request: the caller's tenant (and any other
 * tenant a read row belongs to) with the groups read, and the next team_id. The rules of src/domain run on it
 * unchanged; the database's constraints then decide whether their changes can be stored.
 */
export function partialWorld(rows: readonly GroupRow[], tenants: readonly string[], nextTeamId = 1): World {
  const world = emptyWorld();
  world.nextTeamId = nextTeamId;
  for (const id of [...tenants, ...rows.map((r) => r.tenant)])
    if (!world.tenants.has(id)) world.tenants.set(id, { id, keys: null, groups: new Map() });
  for (const row of rows) {
    const group = groupOf(row);
    const key = groupKey(group.environment, group.provided_id);
    world.tenants.get(row.tenant)?.groups.set(key, group);
    world.tokens.set(group.token, { tenant: row.tenant, key });
  }
  return world;
}
