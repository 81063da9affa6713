// Bundles the command line (dist/cli/main.js and the modules it imports) into dist/bin/, so that starting the mock
// loads a few files instead of resolving and linking about fifty ES modules one by one: start-up is a product
// feature (CI starts the mock thousands of times a day), and module loading was most of the mock's share of it.
// Runs after tsc. The bundle sits at the same depth as the other folders of dist/, so the paths modules compute from
// import.meta.url (the documents, the contracts, the precompiled checks) resolve alike from both. Dependencies loaded
// only on some paths stay external and are loaded from node_modules when needed; `verify` is a chunk of its own.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

const outdir = new URL('../dist/bin/', import.meta.url).pathname;
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: [new URL('../dist/cli/main.js', import.meta.url).pathname],
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['ajv', 'ajv-formats', 'pino', 'yaml', 'undici', 'pg', '@pact-foundation/pact'],
  logLevel: 'warning',
});
