import { writeFileSync } from 'node:fs';
import { generatedTypes, generateTypes } from './types.js';

for (const { document, output } of generatedTypes) {
  writeFileSync(output, await generateTypes(document));
  console.log(`user-group-mock: wrote ${output.pathname}`);
}
