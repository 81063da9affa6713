import { writeFileSync } from 'node:fs';
import { generatedTypesUrl, generateTypes } from './types.js';

writeFileSync(generatedTypesUrl, await generateTypes());
console.log(`user-group-mock: wrote ${generatedTypesUrl.pathname}`);
