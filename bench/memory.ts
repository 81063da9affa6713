import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** Resident set size of a process in MB (VmRSS from /proc/<pid>/status). */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status)?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(kb) / 1024;
}

/** RSS once the process has been left alone for `ms` (lets start-up garbage settle). */
export async function idleRssMb(pid: number, ms = 1_000): Promise<number> {
  await sleep(ms);
  return rssMb(pid);
}
