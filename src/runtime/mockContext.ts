import type { IdSource } from '../domain/ids.js';
import type { Health } from '../spec/types.js';
import type { Store } from '../store/store.js';
import { Faults } from './faults.js';
import { Journal } from './journal.js';
import type { KeyRing } from './keyRing.js';
import type { Log } from './log.js';
import type { RateLimiter } from './rateLimiter.js';

/** Memory-only, per-tenant state: what the client sent, and the failures planned for it. */
export interface TenantRuntime {
  readonly journal: Journal;
  readonly faults: Faults;
}

/** Everything a request handler needs, passed in: no module-level state. */
export interface MockContext {
  readonly store: Store;
  /** Where the store keeps the groups: a database file (`--db`) or memory. */
  readonly storeKind: Health['store'];
  readonly keys: KeyRing;
  readonly ids: IdSource;
  readonly logger: Log;
  readonly bodyLimit: number;
  readonly rateLimiter: RateLimiter | undefined;
  /** Required on admin calls when set (always set when listening beyond loopback). */
  readonly adminKey: string | undefined;
  readonly runtimes: Map<string, TenantRuntime>;
}

export function runtimeOf(context: MockContext, tenant: string): TenantRuntime {
  let runtime = context.runtimes.get(tenant);
  if (runtime === undefined) {
    runtime = { journal: new Journal(), faults: new Faults() };
    context.runtimes.set(tenant, runtime);
  }
  return runtime;
}
