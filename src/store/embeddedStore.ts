import { applyChanges, type Change } from '../domain/changes.js';
import { handle } from '../domain/handlers.js';
import type { IdSource } from '../domain/ids.js';
import {
  defaultTenantId,
  type Environment,
  findByToken,
  type Group,
  groupKey,
  type TenantKeys,
  type World,
} from '../domain/model.js';
import { type GroupSeed, seedGroup } from '../domain/seed.js';
import { tenantRemoved } from '../errors.js';
import { failure, ok, type Result } from '../result.js';
import type { OperationId } from '../spec/operations.js';
import type { Fault, FaultSpec } from './faults.js';
import type { JournalEntry, JournalQuery, JournalRecord } from './journal.js';
import type { OnWarning, Persistence } from './persistence.js';
import { shownGroup } from './shownGroup.js';
import {
  type KeyLookup,
  type ServiceCall,
  type Store,
  StoreWriteError,
  type TenantRow,
  type TenantState,
} from './store.js';

interface Entry {
  readonly changes: readonly Change[];
  readonly undo: readonly Change[];
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

/**
 * The store in this process, in memory or over a database file: the world in memory, kept equal to what is durable,
 * and each tenant's journal and faults in its `TenantState`. A request is served in the tick its body arrived when
 * it needs nothing from the disk (decision 3). `commit` applies changes at once (so the next request sees them) and
 * resolves when they are durable. Commits that arrive while a write is under way are group-committed: one append
 * serves them all. When an append fails, every change not yet durable is rolled back and its commit rejected:
 * memory never drifts from disk.
 */
export class EmbeddedStore implements Store {
  #pending: Entry[] = [];
  #flushing: Promise<void> | undefined;
  #last: Promise<void> = Promise.resolve();

  constructor(
    private readonly persistence: Persistence,
    readonly kind: 'memory' | 'file',
    private readonly ids: IdSource,
    private readonly onWarning: OnWarning,
  ) {}

  get world(): World {
    return this.persistence.world;
  }

  serve(call: ServiceCall, tenant: TenantState, claimFault: boolean): void {
    const operationId = call.operation.operationId as OperationId;
    const fault = claimFault ? tenant.faults.take(operationId) : undefined;
    if (fault !== undefined) {
      call.faulted(fault);
      return;
    }
    const { world } = this;
    const { owner } = call;
    const scope = world.tenants.get(owner.tenant);
    const result =
      scope === undefined
        ? failure(tenantRemoved())
        : handle(operationId, world, { tenant: scope, environment: owner.environment }, call.body, this.ids);
    // A read must not answer with a change that is not durable yet: it waits for the store to settle.
    if (!result.ok || (result.value.changes.length === 0 && this.settledNow)) {
      call.stored(result, false, result.ok ? shownGroup(call, scope) : undefined);
      return;
    }
    // No changes: commit resolves once everything already applied is durable.
    this.commit(result.value.changes).then(
      () => call.stored(result, false),
      (error: Error) => call.storeFailed(error),
    );
  }

  /** Every key is in the key ring already: one it does not know is no key, or a group token sent as one. */
  async lookUpKey(key: string): Promise<KeyLookup> {
    return this.world.tokens.has(key) ? 'group-token' : undefined;
  }

  async rotatedAway(tenant: TenantState, token: string) {
    const retired = tenant.retired.find(token);
    if (retired === undefined) return undefined;
    const key = groupKey(retired.environment, retired.provided_id);
    return { retired, groupExists: this.world.tenants.get(tenant.id)?.groups.has(key) === true };
  }

  /** The tenant's journal in memory is the journal: written once the exchange delivers, so at once. */
  record(_tenant: string, _record: JournalRecord, written: (error?: Error) => void): void {
    written();
  }

  async tenantExists(tenant: string): Promise<boolean> {
    return this.world.tenants.has(tenant);
  }

  async tenants(): Promise<TenantRow[]> {
    return [...this.world.tenants.values()].map((t) => ({ id: t.id, keys: t.keys, groups: t.groups.size }));
  }

  async putTenant(tenant: string, keys: TenantKeys): Promise<boolean> {
    const drawn = [keys.Customer, keys.Testing];
    for (const held of this.world.tenants.values())
      if (
        held.id === tenant ||
        drawn.includes(held.keys?.Customer ?? '') ||
        drawn.includes(held.keys?.Testing ?? '')
      )
        return false;
    await this.commit([{ op: 'putTenant', tenant, keys }]);
    return true;
  }

