// npm run image: builds user-group-mock:<version> and :latest with podman or docker (scripts/containerImage.ts).
import { buildImage } from './containerImage.js';

try {
  buildImage();
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exitCode = 1;
}
