import type { IdSource } from '../domain/ids.js';
import { Faults } from '../store/faults.js';
import { defaultJournalLimit, Journal } from '../store/journal.js';
import type { Store, TenantMemory } from '../store/store.js';
import type { KeyRing } from './keyRing.js';
import type { Log } from './log.js';
import { PendingDelays } from './pendingDelays.js';
import type { RateLimiter } from './rateLimiter.js';
import { RetiredTokens } from './retiredTokens.js';

/**
 * Per-tenant state in this process: what the client sent (the journal watchers hear), the failures planned for it
 * (with an embedded store), the tokens it rotated away.
 */
export interface TenantRuntime extends TenantMemory {
  readonly retired: RetiredTokens;
  readonly delays: PendingDelays;
}

/** Everything a request handler needs, passed in: no module-level state. */
export interface MockContext {
  readonly store: Store;
  /** The keys known in this process: every key with an embedded store; a cache of the database's with PostgreSQL. */
  readonly keys: KeyRing;
  readonly ids: IdSource;
  readonly logger: Log;
  readonly bodyLimit: number;
  readonly rateLimiter: RateLimiter | undefined;
  /** Required on admin calls when set (always set when listening beyond loopback). */
  readonly adminKey: string | undefined;
  readonly runtimes: Map<string, TenantRuntime>;
  readonly journalLimit?: number;
  /** Aborted when the mock starts closing: long-lived answers (the journal's event stream) end then. */
  readonly stopping: AbortSignal;
}

export function runtimeOf(context: MockContext, tenant: string): TenantRuntime {
  let runtime = context.runtimes.get(tenant);
  if (runtime === undefined) {
    runtime = {
      id: tenant,
      journal: new Journal(context.journalLimit ?? defaultJournalLimit),
      faults: new Faults(),
      retired: new RetiredTokens(),
      delays: new PendingDelays(context.stopping),
    };
    runtime.journal.subscribe(runtime.retired);
    context.runtimes.set(tenant, runtime);
  }
  return runtime;
}

/**
 * Ends what a tenant's scope left running when it is reset or removed: the requests waiting on a planned delay end
 * without an answer and are not journaled, and the rate limit counts of its keys start again.
 */
export function abandonScope(context: MockContext, tenant: string): void {
  context.runtimes.get(tenant)?.delays.cancelAll();
  context.rateLimiter?.forgetTenant(tenant);
}