  async deleteTenant(tenant: string): Promise<boolean> {
    if (tenant === defaultTenantId || !this.world.tenants.has(tenant)) return false;
    await this.commit([{ op: 'deleteTenant', tenant }]);
    return true;
  }

  async seed(tenant: string, seed: GroupSeed): Promise<Result<Group> | undefined> {
    const scope = this.world.tenants.get(tenant);
    if (scope === undefined) return undefined;
    const seeded = seedGroup(this.world, scope, seed, this.ids);
    if (!seeded.ok) return seeded;
    await this.commit(seeded.value.changes);
    return ok(seeded.value.body);
  }

  async groups(tenant: string, environment?: Environment): Promise<Group[]> {
    const groups = [...(this.world.tenants.get(tenant)?.groups.values() ?? [])];
    return groups
      .filter((group) => environment === undefined || group.environment === environment)
      .sort((a, b) => a.team_id - b.team_id);
  }

  async group(tenant: string, environment: Environment, providedId: string): Promise<Group | undefined> {
    return this.world.tenants.get(tenant)?.groups.get(groupKey(environment, providedId));
  }

  async groupByToken(token: string): Promise<{ tenant: string; group: Group } | undefined> {
    const found = findByToken(this.world, token);
    return found === undefined ? undefined : { tenant: found.tenant.id, group: found.group };
  }

  async clearGroups(tenant: string, environment?: Environment): Promise<void> {
    const scope = this.world.tenants.get(tenant);
    const changes: Change[] =
      environment === undefined
        ? [{ op: 'clearTenant', tenant }]
        : [...(scope?.groups ?? [])]
            .filter(([, group]) => group.environment === environment)
            .map(([key]) => ({ op: 'deleteGroup', tenant, key }));
    if (scope !== undefined && scope.groups.size > 0 && changes.length > 0) await this.commit(changes);
  }

  async requests(tenant: TenantState, query: JournalQuery): Promise<JournalEntry[]> {
    return tenant.journal.list(query);
  }

  async clearRequests(tenant: TenantState): Promise<void> {
    tenant.journal.clear();
  }

  async droppedRequests(tenant: TenantState): Promise<number> {
    return tenant.journal.dropped;
  }

  async addFault(tenant: TenantState, spec: FaultSpec): Promise<Fault> {
    return tenant.faults.add(spec);
  }

  async faults(tenant: TenantState): Promise<Fault[]> {
    return tenant.faults.list();
  }

  async clearFaults(tenant: TenantState): Promise<void> {
    tenant.faults.clear();
  }

  async health(): Promise<{ status: 'ready' }> {
    return { status: 'ready' };
  }

  commit(changes: readonly Change[]): Promise<void> {
    if (changes.length === 0) return this.#last;
    const undo = applyChanges(this.world, changes);
    const done = new Promise<void>((resolve, reject) =>
      this.#pending.push({ changes, undo, resolve, reject }),
    );
    done.catch(() => undefined);
    this.#last = done;
    this.#flushing ??= this.#flush();
    return done;
  }

  /** Whether every change applied so far is durable now (nothing queued or being written). */
  get settledNow(): boolean {
    return this.#flushing === undefined && this.#pending.length === 0;
  }

  async #flush(): Promise<void> {
    while (this.#pending.length > 0) {
      const batch = this.#pending;
      this.#pending = [];
      try {
        await this.persistence.append(batch.flatMap((entry) => entry.changes));
      } catch (error) {
        const lost = [...batch, ...this.#pending];
        this.#pending = [];
        for (const entry of [...lost].reverse()) applyChanges(this.world, entry.undo);
        const reason = new StoreWriteError(
          `user-group-mock: the change could not be written (${(error as Error).message}); nothing was kept.`,
        );
        for (const entry of lost) entry.reject(reason);
        this.#last = Promise.resolve();
        continue;
      }
      for (const entry of batch) entry.resolve();
      if (this.#pending.length === 0) {
        await this.persistence.maybeCompact().catch((error: Error) => {
          this.onWarning(
            `user-group-mock: could not start a compaction (${error.message}); will retry later.`,
          );
        });
      }
    }
    this.#flushing = undefined;
  }

  async close(): Promise<void> {
    await this.#flushing;
    await this.persistence.close();
  }
}
