import { writeFile } from 'node:fs/promises';
import { settings as settingsFor } from './config.js';
import { durableRows } from './durable.js';
import { millionRows, startupRows } from './footprint.js';
import { passThroughRows } from './passThrough.js';
import { postgresRows, postgresUnknownKeyRows } from './postgres.js';
import { installCleanup, stopAll } from './proc.js';
import { proxyRows } from './proxy.js';
import { proxyModelRows } from './proxyModel.js';
import { publishToReadme } from './readme.js';
import { type BenchResults, describeMachine, resultsFile, thisMachine } from './results.js';
import { notAvailable, type Row, renderTable } from './table.js';
import { judge, TARGETS } from './targets.js';
import { throughputRows } from './throughput.js';

/**
 * `--only WORD[,WORD…]`: the parts whose name holds one of the words, printed and written to nothing (a full run
 * stands alone).
 */
const only = process.argv.includes('--only')
  ? process.argv[process.argv.indexOf('--only') + 1]?.split(',')
  : undefined;

/** Runs one part of the benchmark; a part that throws becomes an n/a row instead of ending the run. */
async function section(name: string, produce: () => Promise<Row[]>): Promise<Row[]> {
  if (only !== undefined && !only.some((word) => name.includes(word))) return [];
  const started = performance.now();
  process.stderr.write(`bench: ${name}...`);
  try {
    return await produce();
  } catch (error) {
    return [notAvailable(name, (error as Error).message)];
  } finally {
    process.stderr.write(` ${((performance.now() - started) / 1_000).toFixed(1)} s\n`);
  }
}

async function validationRows(calls: number): Promise<Row[]> {
  const { measureValidation } = await import('./validate.js');
  return [
    judge(
      { name: 'validateRequest, parsed body', value: measureValidation(calls), unit: 'µs' },
      TARGETS.validation,
    ),
    { name: 'validateRequest, raw JSON text body', value: measureValidation(calls, true), unit: 'µs' },
  ];
}

async function main(): Promise<void> {
  const settings = settingsFor(process.argv.includes('--quick'));
  installCleanup();
  const started = performance.now();
  const machine = thisMachine(); // taken before the run: its load average is the other work on the machine
  const rows: Row[] = [];
  try {
    rows.push(
      ...(await section('in-memory throughput vs ceiling and Prism', () => throughputRows(settings))),
    );
    rows.push(...(await section('durable file store', () => durableRows(settings))));
    rows.push(...(await section('PostgreSQL capacity', () => postgresRows(settings))));
    rows.push(...(await section('PostgreSQL beside unknown keys', () => postgresUnknownKeyRows(settings))));
    rows.push(...(await section('start-up', () => startupRows(settings))));
    rows.push(...(await section('1M groups', () => millionRows(settings))));
    rows.push(...(await section('validation', () => validationRows(settings.validationCalls))));
    rows.push(...(await section('proxy', () => proxyRows(settings))));
    rows.push(...(await section('proxy pass-throughs', () => passThroughRows(settings))));
    rows.push(...(await section('proxy reference model', () => proxyModelRows(settings))));
  } finally {
    await stopAll();
  }
  const seconds = Math.round((performance.now() - started) / 1_000);
  const results: BenchResults = {
    date: new Date().toISOString(),
    node: process.version,
    machine,
    seconds,
    settings,
    rows,
  };
  console.log(
    `user-group-mock benchmark (${settings.quick ? 'quick' : 'full'}, ${settings.connections} connections, ` +
      `${settings.rounds} round(s) of ${settings.slices} ABBA slice(s); ${describeMachine(results)}; ${seconds} s)\n`,
  );
  console.log(renderTable(rows));
  if (only !== undefined) return;
  const file = resultsFile(settings.quick);
  await writeFile(file, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nwritten: ${file}`);
  // Only a full run stands for the README's figures; a quick one is a smoke test of the benchmark itself.
  if (!settings.quick) publishToReadme(results);
}

await main();
