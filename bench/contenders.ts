import { startCeiling } from './ceiling.js';
import { oursMissing, startOurs } from './ours.js';
import { startPrism } from './prism.js';
import type { ServerProcess } from './proc.js';

/** A started server, or why it could not be started. */
export type Started = { server: ServerProcess } | { reason: string };

export async function tryStart(start: () => Promise<ServerProcess>, missing?: string): Promise<Started> {
  if (missing !== undefined) return { reason: missing };
  try {
    return { server: await start() };
  } catch (error) {
    return { reason: (error as Error).message };
  }
}

export interface Contenders {
  ceiling: Started;
  /** Ours for get-or-create of an existing group, the row compared with the ceiling and Prism. */
  ours: Started;
  /**
   * Ours for the write rows (creates, updates, rotations), a process of its own: the hundreds of thousands of
   * groups and retired tokens they leave would otherwise sit in the heap of the process whose get-or-create is
   * compared with the ceiling, and make each of its garbage collections slower (a state the ceiling never has).
   */
  oursWrites: Started;
  prism: Started;
}

/** The servers compared under load; any may be missing, with its reason. */
export async function startContenders(): Promise<Contenders> {
  return {
    ceiling: await tryStart(startCeiling),
    ours: await tryStart(() => startOurs(), oursMissing()),
    oursWrites: await tryStart(() => startOurs(), oursMissing()),
    prism: await tryStart(startPrism),
  };
}

export async function stopContenders(contenders: Contenders): Promise<void> {
  for (const started of Object.values(contenders) as Started[]) {
    if ('server' in started) await started.server.stop();
  }
}
