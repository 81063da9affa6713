import type { OpenAPIV3_1 } from 'openapi-types';
import type { operations as AdminOperations } from '../spec/admin-types.generated.js';
import { adminDocumentUrl, loadDocument } from '../spec/loadDocument.js';
import { createRouter, listOperations, type Operation, type Route } from '../spec/operations.js';
import { diagnosticsFromAjv } from '../validate/ajvDiagnostics.js';
import type { Diagnostic } from '../validate/diagnostic.js';
import { schemas, documentId as serviceDocumentId } from '../validate/schemaChecks.js';
import type { SchemaRegistry } from '../validate/schemas.js';

/** The operations of openapi/admin.yaml; `endpoints` has one handler per id (a drift test checks both ways). */
export type AdminOperationId = keyof AdminOperations;

const fileName = (url: URL): string => url.pathname.split('/').at(-1) as string;

/**
 * Each document is registered under its file name, so the admin document's relative `$ref`s
 * (`user-group-service.yaml#/components/...`) resolve to the service document itself, never to a copy.
 */
export const documentIds = { service: serviceDocumentId, admin: fileName(adminDocumentUrl) } as const;

export const adminDocument = (): OpenAPIV3_1.Document => loadDocument(adminDocumentUrl);

let registered = false;
/**
 * The process's one schema registry, with the admin document added on first use (so a mock that never sees an
 * admin call never loads it). Schemas compile lazily, once each.
 */
export function adminSchemas(): SchemaRegistry {
  const registry = schemas();
  if (!registered) {
    registry.register(documentIds.admin, adminDocument());
    registered = true;
  }
  return registry;
}

/** Diagnostics of a value against a schema of the admin document, paths under `base` (`/body`, or '' in-process). */
export const checkAdminSchema = (pointer: string, value: unknown, base: string): Diagnostic[] =>
  diagnosticsFromAjv(adminSchemas().check(documentIds.admin, pointer)(value), base);

let operations: readonly Operation[] | undefined;
export const adminOperations = (): readonly Operation[] => {
  operations ??= listOperations(adminDocument());
  return operations;
};

/**
 * The security requirements of an admin operation (its own, else the document's), each as the names of the schemes
 * it combines: `[[]]` for an operation anyone may call, `[[], ['AdminKey']]` for one that takes the admin key.
 */
export function securityOf(operation: Operation): readonly string[][] {
  const document = adminDocument();
  const method = operation.method.toLowerCase() as OpenAPIV3_1.HttpMethods;
  const own = document.paths?.[operation.path]?.[method]?.security;
  return (own ?? document.security ?? []).map((requirement) => Object.keys(requirement));
}

let router: ((method: string, path: string) => Route) | undefined;
/** Finds the admin operation for a method and path (`/__admin/tokens/{token}` and the like). */
export const adminRoute = (method: string, path: string): Route => {
  router ??= createRouter(adminOperations());
  return router(method, path);
};
