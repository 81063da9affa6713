import { describe, expect, it } from 'vitest';
import { PendingDelays } from '../../../src/store/pendingDelays.js';

describe('PendingDelays', () => {
  it('calls cancelled instead of done for every waiting delay when cancelled, and forgets them', () => {
    const delays = new PendingDelays();
    const heard: string[] = [];
    delays.wait(
      60_000,
      () => heard.push('done 1'),
      () => heard.push('cancelled 1'),
    );
    delays.wait(
      60_000,
      () => heard.push('done 2'),
      () => heard.push('cancelled 2'),
    );
    expect(delays.size).toBe(2);
    delays.cancelAll();
    delays.cancelAll();
    expect([heard, delays.size]).toEqual([['cancelled 1', 'cancelled 2'], 0]);
  });

  it('calls done after the delay and no longer counts it as waiting', async () => {
    const delays = new PendingDelays();
    await new Promise<void>((resolve) => delays.wait(1, resolve, () => {}));
    expect(delays.size).toBe(0);
  });

  it('cancels at once a delay asked for once the mock is stopping', () => {
    const stopping = new AbortController();
    stopping.abort();
    const delays = new PendingDelays(stopping.signal);
    const heard: string[] = [];
    delays.wait(
      60_000,
      () => heard.push('done'),
      () => heard.push('cancelled'),
    );
    expect([heard, delays.size]).toEqual([['cancelled'], 0]);
  });
});
