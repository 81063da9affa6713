import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The `redocly` command of the installed @redocly/cli. */
export function redoclyBin(): string {
  const manifest = createRequire(import.meta.url).resolve('@redocly/cli/package.json');
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> };
  return join(dirname(manifest), bin.redocly ?? 'bin/cli.js');
}

const boxTop = /^\s*╔═+╗\s*$/u;
const boxBottom = /^\s*╚═+╝\s*$/u;
const nodeNotice = /Node\.js \d+ support is ending/;

/**
 * Passes Redocly's output on as it comes, line by line, but for the boxed notice Redocly prints on every run under
 * Node 20 ("Node.js 20 support is ending"): that box and the blank line after it are dropped. A box is held back
 * only until it closes; any other box, and every finding, goes through unchanged.
 */
export class NodeNoticeFilter {
  #partial = '';
  #box: string[] | undefined;
  #dropBlank = false;

  constructor(private readonly write: (text: string) => void) {}

  push(chunk: string): void {
    const lines = (this.#partial + chunk).split('\n');
    this.#partial = lines.pop() ?? '';
    for (const line of lines) this.#line(line);
  }

  end(): void {
    if (this.#box !== undefined) this.write(this.#box.map((held) => `${held}\n`).join(''));
    this.#box = undefined;
    if (this.#partial !== '') this.write(this.#partial);
    this.#partial = '';
  }

  #line(line: string): void {
    const dropBlank = this.#dropBlank;
    this.#dropBlank = false;
    if (this.#box === undefined && boxTop.test(line)) this.#box = [];
    if (this.#box === undefined) {
      if (!(dropBlank && line.trim() === '')) this.write(`${line}\n`);
      return;
    }
    this.#box.push(line);
    if (!boxBottom.test(line)) return;
    const box = this.#box;
    this.#box = undefined;
    if (nodeNotice.test(box.join('\n'))) this.#dropBlank = true;
    else this.write(box.map((held) => `${held}\n`).join(''));
  }
}

/** `output` as NodeNoticeFilter passes it on. */
export function withoutNodeNotice(output: string): string {
  let kept = '';
  const filter = new NodeNoticeFilter((text) => {
    kept += text;
  });
  filter.push(output);
  filter.end();
  return kept;
}
