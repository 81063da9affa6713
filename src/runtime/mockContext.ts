import type { IdSource } from '../domain/ids.js';
import { Faults } from '../store/faults.js';
import { defaultJournalLimit, Journal } from '../store/journal.js';
import { PendingDelays } from '../store/pendingDelays.js';
import { RetiredTokens } from '../store/retiredTokens.js';
import type { Store, TenantState } from '../store/store.js';
import type { KeyRing } from './keyRing.js';
import type { Log } from './log.js';
import type { RateLimiter } from './rateLimiter.js';

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
  /** Each tenant's state in this process, made when it is first needed (`tenantState`). */
  readonly tenants: Map<string, TenantState>;
  readonly journalLimit?: number;
  /** Aborted when the mock starts closing: long-lived answers (the journal's event stream) end then. */
  readonly stopping: AbortSignal;
}

/** A tenant's state in this process, made the first time it is asked for. */
export function tenantState(context: MockContext, tenant: string): TenantState {
  let state = context.tenants.get(tenant);
  if (state === undefined) {
    state = {
      id: tenant,
      journal: new Journal(context.journalLimit ?? defaultJournalLimit),
      faults: new Faults(),
      retired: new RetiredTokens(),
      delays: new PendingDelays(context.stopping),
    };
    state.journal.subscribe(state.retired);
    context.tenants.set(tenant, state);
  }
  return state;
}

/**
 * Ends what a tenant left running when it is reset or removed: the requests waiting on a planned delay end
 * without an answer and are not journaled, and the rate limit counts of its keys start again.
 */
export function abandonTenant(context: MockContext, tenant: string): void {
  context.tenants.get(tenant)?.delays.cancelAll();
  context.rateLimiter?.forgetTenant(tenant);
}
