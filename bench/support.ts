// Shared by the benchmarks: an analysis context over a file index (what runScan builds, without an image to hash or
// unpack), so one analyzer can be timed alone over a folder.
import type { AnalysisContext } from '../src/engine/analyzer.js';
import type { FileIndex } from '../src/engine/file-index.js';

/** An empty context over `index`, for the image (or folder) named `fileName`. */
export function benchContext(index: FileIndex, fileName: string): AnalysisContext {
  return {
    image: { fileName, size: 0, hashes: { sha256: '', sha1: '', md5: '' }, type: 'directory' },
    index,
    components: [],
    findings: [],
    cryptoAssets: [],
    binaries: [],
    problems: [],
    signal: new AbortController().signal,
    progress: () => {},
  };
}
