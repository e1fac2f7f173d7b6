// Writes src/client/openapi.ts, the typed client's path and schema types, from the service's OpenAPI document.
// Run it after changing a route schema: `npx tsx scripts/client-types.ts`. test/client/openapi-types.test.ts
// fails while it is stale.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { clientTypesSource } from './client-types-source.js';
import { describeApi } from '../src/server.js';

const target = fileURLToPath(new URL('../src/client/openapi.ts', import.meta.url));
writeFileSync(target, await clientTypesSource(await describeApi()));
console.log(`wrote ${target}`);
