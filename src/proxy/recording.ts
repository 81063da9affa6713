/** What a recording keeps of an exchange, and the Pact file it writes of them (`RecordingFile` keeps both files). */
import { basename, dirname, join } from 'node:path';
import type { Diagnostic } from '../spec/types.js';

/** One exchange the target answered, as the recording keeps it (the API key only in memory, never written). */
export interface RecordedExchange {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly operationId: string | undefined;
  readonly apiKey: string | undefined;
  /** How the reference model names that key (`keyScope`), to ask it the environment its answers showed. */
  readonly keyScope: string | undefined;
  readonly requestContentType: string | undefined;
  readonly requestBody: Buffer | undefined;
  readonly status: number;
  readonly responseContentType: string | undefined;
  readonly responseBody: Buffer;
  /** The provider's diagnostics of the answer (the document's and the reference model's): its group is not recorded. */
  readonly providerDiagnostics: readonly Diagnostic[];
}

/** The placeholder that stands for the API key everywhere in a recording. */
export const apiKeyPlaceholder = '<API_KEY>';

/** The Pact file beside a fixtures file: `recorded.json` → `recorded.pact.json`. */
export const pactPathOf = (path: string): string =>
  join(dirname(path), `${basename(path).replace(/\.json$/i, '')}.pact.json`);

export interface PactNames {
  readonly consumer: string;
  readonly provider: string;
}

/** An exchange as kept: its bodies parsed once, when it is added (writes come every few hundred milliseconds). */
export type KeptExchange = Omit<RecordedExchange, 'requestBody' | 'responseBody' | 'providerDiagnostics'> & {
  /** The request body as JSON (its text when it is not JSON), undefined without one. */
  readonly request: unknown;
  /** The answer's body likewise, undefined when it is empty. */
  readonly response: unknown;
};

/** The `metadata.client.name` of the Pact file a recording writes: how `verify --pact` tells it from a contract. */
export const recordingPactClient = 'user-group-mock proxy';

/** The exchanges kept (the newest last) as a Pact V3 file's content, the API key as its placeholder. */
export function pactOf(exchanges: readonly KeptExchange[], names: PactNames): unknown {
  return {
    consumer: { name: names.consumer },
    provider: { name: names.provider },
    interactions: exchanges.map((exchange, i) => ({
      description: `${exchange.method} ${exchange.path} #${i + 1}${exchange.operationId ? ` (${exchange.operationId})` : ''}, as observed`,
      providerStates: [],
      request: {
        method: exchange.method,
        path: exchange.path,
        ...(exchange.query === '' ? {} : { query: pactQuery(exchange.query) }),
        headers: {
          ...(exchange.apiKey === undefined ? {} : { Authorization: `Token ${apiKeyPlaceholder}` }),
          ...(exchange.requestContentType ? { 'Content-Type': exchange.requestContentType } : {}),
        },
        ...(exchange.request === undefined ? {} : { body: exchange.request }),
      },
      response: {
        status: exchange.status,
        ...(exchange.responseContentType
          ? { headers: { 'Content-Type': exchange.responseContentType } }
          : {}),
        ...(exchange.response === undefined ? {} : { body: exchange.response }),
      },
    })),
    metadata: { pactSpecification: { version: '3.0.0' }, client: { name: recordingPactClient } },
  };
}

function pactQuery(query: string): Record<string, string[]> {
  const result: Record<string, string[]> = {};
  for (const [name, value] of new URLSearchParams(query)) result[name] = [...(result[name] ?? []), value];
  return result;
}
