import type { Environment } from '../domain/model.js';
import type { GroupSeed } from '../domain/seed.js';
import { errorReply, type Reply } from '../pipeline/answer.js';
import type { Result } from '../result.js';
import type { FaultSpec } from '../store/faults.js';
import type { JournalQuery } from '../store/journal.js';
import { errorAt } from '../validate/diagnostic.js';
import type { AdminOperationId } from './adminDocument.js';
import type { Controls } from './controlsApi.js';
import { journalEvents } from './events.js';
import type { CallParameters } from './parameters.js';
import { type BytesReply, servedDocument } from './servedDocuments.js';

/** One admin call, its parameters and body already checked against openapi/admin.yaml. */
export interface AdminCall<C = Controls> {
  readonly controls: C;
  readonly tenant: string;
  readonly params: CallParameters;
  readonly body: unknown;
}

/**
 * The handler of one admin operation and the controls it calls: a server has the operation when it has those
 * controls (the validating proxy has the journal's, not the groups', tokens', tenants' or faults').
 */
export interface Endpoint<N extends keyof Controls = keyof Controls> {
  readonly uses: readonly N[];
  readonly run: (call: AdminCall<Pick<Controls, N>>) => Reply | BytesReply | Promise<Reply | BytesReply>;
}

/** An endpoint whose `run` can call only the controls it names in `uses` (the compiler checks). */
function endpoint<const N extends keyof Controls>(uses: readonly N[], run: Endpoint<N>['run']): Endpoint<N> {
  return { uses, run };
}

const json = (status: number, body: unknown): Reply => ({ status, body });
/** 204 once `done` is, a reply without a body (the admin handler writes no Content-Type for it). */
const noContent = async (done: Promise<unknown>): Promise<Reply> => {
  await done;
  return { status: 204, body: undefined };
};
/** The value of a control that can fail, with `status` (204: none), or its error. */
const answer = (status: number, result: Result<unknown>): Reply =>
  result.ok ? json(status, result.value) : errorReply(result.error);

/**
 * The admin API, one handler per operationId of openapi/admin.yaml, each a thin call of the shared controls it names.
 * Values read from `params` and `body` have passed the document's schemas, so the casts only name their types.
 */
export const endpoints: { readonly [K in AdminOperationId]: Endpoint } = {
  reset: endpoint(['reset'], ({ controls, tenant }) => noContent(controls.reset(tenant))),

  listGroups: endpoint(['groups'], async ({ controls, tenant, params }) =>
    json(200, await controls.groups(tenant, params.query.environment as Environment | undefined)),
  ),

  removeGroups: endpoint(['removeGroups'], ({ controls, tenant, params }) =>
    noContent(controls.removeGroups(tenant, params.query.environment as Environment | undefined)),
  ),

  seedGroup: endpoint(['seedGroup'], async ({ controls, tenant, body }) =>
    answer(201, await controls.seedGroup(body as GroupSeed, tenant)),
  ),

  checkToken: endpoint(['token'], async ({ controls, tenant, params }) => {
    const owner = await controls.token(params.path.token as string, tenant);
    if (owner !== undefined) return json(200, owner);
    const message =
      'no group of this scope holds this token now: it was rotated away, its group was removed, or it belongs to another tenant. Use the token of the latest response';
    return errorReply(errorAt('TOKEN_NOT_FOUND', '/path/token', message));
  }),

  listRequests: endpoint(['requests', 'droppedRequests'], async ({ controls, tenant, params }) => {
    const entries = await controls.requests(params.query as JournalQuery, tenant);
    const dropped = await controls.droppedRequests(tenant);
    return { status: 200, body: entries, headers: { 'x-journal-dropped': String(dropped) } };
  }),

  clearRequests: endpoint(['clearRequests'], ({ controls, tenant }) =>
    noContent(controls.clearRequests(tenant)),
  ),

  createTenant: endpoint(['createTenant'], async ({ controls }) => json(201, await controls.createTenant())),

  deleteTenant: endpoint(['deleteTenant'], async ({ controls, tenant, params }) =>
    answer(204, await controls.deleteTenant(params.path.id as string, tenant)),
  ),

  listFaults: endpoint(['faults'], async ({ controls, tenant }) => json(200, await controls.faults(tenant))),

  injectFault: endpoint(['injectFault'], async ({ controls, tenant, body }) =>
    answer(201, await controls.injectFault(body as FaultSpec, tenant)),
  ),

  clearFaults: endpoint(['clearFaults'], ({ controls, tenant }) => noContent(controls.clearFaults(tenant))),

  health: endpoint(['health'], async ({ controls }) => json(200, await controls.health())),

  liveness: endpoint([], () => json(200, { status: 'live' })),

  readiness: endpoint(['health'], async ({ controls }) => {
    const { status } = await controls.health();
    return json(status === 'ready' ? 200 : 503, { status });
  }),

  adminDocumentJson: endpoint([], () => servedDocument('admin', 'json')),
  adminDocumentYaml: endpoint([], () => servedDocument('admin', 'yaml')),
  serviceDocumentJson: endpoint([], () => servedDocument('service', 'json')),
  serviceDocumentYaml: endpoint([], () => servedDocument('service', 'yaml')),
  listTenants: endpoint(['tenants'], async ({ controls, tenant }) =>
    json(200, await controls.tenants(tenant)),
  ),

  streamRequests: endpoint(['requests', 'watchRequests'], async ({ controls, tenant, params }) => {
    const after = params.query.after as number | undefined;
    const backlog = after === undefined ? [] : await controls.requests({ after }, tenant);
    return journalEvents(backlog, (listener) => controls.watchRequests(listener, tenant));
  }),
};

/** Whether `controls` has every control `endpoint` calls. */
export const hasControlsOf = (controls: Partial<Controls>, endpoint: Endpoint): boolean =>
  endpoint.uses.every((name) => typeof controls[name] === 'function');
