import type { Database } from './database.js';

const blockSize = 32;

/**
 * The team ids of one replica, drawn from the `team_ids` sequence a block at a time, so that a create decides its
 * answer (and journal entry) before its one statement instead of asking for `nextval` first. Unique across replicas
 * as the sequence is; in the order they are handed out within a replica, and across replicas interleaved by block.
 * An id drawn for a group that turned out to exist is given back and handed out next. The ids of a block a replica
 * did not use when it stops are skipped, as a sequence skips the ids of a rolled-back transaction.
 */
export class TeamIds {
  #ids: number[] = [];
  #drawing: Promise<void> | undefined = undefined;

  constructor(private readonly db: Database) {}

  async take(): Promise<number> {
    for (;;) {
      const id = this.#ids.shift();
      if (id !== undefined) return id;
      this.#drawing ??= this.#draw().finally(() => {
        this.#drawing = undefined;
      });
      await this.#drawing;
    }
  }

  /** An id taken but not stored: handed out next. */
  giveBack(id: number): void {
    this.#ids.unshift(id);
  }

  async #draw(): Promise<void> {
    // The block's size is in the text, not a parameter: a prepared statement with none is planned once, where one
    // with a parameter was planned again on each draw.
    const { rows } = await this.db.query<{ id: string }>(
      `SELECT nextval('team_ids') AS id FROM generate_series(1, ${blockSize})`,
    );
    this.#ids.push(...rows.map((row) => Number(row.id)).sort((a, b) => a - b));
  }
}
