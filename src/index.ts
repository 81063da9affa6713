export type { Fault, FaultSpec } from './admin/faults.js';
export type { JournalEntry, JournalQuery } from './admin/journal.js';
export type { Group } from './domain/model.js';
export type { GroupSeed } from './domain/seed.js';
export { errorCatalogue } from './errors.js';
export type { ApiKey } from './http/keys.js';
export { createMockServer, defaultApiKeys, type MockServer, type MockServerOptions } from './http/server.js';
export type * from './spec/types.js';
export * from './validate/index.js';
