// `redocly lint` with the arguments given: its output and exit code as they are, but for the notice Redocly prints
// on every run under Node 20 (see NodeNoticeFilter).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { NodeNoticeFilter, redoclyBin } from './redocly.js';

const lint = spawn(process.execPath, [redoclyBin(), 'lint', ...process.argv.slice(2)], {
  env: {
    ...process.env,
    REDOCLY_TELEMETRY: 'off',
    REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
    ...(process.stderr.isTTY ? { FORCE_COLOR: '1' } : {}),
  },
  stdio: ['ignore', 'inherit', 'pipe'],
});
const filter = new NodeNoticeFilter((text) => process.stderr.write(text));
lint.stderr.setEncoding('utf8').on('data', (chunk: string) => filter.push(chunk));
const [code] = await once(lint, 'close');
filter.end();
process.exitCode = code ?? 1;
