import { type AdminAnswer, adminRequest, reasonOf, routeMissing } from './adminRequest.js';
import { contractStates } from './publishedContract.js';

/** A state handler as the Pact Verifier calls it; what it resolves with is injected into the request. */
export type StateHandler = (params?: unknown) => Promise<Record<string, string | number>>;

/** A provider state that could not be set up: `detail` is the start of the answer, or why there was none. */
export class StateSetupError extends Error {
  override readonly name = 'StateSetupError';
  constructor(
    message: string,
    readonly state: string,
    readonly url: string,
    readonly status: number | undefined,
    readonly detail: string,
    readonly method: 'POST' | 'DELETE' = 'POST',
  ) {
    super(message);
  }
}

/**
 * One call that sets `state` up, and its answer when it is a success (or one `accepted` takes); else a
 * `StateSetupError` whose message `says` what happened (with the status, or none when there was no answer).
 */
export async function stateSetupCall(
  call: { readonly state: string; readonly method: 'POST' | 'DELETE'; readonly url: string },
  headers: Readonly<Record<string, string>>,
  body: unknown,
  says: (status: number | undefined, detail: string) => string,
  accepted: (status: number) => boolean = () => false,
): Promise<AdminAnswer> {
  const { state, method, url } = call;
  const answer = await adminRequest(method, url, headers, body);
  const { status } = answer;
  if (status !== undefined && ((status >= 200 && status < 300) || accepted(status))) return answer;
  const detail = status === undefined ? answer.text : reasonOf(answer);
  throw new StateSetupError(says(status, detail), state, url, status, detail, method);
}

export interface StateFailure {
  readonly state: string;
  readonly error: unknown;
}

/** Who sets the states up in a run of `verify`: a state-change URL, the provider's `/__admin` API, or given handlers. */
export type StateSource =
  | { readonly kind: 'url' }
  | { readonly kind: 'admin'; readonly flag: 'tenant' | 'allow-reset' }
  | { readonly kind: 'handlers' };

/** The same handlers, remembering the first that failed (and still throwing, for Pact to log). */
export function watchStates(handlers: Readonly<Record<string, StateHandler>>): {
  readonly handlers: Record<string, StateHandler>;
  readonly failure: () => StateFailure | undefined;
} {
  let first: StateFailure | undefined;
  const watched: Record<string, StateHandler> = {};
  for (const [state, handler] of Object.entries(handlers))
    watched[state] = async (params) => {
      try {
        return await handler(params);
      } catch (error) {
        first ??= { state, error };
        throw error;
      }
    };
  return { handlers: watched, failure: () => first };
}

/**
 * Sets each provider state of the contracts up once through `states`, in order of first use, with the params of its
 * first use; the first that fails, if any. Pact carries on past a state handler that throws (it logs the error and
 * replays the interaction anyway), so a run is only worth starting once every state can be set up.
 */
export async function setUpEachState(
  states: ReturnType<typeof watchStates>,
  contracts: readonly string[],
): Promise<StateFailure | undefined> {
  for (const [state, params] of contractStates(contracts)) {
    if (states.failure() !== undefined) break;
    await states.handlers[state]?.(params).catch(() => undefined);
  }
  return states.failure();
}

const docs = 'docs/integrators.md shows how';

/** Why the states could not be set up and what to do, in one sentence without a final full stop. */
export function stateFailureReason({ state, error }: StateFailure, source: StateSource): string {
  if (!(error instanceof StateSetupError) || source.kind === 'handlers')
    return `the provider state "${state}" could not be set up (${error instanceof Error ? error.message : String(error)})`;
  const { url, status, method } = error;
  const detail = error.detail.replace(/\s+/g, ' ').trim().slice(0, 300);
  const said = detail === '' ? '' : ` (${detail})`;
  if (source.kind === 'url') {
    if (status === undefined)
      return `the state setup URL ${url} gave no answer for state "${state}"${said}; is it still running? Start it or correct --state-setup-url`;
    const answered = `the state setup URL ${url} answered ${status} for state "${state}"${said}`;
    if (routeMissing.has(status))
      return `${answered}; point --state-setup-url at the provider's state-change endpoint, the one that sets a state up on POST { state, params, action }; ${docs}`;
    return `${answered}; it must answer 2xx once the state is set up: look at its log, or point --state-setup-url at the provider's state-change endpoint; ${docs}`;
  }
  if (status === undefined)
    return `${method} ${url} gave no answer for state "${state}"${said}; is the provider still running?`;
  const answered = `${method} ${url} answered ${status} for state "${state}"${said}`;
  const yourOwn = `give --state-setup-url URL${source.flag === 'tenant' ? ' and --api-key KEY' : ''} to set the states up through the provider's own state-change endpoint instead; ${docs}`;
  if (routeMissing.has(status)) {
    const path = new URL(url).pathname.replace(/^.*(\/__admin\/)/, '$1');
    const user = source.flag === 'allow-reset' ? '--allow-reset' : 'verify';
    return `the provider has no ${path}, which ${user} sets the states up with: ${answered}; ${yourOwn}`;
  }
  if (status === 401 || status === 403)
    return `${answered}; check ${source.flag === 'allow-reset' ? '--api-key and ' : ''}--admin-key (or USER_GROUP_MOCK_ADMIN_KEY)`;
  return `${answered}; look at the provider's log, or ${yourOwn}`;
}
