import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = fileURLToPath(new URL('../../src/', import.meta.url));

/**
 * The layers of `src/`, lowest first: a module may import from its own layer's folders (without a cycle between
 * folders) and from any lower layer, never from a higher one. A file directly in `src/` is a layer of its own
 * (`<name>.ts`). docs/architecture.md draws the same order.
 */
const layers: readonly (readonly string[])[] = [
  ['spec', 'errors.ts', 'result.ts'],
  ['validate', 'client'],
  ['domain'],
  ['model'],
  ['store'],
  ['runtime'],
  ['pipeline'],
  ['http', 'contract', 'conform'],
  ['admin'],
  ['ui'],
  ['proxy'],
  ['mockServer.ts'],
  ['cli'],
  ['index.ts'],
  ['testing'],
];

const rank = new Map(layers.flatMap((names, i) => names.map((name) => [name, i] as const)));

/** The layer unit of a file under src/: its first folder, or the file's own name when it sits in src/ itself. */
const unitOf = (file: string): string => file.split('/')[0] as string;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [relative(src, path).split('\\').join('/')] : [];
  });
}

interface Import {
  readonly from: string;
  readonly to: string;
  /** `src/http/app.ts imports ../errors.js` */
  readonly text: string;
}

/** Every relative import and re-export of every file under src/ (static, `import type` and dynamic alike). */
function relativeImports(): Import[] {
  const pattern = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm;
  return sourceFiles(src).flatMap((file) => {
    const text = readFileSync(join(src, file), 'utf8');
    return [...text.matchAll(pattern)].map((match) => {
      const specifier = match[1] as string;
      const to = normalize(join(dirname(file), specifier))
        .split('\\')
        .join('/')
        .replace(/\.js$/, '.ts');
      return { from: file, to, text: `src/${file} imports ${specifier}` };
    });
  });
}

/**
 * The cycles between the units `unitOf` names (a folder, a file), each named by one witness import per step, so the
 * message names what to change.
 */
function cyclesBetween(imports: readonly Import[], unitOf: (file: string) => string): string[] {
  const edges = new Map<string, Map<string, string>>();
  for (const i of imports) {
    const [from, to] = [unitOf(i.from), unitOf(i.to)];
    if (from === to) continue;
    if (!edges.has(from)) edges.set(from, new Map());
    edges.get(from)?.set(to, i.text);
  }
  // Depth first, each unit entered once: an import of a unit still on the path closes a cycle.
  const cycles: string[] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (unit: string): void => {
    path.push(unit);
    for (const next of (edges.get(unit) ?? new Map<string, string>()).keys()) {
      const at = path.indexOf(next);
      if (at !== -1) {
        const loop = [...path.slice(at), next];
        cycles.push(
          loop
            .slice(1)
            .map((to, k) => edges.get(loop[k] as string)?.get(to))
            .join('; '),
        );
      } else if (!done.has(next)) visit(next);
    }
    path.pop();
    done.add(unit);
  };
  for (const unit of edges.keys()) if (!done.has(unit)) visit(unit);
  return cycles;
}

describe('the layers of src/', () => {
  const imports = relativeImports();

  it('finds the imports it checks', () => {
    // A pattern that matched nothing would pass every other test here.
    expect(imports.length).toBeGreaterThan(100);
    expect(imports.some((i) => i.from === 'http/app.ts' && i.to === 'errors.ts')).toBe(true);
  });

  it('places every folder and top-level file of src/ in a layer', () => {
    const units = [...new Set(sourceFiles(src).map(unitOf))];
    expect(units.filter((unit) => !rank.has(unit))).toEqual([]);
  });

  it('has no import that points up to a higher layer', () => {
    const upward = imports
      .filter((i) => (rank.get(unitOf(i.to)) ?? -1) > (rank.get(unitOf(i.from)) ?? -1))
      .map((i) => `${i.text} (${unitOf(i.from)} is below ${unitOf(i.to)})`);
    expect(upward).toEqual([]);
  });

  it('has no cycle between folders', () => {
    expect(cyclesBetween(imports, unitOf)).toEqual([]);
  });

  it('has no cycle between files, type-only and dynamic imports included', () => {
    expect(cyclesBetween(imports, (file) => file)).toEqual([]);
  });

  it('would name a cycle between two files', () => {
    // The check above on a made-up pair, so that a check that finds nothing is not mistaken for a clean tree.
    const pair: Import[] = [
      { from: 'store/a.ts', to: 'store/b.ts', text: 'src/store/a.ts imports ./b.js' },
      { from: 'store/b.ts', to: 'store/a.ts', text: 'src/store/b.ts imports ./a.js' },
    ];
    expect(cyclesBetween(pair, (file) => file)).toEqual([
      'src/store/a.ts imports ./b.js; src/store/b.ts imports ./a.js',
    ]);
  });

  it("keeps the proxy apart from the mock's state: src/proxy imports no key ring, no mock context and no store", () => {
    // Its journal (store/journal.ts) is the proxy's own; these modules are the mock's keys, context and stores.
    const mockState = [
      'runtime/keyRing.ts',
      'runtime/mockContext.ts',
      'store/store.ts',
      'store/openStore.ts',
      'store/embeddedStore.ts',
      'store/persistence.ts',
    ];
    // A module renamed away would leave the rule checking nothing.
    expect(mockState.filter((file) => !sourceFiles(src).includes(file))).toEqual([]);
    const reached = imports
      .filter((i) => unitOf(i.from) === 'proxy')
      .filter((i) => mockState.includes(i.to) || i.to.startsWith('store/postgres/'))
      .map((i) => i.text);
    expect(reached).toEqual([]);
  });

  it('keeps PostgreSQL inside src/store: nothing above it imports src/store/postgres, nothing else imports pg', () => {
    const postgres = imports
      .filter((i) => i.to.startsWith('store/postgres/') && unitOf(i.from) !== 'store')
      .map((i) => i.text);
    expect(postgres).toEqual([]);
    const driver = sourceFiles(src)
      .filter((file) => !file.startsWith('store/postgres/'))
      .filter((file) =>
        /(?:\bfrom\s*|\bimport\s*\(\s*)['"]pg['"]/.test(readFileSync(join(src, file), 'utf8')),
      );
    expect(driver).toEqual([]);
  });
});
