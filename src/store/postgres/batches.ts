import DataLoader from 'dataloader';

/**
 * A statement for many requests at once, one batch in flight: what is asked while a batch runs goes in the next.
 * A request alone goes at once; under a flood (of wrong keys, say) the work holds one pool connection and costs a
 * statement per batch, not per request, so the flood cannot take the pool from the other requests. `run` answers
 * the items in their order; a statement that fails fails each of its items.
 */
export function oneBatchAtATime<T, R>(
  run: (items: readonly T[]) => Promise<readonly R[]>,
): (item: T) => Promise<R> {
  let previous: Promise<unknown> = Promise.resolve();
  const loader = new DataLoader<T, R>(
    (items) => {
      const batch = run(items);
      previous = batch.catch(() => undefined);
      return batch;
    },
    { cache: false, maxBatchSize: 1_000, batchScheduleFn: (dispatch) => void previous.then(dispatch) },
  );
  return (item) => loader.load(item);
}
