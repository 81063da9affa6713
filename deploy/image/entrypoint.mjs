// The container's entry point (PID 1): `user-group-mock <args>`, after two checks that only a container needs.
// - The mock listens on 0.0.0.0 here, and beyond loopback the admin API needs an admin key: when neither
//   USER_GROUP_MOCK_ADMIN_KEY nor --admin-key gives one, a random key is made and printed once, so the container
//   starts secure and its owner can still reach /__admin (the keyless probe /__admin/health/live needs none).
// - The database folder must be writable by the container's user (uid 1000): a host folder owned by root is not,
//   and the message says how to fix it rather than leaving a bare EACCES.
// The mock handles SIGTERM itself (in-flight requests finish, the file is written, exit 0), as PID 1 too.
import { randomBytes } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { dirname } from 'node:path';

const args = process.argv.slice(2);
const flag = (name) => {
  const at = args.findIndex((arg) => arg === `--${name}` || arg.startsWith(`--${name}=`));
  if (at === -1) return undefined;
  const arg = args[at];
  return arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : args[at + 1];
};
const serves = args[0] === 'serve' || args[0] === 'proxy';

if (serves && (process.env.USER_GROUP_MOCK_ADMIN_KEY ?? '') === '' && flag('admin-key') === undefined) {
  const key = randomBytes(24).toString('base64url');
  process.env.USER_GROUP_MOCK_ADMIN_KEY = key;
  process.stderr.write(
    `user-group-mock: no admin key was given, so this container made one: send "X-Admin-Key: ${key}" on /__admin calls (set USER_GROUP_MOCK_ADMIN_KEY to choose it)\n`,
  );
}

const db = args[0] === 'serve' ? (flag('db') ?? process.env.USER_GROUP_MOCK_DB) : undefined;
if (db !== undefined && !/^postgres(ql)?:/.test(db)) {
  const folder = dirname(db);
  try {
    accessSync(folder, constants.W_OK);
  } catch {
    process.stderr.write(
      `user-group-mock: ${folder} is not writable by this container's user (uid ${process.getuid?.()}), so ${db} cannot be kept. Mount a folder that uid 1000 may write: with podman add :U to the volume (-v "$PWD/data:/data:U"), with docker run "chown 1000 data" on the host first, or use a named volume (-v user-group-mock-data:/data)\n`,
    );
    process.exit(1);
  }
}

await import('./dist/bin/main.js');
