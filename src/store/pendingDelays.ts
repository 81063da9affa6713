/**
 * The requests of one tenant waiting on a planned fault's `delay_ms`. They belong to the test that planned the delay:
 * a reset or the removal of the tenant cancels them (`cancelAll`), and so does the mock closing (`stopping`), so that
 * an abandoned request neither touches the next test's state nor holds `close()` for the length of its delay.
 */
export class PendingDelays {
  /** Each delay's timer, and what to call when it is cancelled. */
  readonly #pending = new Map<NodeJS.Timeout, () => void>();

  constructor(private readonly stopping?: AbortSignal) {}

  /**
   * Calls `done` after `ms`, unless the tenant is reset or removed, or the mock closes first: then `cancelled` is
   * called at once instead (and `done` never).
   */
  wait(ms: number, done: () => void, cancelled: () => void): void {
    if (this.stopping?.aborted === true) {
      cancelled();
      return;
    }
    const timer = setTimeout(() => {
      this.#pending.delete(timer);
      done();
    }, ms);
    this.#pending.set(timer, cancelled);
  }

  get size(): number {
    return this.#pending.size;
  }

  cancelAll(): void {
    const pending = [...this.#pending];
    this.#pending.clear();
    for (const [timer, cancelled] of pending) {
      clearTimeout(timer);
      cancelled();
    }
  }
}
