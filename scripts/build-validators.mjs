// Compiles the service document's request checks with Ajv's standalone code generation into
// dist/validate/precompiled.cjs, so that a built server starts without loading or running Ajv's compiler.
// Runs after tsc and build-documents.mjs: it uses the built modules and documents, and so the runtime's own Ajv
// configuration and the very document the server will load.
import { writeFileSync } from 'node:fs';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { serviceDocument } from '../dist/spec/loadDocument.js';
import { operations } from '../dist/spec/operations.js';
import { documentDigest, precompiledUrl } from '../dist/validate/precompiled.js';
import { documentId } from '../dist/validate/schemaChecks.js';
import { createAjv } from '../dist/validate/schemas.js';

const document = serviceDocument();
const ajv = createAjv({ source: true });
ajv.addSchema(document, documentId);
const refs = Object.fromEntries(
  operations()
    .filter((operation) => operation.requestSchema !== undefined)
    .map((operation) => [operation.requestSchema, `${documentId}#${operation.requestSchema}`]),
);
const code = standaloneCode.default ?? standaloneCode;
writeFileSync(
  precompiledUrl,
  `${code(ajv, refs)}\nexports.documentDigest = ${JSON.stringify(documentDigest(document))};\n`,
);
