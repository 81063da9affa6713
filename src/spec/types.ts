/** Names for the document's schemas. Every shape comes from the generated file; none is written by hand. */
import type { components, operations } from './openapi-types.generated.js';

type Schemas = components['schemas'];
type JsonBody<T> = T extends { content: { 'application/json': infer B } } ? B : never;

export type GetOrCreateUserGroupRequest = Schemas['GetOrCreateUserGroupRequest'];
export type UpdateUserGroupRequest = Schemas['UpdateUserGroupRequest'];
export type RotateUserGroupTokenRequest = Schemas['RotateUserGroupTokenRequest'];
export type GetOrCreateUserGroupResponse = Schemas['GetOrCreateUserGroupResponse'];
export type UpdateUserGroupResponse = Schemas['UpdateUserGroupResponse'];
export type RotateUserGroupTokenResponse = Schemas['RotateUserGroupTokenResponse'];
export type ErrorResponse = Schemas['ErrorResponse'];
export type ErrorCode = Schemas['ErrorCode'];
export type Diagnostic = Schemas['Diagnostic'];
export type Mapping = Schemas['Mapping'];
export type Properties = Schemas['Properties'];
export type ApiEnvironmentTag = Schemas['ApiEnvironmentTag'];
export type Environment = NonNullable<ApiEnvironmentTag>;

/** The request body type of each operation, keyed by operationId. */
export type RequestBodies = {
  [K in keyof operations]: JsonBody<NonNullable<operations[K]['requestBody']>>;
};
/** The success body type of each operation, keyed by operationId. */
export type SuccessBodies = {
  [K in keyof operations]: JsonBody<operations[K]['responses'][200]>;
};

type AdminSchemas = import('./admin-types.generated.js').components['schemas'];

/** A group as stored (and as `GET /__admin/groups` lists it). */
export type StoredGroup = AdminSchemas['StoredGroup'];
/** A group to seed (`POST /__admin/groups`, `--fixtures`). */
export type SeedGroupRequest = AdminSchemas['SeedGroupRequest'];
export type TokenOwner = AdminSchemas['TokenOwner'];
export type TenantHandle = AdminSchemas['Tenant'];
/** What `GET /__admin/health` answers: ready, the package version and where the groups are kept. */
export type Health = AdminSchemas['Health'];
export type TenantSummary = AdminSchemas['TenantSummary'];
export type JournalEntry = AdminSchemas['JournalEntry'];
/** An operation of the User Group Service, by its operationId. */
export type ServiceOperationId = AdminSchemas['ServiceOperationId'];
export type Fault = AdminSchemas['Fault'];
/**
 * A fault to plan (`FaultRequest`: at least one of `status`, `delay_ms`, `action`). openapi-typescript cannot type
 * that `anyOf`, so the shape is taken from `Fault`'s fields.
 */
export type FaultRequest = Partial<{
  operationId: NonNullable<Fault['operationId']>;
  status: NonNullable<Fault['status']>;
  delay_ms: Fault['delay_ms'];
  action: NonNullable<Fault['action']>;
  times: Fault['remaining'];
}>;
