import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { Group, MockServer } from '../../src/index.js';

/** A stored group, keyed by `tenant/environment/provided_id`. */
export type StoredGroups = Map<string, Group & { readonly tenant: string }>;

export const storedKey = (tenant: string, environment: string, providedId: string): string =>
  `${tenant}/${environment}/${providedId}`;

/** The groups a running server holds in memory (default tenant), keyed like `readDatabaseFiles`. */
export async function memoryGroups(server: Pick<MockServer, 'groups'>): Promise<StoredGroups> {
  const groups: StoredGroups = new Map();
  for (const group of await server.groups()) put(groups, 'default', group);
  return groups;
}

/** Where two views of the groups differ, as readable lines (empty when they are equal). */
export function differences(label: string, expected: StoredGroups, actual: StoredGroups): string[] {
  const lines: string[] = [];
  for (const key of new Set([...expected.keys(), ...actual.keys()])) {
    const a = expected.get(key);
    const b = actual.get(key);
    if (!isDeepStrictEqual(a, b)) lines.push(`${label} ${key}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`);
  }
  return lines;
}

export interface DatabaseFiles {
  readonly groups: StoredGroups;
  /** The snapshot's `logGeneration`, or undefined when there is no `db.json` yet. */
  readonly snapshotGeneration: number | undefined;
  /** Generations of the change logs present, stale ones included. */
  readonly logGenerations: readonly number[];
  /** Bytes after the last newline of the newest log: a write a crash cut short. */
  readonly tornTailBytes: number;
  /** Every file name in the directory. */
  readonly files: readonly string[];
}

/**
 * Reads a database the way a test oracle should: independently of `src/store`, from the documented layout (a
 * `db.json` snapshot naming its log generation, then `db.json.log.<n>` files of one JSON change per line).
 * Throws when a file does not parse: that is the "the database parses" check.
 */
export async function readDatabaseFiles(dbPath: string): Promise<DatabaseFiles> {
  const directory = dirname(dbPath);
  const files = (await readdir(directory)).sort();
  const groups: StoredGroups = new Map();
  let snapshotGeneration: number | undefined;
  if (files.includes(basename(dbPath))) {
    const snapshot = JSON.parse(await readFile(dbPath, 'utf8')) as SnapshotShape;
    if (snapshot.format !== 'user-group-mock/1')
      throw new Error(`${dbPath}: unexpected format ${snapshot.format}`);
    snapshotGeneration = snapshot.logGeneration;
    for (const tenant of snapshot.tenants) for (const group of tenant.groups) put(groups, tenant.id, group);
  }
  const prefix = `${basename(dbPath)}.log.`;
  const logGenerations = files
    .filter((f) => f.startsWith(prefix) && /^\d+$/.test(f.slice(prefix.length)))
    .map((f) => Number(f.slice(prefix.length)))
    .sort((a, b) => a - b);
  let tornTailBytes = 0;
  for (const generation of logGenerations.filter((g) => g >= (snapshotGeneration ?? 1))) {
    const text = await readFile(join(directory, `${prefix}${generation}`), 'utf8');
    const lines = text.split('\n');
    tornTailBytes = Buffer.byteLength(lines.pop() ?? '');
    lines.forEach((line, index) => {
      let change: ChangeShape;
      try {
        change = JSON.parse(line) as ChangeShape;
      } catch {
        throw new Error(`${prefix}${generation} line ${index + 1} does not parse: ${line.slice(0, 80)}`);
      }
      apply(groups, change);
    });
  }
  return { groups, snapshotGeneration, logGenerations, tornTailBytes, files };
}

interface SnapshotShape {
  readonly format: string;
  readonly logGeneration: number;
  readonly tenants: ReadonlyArray<{ readonly id: string; readonly groups: readonly Group[] }>;
}

type ChangeShape =
  | { readonly op: 'putGroup'; readonly tenant: string; readonly group: Group }
  | { readonly op: 'deleteGroup'; readonly tenant: string; readonly key: string }
  | { readonly op: 'putTenant' | 'deleteTenant' | 'clearTenant'; readonly tenant: string };

const put = (groups: StoredGroups, tenant: string, group: Group): void => {
  groups.set(storedKey(tenant, group.environment, group.provided_id), { ...group, tenant });
};

function apply(groups: StoredGroups, change: ChangeShape): void {
  switch (change.op) {
    case 'putGroup':
      put(groups, change.tenant, change.group);
      return;
    case 'deleteGroup': {
      const [environment = '', ...id] = change.key.split('\u0000');
      groups.delete(storedKey(change.tenant, environment, id.join('\u0000')));
      return;
    }
    case 'putTenant':
      return;
    case 'deleteTenant':
    case 'clearTenant':
      for (const [key, group] of groups) if (group.tenant === change.tenant) groups.delete(key);
      return;
    default:
      throw new Error(`unknown change ${JSON.stringify(change)}`);
  }
}
