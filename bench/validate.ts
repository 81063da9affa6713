import { fileURLToPath } from 'node:url';
import { type RequestToValidate, validateRequest } from '../src/index.js';
import { GET_BODY, HEADERS, PATH } from './config.js';

/** A typical get-or-create as the mock sees it; `raw` passes the body text instead of the parsed object. */
function typicalRequest(raw: boolean): RequestToValidate {
  return { method: 'GET', path: PATH, headers: HEADERS, body: raw ? GET_BODY : JSON.parse(GET_BODY) };
}

/** Mean µs per validateRequest call over `calls` calls, after a warm-up. */
export function measureValidation(calls: number, raw = false): number {
  const request = typicalRequest(raw);
  const first = validateRequest(request);
  if (!first.ok)
    throw new Error(`the typical request does not validate: ${JSON.stringify(first.diagnostics)}`);
  for (let i = 0; i < 20_000; i++) validateRequest(request);
  let failures = 0;
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) if (!validateRequest(request).ok) failures++;
  const elapsedNs = Number(process.hrtime.bigint() - start);
  if (failures > 0) throw new Error(`${failures} of ${calls} calls did not validate`);
  return elapsedNs / calls / 1_000;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(
    `validateRequest (typical get-or-create): ${measureValidation(500_000).toFixed(2)} µs per call`,
  );
}
