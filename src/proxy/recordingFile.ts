import type { PactNames, RecordedExchange, Recording } from './recording.js';

/**
 * A recording kept on disk as the proxy goes: each exchange schedules a write of the fixtures and Pact files a
 * short while later (`delayMs`, or four times the last write's duration when writes grow slow), so that a proxy
 * killed outright keeps what it saw up to its last exchanges. Writes never overlap; each file is written whole and
 * renamed into place, so a reader (or a kill) never meets half a file. `close` writes what is left.
 */
export class RecordingFile {
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> | undefined;
  #dirty = false;
  #lastWriteMs = 0;
  #failure: Error | undefined;

  constructor(
    private readonly recording: Recording,
    private readonly path: string,
    private readonly names: PactNames,
    private readonly environmentOf: (apiKey: string) => string | undefined,
    private readonly onError: (error: Error) => void,
    private readonly delayMs = 200,
  ) {}

  add(exchange: RecordedExchange): void {
    this.recording.add(exchange);
    this.#dirty = true;
    this.#schedule();
  }

  /** Writes what is not written yet and stops; rejects when the last write fails. */
  async close(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#writing;
    this.#failure = undefined;
    await this.#write();
    if (this.#failure !== undefined) throw this.#failure;
  }

  #schedule(): void {
    if (this.#timer !== undefined || this.#writing !== undefined) return;
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
    try {
      await this.recording.write(this.path, this.names, this.environmentOf);
    } catch (error) {
      this.#failure = error as Error;
      this.onError(error as Error);
    }
    this.#lastWriteMs = performance.now() - started;
  }
}
