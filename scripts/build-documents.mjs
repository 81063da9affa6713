// Writes each openapi/*.yaml as dist/openapi/*.json, so the built package never parses YAML at start-up.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'yaml';

const source = new URL('../openapi/', import.meta.url);
const target = new URL('../dist/openapi/', import.meta.url);
mkdirSync(target, { recursive: true });
for (const name of readdirSync(source).filter((n) => n.endsWith('.yaml') && n !== 'redocly.yaml')) {
  const document = parse(readFileSync(new URL(name, source), 'utf8'));
  writeFileSync(new URL(name.replace(/\.yaml$/, '.json'), target), JSON.stringify(document));
}
