/** `honoured` and `not-honoured` are verdicts; after the others nothing was verified (`verifyExitCodes`). */
export type VerifyOutcome =
  | 'honoured'
  | 'not-honoured'
  | 'refused'
  | 'unreachable'
  | 'missing-dependency'
  | 'could-not-run'
  | 'interrupted';

export interface ProviderVerification {
  readonly outcome: VerifyOutcome;
  /** The replayed interactions, when Pact ran: how many passed, and the descriptions of those that failed. */
  readonly interactions?: { readonly passed: number; readonly failed: readonly string[] };
  /** Descriptions of interactions that were not verified, and why. */
  readonly skipped: readonly string[];
  /** Why verify could not run or did not finish, in one sentence. */
  readonly reason?: string;
  /** Where the provider states were set up, e.g. `in tenant t-…, removed afterwards`. */
  readonly setUp?: string;
  /** Problems that leave the outcome as it is, e.g. a tenant that could not be removed. */
  readonly warnings: readonly string[];
  /**
   * When interactions failed in a tenant of the run's own on a user-group-mock: what the mock found wrong in
   * the requests it was sent (`invalidRequestsOf`), one line each.
   */
  readonly invalidRequests?: readonly string[];
}
