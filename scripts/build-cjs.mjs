// Builds the CommonJS entry point, for `require('user-group-mock')` (package.json exports, condition `require`):
// dist/cjs/index.cjs, one bundle of dist/index.js and the modules it imports, and dist/cjs/**/*.d.cts, the
// declarations tsc wrote for dist/, as CommonJS declarations; and dist/cjs/testing/*.cjs, the test-runner entry
// points. Runs after tsc and build-documents.mjs.
// Why a build rather than Node's require(esm): docs/decisions.md, "CommonJS: a bundle beside the ES modules".
//
// The bundle sits at the same depth as the other folders of dist/ (as the command line's does in dist/bin/), so
// the paths modules compute from import.meta.url (the documents, the precompiled checks) resolve alike from both;
// import.meta.url is the bundle's own file URL. Dependencies that ship CommonJS stay external and are required
// from node_modules; lowdb and steno ship only ES modules, which Jest's module system cannot require, so they are
// bundled. Dynamic import() becomes require(), which Jest (without --experimental-vm-modules) also needs.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';

const dist = new URL('../dist/', import.meta.url);
const outdir = new URL('cjs/', dist);
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: [new URL('index.js', dist).pathname],
  outfile: new URL('index.cjs', outdir).pathname,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  supported: { 'dynamic-import': false },
  define: { 'import.meta.url': '__importMetaUrl' },
  banner: { js: "const __importMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  external: ['ajv', 'ajv-formats', 'content-type', 'pg', 'pino', 'undici', 'yaml', '@pact-foundation/pact'],
  logLevel: 'warning',
});

// The test-runner entry points (user-group-mock/vitest, /jest, /testcontainers): each a bundle of its own that
// requires the main bundle (one copy of the mock, so that `instanceof MockControlError` holds across them) and its
// runner or Testcontainers from the test project's node_modules.
const mainEntry = {
  name: 'the main entry point',
  setup(plugin) {
    plugin.onResolve({ filter: /^\.\.\/index\.js$/ }, () => ({ path: '../index.cjs', external: true }));
  },
};
for (const entry of ['vitest', 'jest', 'testcontainers'])
  await build({
    entryPoints: [new URL(`testing/${entry}.js`, dist).pathname],
    outfile: new URL(`testing/${entry}.cjs`, outdir).pathname,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    external: ['vitest', 'testcontainers'],
    plugins: [mainEntry],
    logLevel: 'warning',
  });

/**
 * Copies every declaration file of `from` (a folder of dist/) to `to` as `.d.cts`, with relative specifiers
 * pointing at `.cjs`: TypeScript reads a `.d.ts` of this package (`"type": "module"`) as an ES module, which a
 * CommonJS project under `node16`/`nodenext` resolution may not require; a `.d.cts` is read as CommonJS.
 */
function copyDeclarations(from, to) {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (from.href === dist.href && (entry.name === 'cjs' || entry.name === 'bin')) continue;
      copyDeclarations(new URL(`${entry.name}/`, from), new URL(`${entry.name}/`, to));
    } else if (entry.name.endsWith('.d.ts')) {
      const text = readFileSync(new URL(entry.name, from), 'utf8').replace(
        /((?:from |import\()(['"])\.{1,2}\/[^'"]*)\.js\2/g,
        '$1.cjs$2',
      );
      mkdirSync(to, { recursive: true });
      writeFileSync(new URL(entry.name.replace(/\.d\.ts$/, '.d.cts'), to), text);
    }
  }
}
copyDeclarations(dist, outdir);
