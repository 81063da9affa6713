import { rename, rm, writeFile } from 'node:fs/promises';
import { checkAdminSchema } from '../admin/adminDocument.js';
import type { GroupSeed } from '../domain/seed.js';
import { product } from '../errors.js';
import type { Diagnostic, Environment } from '../spec/types.js';
import { loadableGroups, type RecordedGroup } from './loadableGroups.js';
import {
  apiKeyPlaceholder,
  type KeptExchange,
  type PactNames,
  pactOf,
  pactPathOf,
  type RecordedExchange,
} from './recording.js';

type Loose = Readonly<Record<string, unknown>>;

/** A group as the answers showed it, under its API key; its environment is decided when it is written. */
type KeptGroup = RecordedGroup & { readonly keyScope: string | undefined; readonly tagged: boolean };

/** The exchanges kept for the Pact file: past it, the oldest are dropped. */
const capacity = 10_000;

/** The recording could not be written when the proxy stopped: what is lost, and where. */
export class RecordingLostError extends Error {
  override readonly name = 'RecordingLostError';
}

/**
 * What a proxy saw, kept for `--record`: the groups the answers showed (the newest answer of each), written as a
 * fixtures file `serve --fixtures` starts from, and the exchanges (the newest 10,000), written as a Pact V3 file
 * beside it. The API keys seen are replaced by `<API_KEY>` in both, wherever they appear.
 *
 * The fixtures file always loads: an answer that broke the contract, or whose group the mock's loader would refuse
 * (`SeedGroupRequest`), is not learnt, and clashes between groups are resolved as `loadableGroups` says.
 *
 * Each exchange schedules a write of both files a short while later (`delayMs`, or four times the last write's
 * duration when writes grow slow), so that a proxy killed outright keeps what it saw up to its last exchanges.
 * Writes never overlap; each file is written whole and renamed into place, so a reader (or a kill) never meets half
 * a file. `close` writes what is left.
 *
 * A write that fails (the folder removed, the disk full) is said once through `onWarning`, and once more when
 * writing works again; what was seen stays in memory meanwhile, and the next write that succeeds holds it all.
 */
export class RecordingFile {
  readonly #exchanges: KeptExchange[] = [];
  readonly #groups = new Map<string, KeptGroup>();
  #seen = 0;
  readonly #keys = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> | undefined;
  #dirty = false;
  #lastWriteMs = 0;
  #failure: Error | undefined;
  /** Exchanges seen since the last write that succeeded. */
  #unwritten = 0;
  #lastWritten: Date | undefined;
  /** Set by `close`: its own failure is its rejection, not a warning. */
  #closing = false;
  /** The ids of the groups the last write recorded as Customer without knowing their environment: said on close. */
  #guessed: readonly string[] = [];
  /** What the last fixtures file written leaves out or changes so that it loads, one sentence each: said on close. */
  #adjusted: readonly string[] = [];

  constructor(
    private readonly path: string,
    private readonly names: PactNames,
    private readonly environmentOf: (keyScope: string) => string | undefined,
    private readonly onWarning: (message: string) => void,
    private readonly delayMs = 200,
  ) {}

