// Writes docs/formats.md from the registry's handlers (their id, kind, magics and doc fields). Run it after adding
// or changing a handler: `npx tsx scripts/formats-doc.ts`. test/engine/unpack/formats-doc.test.ts fails while it is stale.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { formatsDoc } from '../src/engine/unpack/formats-doc.js';
import { handlers } from '../src/engine/unpack/registry.js';

const target = fileURLToPath(new URL('../docs/formats.md', import.meta.url));
writeFileSync(target, formatsDoc(handlers));
console.log(`wrote ${target} (${handlers.length} formats)`);
