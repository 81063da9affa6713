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
  ours: Started;
  prism: Started;
}

/** The three servers compared under load; any may be missing, with its reason. */
export async function startContenders(): Promise<Contenders> {
  return {
    ceiling: await tryStart(startCeiling),
    ours: await tryStart(() => startOurs(), oursMissing()),
    prism: await tryStart(startPrism),
  };
}

export async function stopContenders(contenders: Contenders): Promise<void> {
  for (const started of Object.values(contenders) as Started[]) {
    if ('server' in started) await started.server.stop();
  }
}
