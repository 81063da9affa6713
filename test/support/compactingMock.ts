/**
 * A child process for the crash tests: the mock on `<db>`, compacting after `<compactAfter>` records, with the
 * CLI's first stdout line and its SIGTERM behaviour. Usage: `node --import tsx compactingMock.ts DB N`.
 */
import { createMockServer } from '../../src/index.js';

const [db, compactAfter] = process.argv.slice(2);
const server = await createMockServer({ db, compactAfter: Number(compactAfter) });
process.stdout.write(`user-group-mock listening on ${server.url}\n`);
process.once('SIGTERM', () => {
  server.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
