export type { AdminControls, Controls } from './admin/controlsApi.js';
export * from './client/index.js';
export { contractStateHandlers, type GroupStateParams, providerStates } from './contract/providerStates.js';
export type { Group } from './domain/model.js';
export type { GroupSeed } from './domain/seed.js';
export { errorCatalogue } from './errors.js';
export { createMockServer, defaultApiKeys, type MockServer, type MockServerOptions } from './mockServer.js';
export * from './pipeline/index.js';
export {
  createValidatingProxy,
  type ValidatingProxy,
  type ValidatingProxyOptions,
} from './proxy/createValidatingProxy.js';
export { ProxyOptionError } from './proxy/proxyOptions.js';
export { RecordingLostError } from './proxy/recordingFile.js';
export type { ApiKey } from './runtime/keyRing.js';
export type * from './spec/types.js';
export type { Fault, FaultSpec } from './store/faults.js';
export type { JournalEntry, JournalQuery, RequestWatcher } from './store/journal.js';
