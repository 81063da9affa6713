export type { AdminControls, Controls } from './admin/controlsApi.js';
export { MockControlError } from './admin/mockControlError.js';
export type { MockControls, Tenant, TenantKeys } from './admin/mockControls.js';
export { connectMock, type RemoteMock, type RemoteMockOptions } from './admin/remoteMock.js';
export * from './client/createUserGroupClient.js';
export * from './client/UserGroupServiceError.js';
export type { ConformKey, ConformOptions } from './conform/conformOptions.js';
export {
  ConformOptionError,
  type ConformOutcome,
  type ConformResult,
  conformProvider,
} from './conform/conformProvider.js';
export { contractStateHandlers, type GroupStateParams, providerStates } from './contract/providerStates.js';
export type { Group } from './domain/model.js';
export type { GroupSeed } from './domain/seed.js';
export { errorCatalogue } from './errors.js';
export { createMockServer, type MockServer, type MockServerOptions } from './mockServer.js';
export * from './pipeline/index.js';
export { createValidatingProxy, type ValidatingProxy } from './proxy/createValidatingProxy.js';
export { ProxyOptionError, type ValidatingProxyOptions } from './proxy/proxyOptions.js';
export { RecordingLostError } from './proxy/recordingFile.js';
export { type ApiKey, defaultApiKeys } from './runtime/keyRing.js';
export type * from './spec/types.js';
export type { Fault, FaultSpec } from './store/faults.js';
export type { JournalEntry, JournalQuery, RequestWatcher } from './store/journal.js';
