import type { IncomingMessage } from 'node:http';
import type { ApiError } from '../errors.js';
import type { RequestHead } from '../http/head.js';
import type { Result } from '../result.js';
import type { Log } from '../runtime/log.js';

/**
 * What the admin API needs of the server it runs in, the mock or the validating proxy: where it logs, its limits and
 * admin key, when it stops, how it answers a control that threw, and, on a server with tenants, whose scope a call
 * acts on.
 */
export interface AdminHost {
  readonly logger: Log;
  /** The largest admin body read, in bytes (the service's body limit). */
  readonly bodyLimit: number;
  /** Required on admin calls when set (always set when listening beyond loopback). */
  readonly adminKey: string | undefined;
  /** Aborted when the server starts closing: long-lived answers (the journal's event stream) end then. */
  readonly stopping: AbortSignal;
  /**
   * The error answered when a control throws: on the mock, its store's failures (out of reach: 503, a change it
   * could not write) and otherwise an internal error, logged.
   */
  failed(error: Error): ApiError;
  /**
   * The tenant an admin call acts on, from its `Authorization` header (the mock's `scopeOf`). None: the server has
   * no tenants, every call acts on the default scope and `Authorization` is not read.
   */
  readonly scopeOf?: (req: IncomingMessage, head: RequestHead) => Promise<Result<string>>;
}
