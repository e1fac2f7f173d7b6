// The build's digest of the engine's compiled code (dist/engine/.code-digest), run by `npm run build` after tsc: a
// scan then reads one small file instead of hashing the folder's ~340 files (src/engine/engine-digest.ts).
import { writeCodeDigest } from '../dist/engine/engine-digest.js';

writeCodeDigest();
