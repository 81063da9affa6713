import { rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { GroupSeed } from '../domain/seed.js';
import type { Environment } from '../spec/types.js';

type Loose = Readonly<Record<string, unknown>>;

/** One exchange the target answered, as the recording keeps it (the API key only in memory, never written). */
export interface RecordedExchange {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly operationId: string | undefined;
  readonly apiKey: string | undefined;
  /** How the traffic rules name that key (`keyScope`), for `write`'s `environmentOf`. */
  readonly keyScope: string | undefined;
  readonly requestContentType: string | undefined;
  readonly requestBody: Buffer | undefined;
  readonly status: number;
  readonly responseContentType: string | undefined;
  readonly responseBody: Buffer;
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
type KeptExchange = Omit<RecordedExchange, 'requestBody' | 'responseBody'> & {
  /** The request body as JSON (its text when it is not JSON), undefined without one. */
  readonly request: unknown;
  /** The answer's body likewise, undefined when it is empty. */
  readonly response: unknown;
};

/**
 * What a proxy saw, kept for `--record`: the groups the answers showed (the newest answer of each), written as a
 * fixtures file `serve --fixtures` starts from, and the exchanges (the newest `capacity`), written as a Pact V3
 * file. The API keys seen are replaced by `<API_KEY>` in both, wherever they appear.
 */
export class Recording {
  readonly #exchanges: KeptExchange[] = [];
  readonly #groups = new Map<string, { seed: GroupSeed; keyScope: string | undefined; tagged: boolean }>();
  readonly #keys = new Set<string>();

  constructor(private readonly capacity = 10_000) {}

  add(exchange: RecordedExchange): void {
    const { requestBody, responseBody, ...rest } = exchange;
    const kept = {
      ...rest,
      request: json(requestBody),
      response: responseBody.length === 0 ? undefined : json(responseBody),
    };
    this.#exchanges.push(kept);
    if (this.#exchanges.length > this.capacity) this.#exchanges.shift();
    if (exchange.apiKey !== undefined) this.#keys.add(exchange.apiKey);
    this.#learnGroup(kept);
  }

  /**
   * Writes the fixtures file at `path` and the Pact file beside it (each written whole, then renamed into place).
   * `environmentOf` gives the environment an API key's answers have shown, the key named by its `keyScope`. Only
   * update and rotation answers carry `api_environment_tag`: a group only ever seen through get-or-create, of a key
   * never seen in another answer, is recorded as Customer, a guess. Resolves with the ids of the groups so guessed.
   */
  async write(
    path: string,
    names: PactNames,
    environmentOf: (keyScope: string) => string | undefined,
  ): Promise<readonly string[]> {
    const guessed: string[] = [];
    const groups = [...this.#groups.values()].map(({ seed, keyScope, tagged }) => {
      const learnt = keyScope === undefined ? undefined : environmentOf(keyScope);
      if (!tagged && learnt === undefined) guessed.push(seed.user_group_id);
      const environment = tagged ? seed.environment : ((learnt ?? 'Customer') as Environment);
      return { ...seed, environment };
    });
    await writeWhole(path, this.#hideKeys(`${JSON.stringify({ groups }, null, 2)}\n`));
    await writeWhole(pactPathOf(path), this.#hideKeys(`${JSON.stringify(this.#pact(names), null, 2)}\n`));
    return guessed;
  }

  #learnGroup(exchange: KeptExchange): void {
    if (exchange.status !== 200) return;
    const answer = exchange.response as Loose | undefined;
    const group = answer?.user_group as Loose | undefined;
    if (answer?.success !== 1 || group === undefined || typeof group !== 'object') return;
    const { provided_id: id, name, token, team_id, properties, api_environment_tag: tag } = group;
    if (typeof id !== 'string' || typeof name !== 'string' || typeof token !== 'string') return;
    const tagged = tag === 'Customer' || tag === 'Testing';
    const environment: Environment = tagged ? (tag as Environment) : 'Customer';
    const request = exchange.request as Loose | undefined;
    const slot = `${exchange.apiKey ?? ''}\0${id}`;
    const before = this.#groups.get(slot)?.seed;
    const mapping = exchange.operationId === 'rotateUserGroupToken' ? before?.mapping : request?.mapping;
    const kept =
      exchange.operationId === 'rotateUserGroupToken' ? before?.properties : (properties ?? undefined);
    const seed: GroupSeed = {
      environment,
      user_group_id: id,
      name,
      token,
      ...(typeof team_id === 'number' ? { team_id } : {}),
      ...(isObject(mapping) ? { mapping: mapping as GroupSeed['mapping'] } : {}),
      ...(isObject(kept) ? { properties: kept as GroupSeed['properties'] } : {}),
    };
    this.#groups.set(slot, { seed, keyScope: exchange.keyScope, tagged });
  }

  #pact(names: PactNames): unknown {
    return {
      consumer: { name: names.consumer },
      provider: { name: names.provider },
      interactions: this.#exchanges.map((exchange, i) => ({
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
      metadata: { pactSpecification: { version: '3.0.0' }, client: { name: 'user-group-mock proxy' } },
    };
  }

  /** Every API key seen, as it appears in JSON text, replaced by the placeholder. */
  #hideKeys(text: string): string {
    let hidden = text;
    for (const key of this.#keys)
      hidden = hidden.replaceAll(JSON.stringify(key).slice(1, -1), apiKeyPlaceholder);
    return hidden;
  }
}

/** JSON bytes as a value; bytes that are not JSON as their text. */
function json(bytes: Buffer | undefined): unknown {
  if (bytes === undefined) return undefined;
  const text = bytes.toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const isObject = (value: unknown): boolean =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

function pactQuery(query: string): Record<string, string[]> {
  const result: Record<string, string[]> = {};
  for (const [name, value] of new URLSearchParams(query)) result[name] = [...(result[name] ?? []), value];
  return result;
}

async function writeWhole(path: string, text: string): Promise<void> {
  const partial = `${path}.${process.pid}.partial`;
  try {
    await writeFile(partial, text, 'utf8');
    await rename(partial, path);
  } catch (error) {
    await rm(partial, { force: true }).catch(() => undefined); // a disk full leaves half a file behind
    throw error;
  }
}