  add(exchange: RecordedExchange): void {
    const { requestBody, responseBody, providerDiagnostics, ...rest } = exchange;
    const kept = {
      ...rest,
      request: json(requestBody),
      response: responseBody.length === 0 ? undefined : json(responseBody),
    };
    this.#exchanges.push(kept);
    if (this.#exchanges.length > capacity) this.#exchanges.shift();
    if (exchange.apiKey !== undefined) this.#keys.add(exchange.apiKey);
    this.#learnGroup(kept, providerDiagnostics);
    this.#unwritten++;
    this.#dirty = true;
    this.#schedule();
  }

  /** Writes what is left and stops; rejects with a RecordingLostError when that last write fails. */
  async close(): Promise<void> {
    this.#closing = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#writing;
    await this.#write();
    if (this.#failure !== undefined) throw new RecordingLostError(this.#lost(this.#failure));
    const guessed = this.#guessed;
    const adjusted = this.#adjusted;
    const ids = guessed.map((id) => JSON.stringify(id));
    if (guessed.length > 0)
      this.onWarning(
        `${product}: ${this.path} records ${guessed.length} group(s) as Customer without knowing their environment (${firstFive(ids, ', ')}): their API key was seen only in get-or-create, whose answer does not say it. Where they are Testing groups, change "environment" in the file, or let the client update or rotate once through the proxy before it stops.`,
      );
    if (adjusted.length > 0)
      this.onWarning(
        `${product}: ${this.path} differs from the traffic in ${adjusted.length} place(s), so that serve --fixtures accepts it: ${firstFive(adjusted, '; ')}. The answers that broke the contract are in the journal (/__admin/requests?invalid=true).`,
      );
  }

  /**
   * Writes the fixtures file and the Pact file beside it. Only update and rotation answers carry
   * `api_environment_tag`: a group only ever seen through get-or-create, of a key never seen in another answer
   * (`environmentOf` its `keyScope`), is recorded as Customer, a guess.
   */
  async #writeFiles(): Promise<void> {
    const recorded = [...this.#groups.values()].map((group): RecordedGroup => {
      const { seed, keyScope, tagged } = group;
      if (seed === undefined) return group;
      const learnt = keyScope === undefined ? undefined : this.environmentOf(keyScope);
      const environment = tagged ? seed.environment : ((learnt ?? 'Customer') as Environment);
      return { ...group, seed: { ...seed, environment }, guessed: !tagged && learnt === undefined };
    });
    const { groups, notes, guessed } = loadableGroups(recorded);
    await writeWhole(this.path, this.#hideKeys(`${JSON.stringify({ groups }, null, 2)}\n`));
    await writeWhole(
      pactPathOf(this.path),
      this.#hideKeys(`${JSON.stringify(pactOf(this.#exchanges, this.names), null, 2)}\n`),
    );
    this.#guessed = guessed;
    this.#adjusted = notes.map((note) => this.#hideKeys(note));
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

  /** Every API key seen, as it appears in JSON text, replaced by the placeholder. */
  #hideKeys(text: string): string {
    let hidden = text;
    for (const key of this.#keys)
      hidden = hidden.replaceAll(JSON.stringify(key).slice(1, -1), apiKeyPlaceholder);
    return hidden;
  }

  #schedule(): void {
    // Once closing, `close` makes the last write itself: nothing may be scheduled after it.
    if (this.#closing || this.#timer !== undefined || this.#writing !== undefined) return;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        this.#writing = this.#write().finally(() => {
          this.#writing = undefined;
          if (this.#dirty) this.#schedule();
        });
      },
      Math.max(this.delayMs, 4 * this.#lastWriteMs),
    );
    this.#timer.unref();
  }

  async #write(): Promise<void> {
    this.#dirty = false;
    const started = performance.now();
    const unwritten = this.#unwritten;
    try {
      await this.#writeFiles();
      this.#unwritten -= unwritten;
      this.#lastWritten = new Date();
      if (this.#failure !== undefined && !this.#closing)
        this.onWarning(
          `${product}: the recording is written to ${this.path} again, with everything seen meanwhile`,
        );
      this.#failure = undefined;
    } catch (error) {
      if (this.#failure === undefined && !this.#closing)
        this.onWarning(
          `${product}: cannot write the recording ${this.path} (${(error as Error).message}); the proxy keeps what it sees in memory and retries after each exchange, but stopping it now would lose ${this.#unwritten} exchange(s). Check that the folder exists and has room.`,
        );
      this.#failure = error as Error;
    }
    this.#lastWriteMs = performance.now() - started;
  }

  #lost(error: Error): string {
    const files = `${this.path} and ${pactPathOf(this.path)}`;
    const before =
      this.#lastWritten === undefined
        ? `nothing was ever written there`
        : `${files} hold what was seen up to ${this.#lastWritten.toISOString()}, if they are still there`;
    return `${product}: the recording could not be written to ${files} (${error.message}): the last ${this.#unwritten} exchange(s) seen are lost; ${before}`;
  }
}

/** The first five of `items`, then how many more there are. */
const firstFive = (items: readonly string[], separator: string): string =>
  `${items.slice(0, 5).join(separator)}${items.length > 5 ? `${separator.trim()} and ${items.length - 5} more` : ''}`;

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
