import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { NodeNoticeFilter, withoutNodeNotice } from '../../../scripts/redocly.js';
import { useTempDir } from '../../support/tempDir.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const tempDir = useTempDir();

/** What `redocly lint` writes to stderr under Node 20, as captured from a run. */
const notice = [
  '',
  '    ╔═════════════════════════════════════════════════════════════════╗',
  '    ║                                                                 ║',
  '    ║  Deprecation warning: Node.js 20 support is ending              ║',
  '    ║                                                                 ║',
  '    ║  Node.js 20 reached end-of-life on April 30, 2026.              ║',
  '    ║  Future Redocly CLI releases require Node.js 22.12.0 or later.  ║',
  '    ║  You are using Node.js v20.20.2.                                ║',
  '    ║                                                                 ║',
  '    ║  Update Node.js: https://nodejs.org/en/download                 ║',
  '    ║                                                                 ║',
  '    ╚═════════════════════════════════════════════════════════════════╝',
  '',
  '',
].join('\n');
const report = [
  'validating openapi/user-group-service.yaml...',
  'openapi/user-group-service.yaml: validated in 140ms',
  '',
  '❌ Validation failed with 1 error.',
  '',
].join('\n');
const otherBox = ['  ╔════╗', '  ║ hi ║', '  ╚════╝', '', ''].join('\n');

describe("Redocly's output as npm run lint:openapi shows it", () => {
  it('drops the boxed Node.js notice and the blank line after it, and keeps every other line', () => {
    expect(withoutNodeNotice(notice + report)).toBe(`\n${report}`);
  });

  it('keeps any other box, and drops the notice however the output is cut into chunks', () => {
    expect(withoutNodeNotice(otherBox + report)).toBe(otherBox + report);
    const chunks = (notice + report).match(/[\s\S]{1,7}/g) ?? [];
    let kept = '';
    const filter = new NodeNoticeFilter((text) => {
      kept += text;
    });
    for (const chunk of chunks) filter.push(chunk);
    filter.end();
    expect(kept).toBe(`\n${report}`);
  });

  it('keeps every finding and the exit code of a document that fails lint', async () => {
    const document = join(tempDir(), 'broken.yaml');
    writeFileSync(document, 'openapi: 3.1.0\ninfo:\n  version: "1"\npaths: {}\n');
    const lint = spawn(
      process.execPath,
      ['--import', 'tsx', 'scripts/lint-openapi.ts', document, '--config', 'openapi/redocly.yaml'],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    for (const stream of [lint.stdout, lint.stderr])
      stream.setEncoding('utf8').on('data', (chunk: string) => {
        output += chunk;
      });
    const [code] = await once(lint, 'close');
    expect(output).toContain('The field `title` must be present on this level.');
    expect(output).toContain('Validation failed with 3 errors.');
    expect(output).not.toContain('support is ending');
    expect(code).toBe(1);
  });
});
