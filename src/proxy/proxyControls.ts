import { packageVersion } from '../admin/controls.js';
import type { Controls } from '../admin/controlsApi.js';
import { checkJournalQuery } from '../admin/journalQuery.js';
import { reach } from '../contract/reach.js';
import type { ReferenceModel } from '../model/referenceModel.js';
import type { Health } from '../spec/types.js';
import { type Journal, type JournalQuery, watcherListener } from '../store/journal.js';

/**
 * The controls a validating proxy has: those of its journal, a reset and its health. It keeps no groups, tokens,
 * tenants or faults (the service behind it does), so the admin API serves no route of theirs here.
 */
export type ProxyControls = Pick<
  Controls,
  'requests' | 'clearRequests' | 'droppedRequests' | 'watchRequests' | 'reset' | 'health'
>;

/** What the proxy's controls act on: its journal, its reference model, and the target its health reaches for. */
export interface ProxyState {
  readonly journal: Journal;
  readonly model: ReferenceModel;
  /** The target's base URL. */
  readonly target: URL;
  /** How long the proxy waits for the target, in milliseconds. */
  readonly timeout: number;
}

/**
 * The proxy's controls over its one journal: a tenant id given to them is not read (the proxy has no tenants, its
 * admin API acts on the default scope).
 */
export function proxyControls({ journal, model, target, timeout }: ProxyState): ProxyControls {
  return {
    async requests(query: JournalQuery = {}) {
      return journal.list(checkJournalQuery(query));
    },

    async clearRequests() {
      journal.clear();
    },

    async droppedRequests() {
      return journal.dropped;
    },

    async watchRequests(watcher) {
      return journal.subscribe(watcherListener(watcher));
    },

    /** Empties the journal and forgets what the reference model has seen (known groups, rotated tokens). */
    async reset() {
      journal.clear();
      model.clear();
    },

    /** `mode: "proxy"`, the target's origin, and whether it accepts connections now. */
    async health(): Promise<Health> {
      // A TCP connect within a second: learnt cheaply, without sending the service a request.
      const { ok: reachable } = await reach(target.href, Math.min(1000, timeout));
      return {
        status: reachable ? 'ready' : 'degraded',
        version: packageVersion(),
        mode: 'proxy',
        target: target.origin,
        target_reachable: reachable,
      };
    },
  };
}
