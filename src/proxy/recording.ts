import { rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { checkAdminSchema } from '../admin/adminDocument.js';
import type { GroupSeed } from '../domain/seed.js';
import type { Diagnostic, Environment } from '../spec/types.js';
import { loadableGroups, type RecordedGroup } from './loadableGroups.js';

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
  /** The provider's diagnostics of the answer (the document's and the traffic rules'): its group is not recorded. */
  readonly providerDiagnostics: readonly Diagnostic[];
}

/** What a write could not record as seen: said when the proxy stops. */
export interface RecordingReport {
  /** The ids of the groups recorded as Customer without knowing their environment. */
  readonly guessed: readonly string[];
  /** What the fixtures file leaves out or changes so that `serve --fixtures` accepts it, one sentence each. */
  readonly adjusted: readonly string[];
}

/** A group as the answers showed it, under its API key; its environment is decided when it is written. */
type KeptGroup = RecordedGroup & { readonly keyScope: string | undefined; readonly tagged: boolean };

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
type KeptExchange = Omit<RecordedExchange, 'requestBody' | 'responseBody' | 'providerDiagnostics'> & {
  /** The request body as JSON (its text when it is not JSON), undefined without one. */
  readonly request: unknown;
  /** The answer's body likewise, undefined when it is empty. */
  readonly response: unknown;
};

/**
 * What a proxy saw, kept for `--record`: the groups the answers showed (the newest answer of each), written as a
 * fixtures file `serve --fixtures` starts from, and the exchanges (the newest `capacity`), written as a Pact V3
 * file. The API keys seen are replaced by `<API_KEY>` in both, wherever they appear.
 *
 * The fixtures file always loads: an answer that broke the contract, or whose group the mock's loader would refuse
 * (`SeedGroupRequest`), is not learnt, and clashes between groups are resolved as `loadableGroups` says.
 */
export class Recording {
  readonly #exchanges: KeptExchange[] = [];
  readonly #groups = new Map<string, KeptGroup>();
  #seen = 0;
  readonly #keys = new Set<string>();

  constructor(private readonly capacity = 10_000) {}

  add(exchange: RecordedExchange): void {
    const { requestBody, responseBody, providerDiagnostics, ...rest } = exchange;
    const kept = {
      ...rest,
      request: json(requestBody),
      response: responseBody.length === 0 ? undefined : json(responseBody),
    };
    this.#exchanges.push(kept);
    if (this.#exchanges.length > this.capacity) this.#exchanges.shift();
    if (exchange.apiKey !== undefined) this.#keys.add(exchange.apiKey);
    this.#learnGroup(kept, providerDiagnostics);
  }

  /**
   * Writes the fixtures file at `path` and the Pact file beside it (each written whole, then renamed into place).
   * `environmentOf` gives the environment an API key's answers have shown, the key named by its `keyScope`. Only
   * update and rotation answers carry `api_environment_tag`: a group only ever seen through get-or-create, of a key
   * never seen in another answer, is recorded as Customer, a guess. Resolves with the ids of the groups so guessed
   * and what the file records otherwise than seen.
   */
  async write(
    path: string,
    names: PactNames,
    environmentOf: (keyScope: string) => string | undefined,
  ): Promise<RecordingReport> {
    const recorded = [...this.#groups.values()].map((group): RecordedGroup => {
      const { seed, keyScope, tagged } = group;
      if (seed === undefined) return group;
      const learnt = keyScope === undefined ? undefined : environmentOf(keyScope);
      const environment = tagged ? seed.environment : ((learnt ?? 'Customer') as Environment);
      return { ...group, seed: { ...seed, environment }, guessed: !tagged && learnt === undefined };
    });
    const { groups, notes, guessed } = loadableGroups(recorded);
    await writeWhole(path, this.#hideKeys(`${JSON.stringify({ groups }, null, 2)}\n`));
    await writeWhole(pactPathOf(path), this.#hideKeys(`${JSON.stringify(this.#pact(names), null, 2)}\n`));
    return { guessed, adjusted: notes.map((note) => this.#hideKeys(note)) };
  }

  /**
   * Learns the group an answer shows, unless the answer broke the contract or the group is one the mock's loader
   * would refuse: then the group stays as an earlier answer showed it (if one did), and why is kept for the report.
   */
  #learnGroup(exchange: KeptExchange, providerDiagnostics: readonly Diagnostic[]): void {
    if (exchange.status !== 200) return;
    const answer = exchange.response as Loose | undefined;
    const group = answer?.user_group as Loose | undefined;
    if (answer?.success !== 1 || group === null || typeof group !== 'object') return;
    const { provided_id: id, name, token, team_id, properties, api_environment_tag: tag } = group;
    if (typeof id !== 'string') return;
    const slot = `${exchange.apiKey ?? ''}\0${id}`;
    const earlier = this.#groups.get(slot);
    const refuse = (why: string): void => {
      const kept = earlier ?? { id, seed: undefined, keyScope: exchange.keyScope, tagged: false, seen: 0 };
      this.#groups.set(slot, { ...kept, refused: why });
    };
    const broken = providerDiagnostics[0];
    if (broken !== undefined) {
      refuse(`its answer broke the contract (${broken.code} at ${broken.path})`);
      return;
    }
    if (typeof name !== 'string' || typeof token !== 'string') return;
    const tagged = tag === 'Customer' || tag === 'Testing';
    const environment: Environment = tagged ? (tag as Environment) : 'Customer';
    const request = exchange.request as Loose | undefined;
    const before = earlier?.seed;
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
    const refused = checkAdminSchema('/components/schemas/SeedGroupRequest', seed, '')[0];
    if (refused !== undefined) {
      refuse(
        `as seen (the answer, with the mapping of the request), serve --fixtures refuses it (${refused.path}: ${refused.message})`,
      );
      return;
    }
    this.#groups.set(slot, {
      id,
      seed,
      keyScope: exchange.keyScope,
      tagged,
      seen: ++this.#seen,
      refused: undefined,
    });
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
