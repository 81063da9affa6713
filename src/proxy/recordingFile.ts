import { product } from '../errors.js';
import {
  type PactNames,
  pactPathOf,
  type RecordedExchange,
  Recording,
  type RecordingReport,
} from './recording.js';

/** The recording could not be written when the proxy stopped: what is lost, and where. */
export class RecordingLostError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RecordingLostError';
  }
}

/**
 * A recording kept on disk as the proxy goes: each exchange schedules a write of the fixtures and Pact files a
 * short while later (`delayMs`, or four times the last write's duration when writes grow slow), so that a proxy
 * killed outright keeps what it saw up to its last exchanges. Writes never overlap; each file is written whole and
 * renamed into place, so a reader (or a kill) never meets half a file. `close` writes what is left.
 *
 * A write that fails (the folder removed, the disk full) is said once through `onWarning`, and once more when
 * writing works again; what was seen stays in memory meanwhile, and the next write that succeeds holds it all.
 */
export class RecordingFile {
  readonly #recording = new Recording();
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
  /** What the last write recorded otherwise than seen: guessed environments, groups left out or changed. */
  #report: RecordingReport = { guessed: [], adjusted: [] };

  constructor(
    private readonly path: string,
    private readonly names: PactNames,
    private readonly environmentOf: (keyScope: string) => string | undefined,
    private readonly onWarning: (message: string) => void,
    private readonly delayMs = 200,
  ) {}

  add(exchange: RecordedExchange): void {
    this.#recording.add(exchange);
    this.#unwritten++;
    this.#dirty = true;
    this.#schedule();
  }

  /**
   * Writes what is not written yet and stops; rejects with a RecordingLostError when that last write fails. Says
   * (through `onWarning`) which groups were recorded as Customer without knowing it, and which were left out or
   * changed so that `serve --fixtures` accepts the file.
   */
  async close(): Promise<void> {
    this.#closing = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#writing;
    await this.#write();
    if (this.#failure !== undefined) throw new RecordingLostError(this.#lost(this.#failure));
    const { guessed, adjusted } = this.#report;
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
      this.#report = await this.#recording.write(this.path, this.names, this.environmentOf);
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
