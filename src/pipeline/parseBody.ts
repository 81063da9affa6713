import type { ApiError } from '../errors.js';
import { parseJsonBody } from '../validate/jsonText.js';
import type { PipelineRequest } from './pipelineRequest.js';

/** How much of a body that is not JSON the journal keeps. */
const keptOfUnparsed = 4096;

/**
 * Step 5, parse: the body's bytes (or text) as JSON, by the rules of `parseJsonBody` (UTF-8 without a byte order
 * mark, no duplicate key, nesting within bounds). Sets `text`, `body`, `clean` and `warnings`; after a failure,
 * `body` holds the start of what arrived, as a string.
 */
export function parseBody(request: PipelineRequest, raw: Uint8Array | string): ApiError | undefined {
  const parsed = parseJsonBody(raw);
  if (!parsed.ok) {
    const received = typeof raw === 'string' ? raw : Buffer.from(raw).toString('utf8', 0, keptOfUnparsed);
    request.body = received.slice(0, keptOfUnparsed);
    return parsed.error;
  }
  const { value, text, clean, warnings } = parsed.value;
  request.text = text;
  request.body = value;
  request.clean = clean;
  if (warnings !== undefined) request.warnings = warnings;
  return undefined;
}
