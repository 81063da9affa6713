import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  END,
  readmeFile,
  SCALING_END,
  SCALING_START,
  START,
  scalingFile,
  withBenchSection,
  withScalingSection,
} from '../../../bench/readme.js';
import { readResults } from '../../../bench/results.js';

const readme = readFileSync(readmeFile, 'utf8');

describe("the README's benchmark table", () => {
  it('is the one bench/results.json gives (run "npm run bench:readme" when this fails)', () => {
    expect(readme).toContain(START);
    expect(readme).toContain(END);
    expect(withBenchSection(readme, readResults())).toBe(readme);
  });

  it('changes with any figure of bench/results.json', () => {
    const results = readResults();
    const row = results.rows.find((r) => r.load !== undefined);
    if (row?.load === undefined) throw new Error('bench/results.json has no load row');
    row.load.p99 += 1;
    expect(withBenchSection(readme, results)).not.toBe(readme);
  });

  it('says when, on which machine and with which Node the figures were measured', () => {
    const { date, node, machine } = readResults();
    expect(new Date(date).toISOString()).toBe(date);
    expect(node).toMatch(/^v\d+\.\d+\.\d+$/);
    expect(machine.cores).toBeGreaterThan(0);
    expect(machine.cpu).not.toBe('');
    expect(machine.memoryGiB).toBeGreaterThan(0);
    expect(machine.loadAverage).toBeGreaterThanOrEqual(0);
    const section = readme.slice(readme.indexOf(START), readme.indexOf(END));
    expect(section).toContain(`${date.slice(0, 10)}, on ${machine.cores} cores (${machine.cpu})`);
    expect(section).toContain(`Node ${node}`);
  });
});

describe("docs/scaling.md's figures of the stores", () => {
  const scaling = readFileSync(scalingFile, 'utf8');

  it('are the ones bench/results.json gives, as the README shows them (run "npm run bench:readme" when this fails)', () => {
    expect(scaling).toContain(SCALING_START);
    expect(scaling).toContain(SCALING_END);
    expect(withScalingSection(scaling, readResults())).toBe(scaling);
  });

  it("quote each row's req/s exactly as the README's table does", () => {
    const block = scaling.slice(scaling.indexOf(SCALING_START), scaling.indexOf(SCALING_END));
    const quoted = [
      ...block.matchAll(/^\| (file store|PostgreSQL) (@\S+?)(?:, (\d) replicas?)? \| ([\d,]+) \|/gm),
    ];
    expect(quoted).toHaveLength(6);
    for (const [, store, size, replicas, rps] of quoted) {
      const name = `ours ${store === 'file store' ? 'durable' : 'PostgreSQL'} create ${size}${replicas === undefined ? '' : `, ${replicas} replica`}`;
      expect(readme).toMatch(new RegExp(`^\\| ${name}s? \\| ${rps} \\|`, 'm'));
    }
  });
});
