import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cpuMs, procTimes } from '../../../bench/proc.js';

describe.skipIf(!existsSync('/proc/self/stat'))('procTimes and cpuMs', () => {
  it("read a live process's parent and its CPU time, which grows while it works", () => {
    expect(procTimes(process.pid)?.parent).toBe(process.ppid);
    const before = cpuMs(process.pid);
    const until = performance.now() + 60;
    while (performance.now() < until); // busy for 60 ms, several clock ticks
    expect(cpuMs(process.pid)).toBeGreaterThan(before);
  });

  it('answer nothing for a process that cannot exist', () => {
    const beyond = Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8')) + 1;
    expect(procTimes(beyond)).toBeUndefined();
    expect(cpuMs(process.pid, beyond)).toBeNaN();
  });
});
