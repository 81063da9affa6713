import { readFileSync } from 'node:fs';

/**
 * An example file of docs/examples as the docs show it, in a fenced TypeScript block: its import of the sources
 * (`'../../../src/index.js'`, so that the tests run it as written) spelled as the package name, `user-group-mock`,
 * and its import of a test-runner entry point (`'../../../src/testing/vitest.js'`) as `user-group-mock/vitest`.
 */
export function publishedExample(example: URL): string {
  const published = readFileSync(example, 'utf8')
    .replaceAll("'../../../src/index.js'", "'user-group-mock'")
    .replaceAll(/'\.\.\/\.\.\/\.\.\/src\/testing\/(\w+)\.js'/g, "'user-group-mock/$1'");
  if (published.includes('../'))
    throw new Error(`user-group-mock: ${example.pathname} imports a relative path`);
  return `\`\`\`ts\n${published}\`\`\``;
}
