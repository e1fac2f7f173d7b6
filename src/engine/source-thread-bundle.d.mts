/** The bundle of the TypeScript module at `entry` (a path), built when missing or older than its sources. */
export function sourceThreadBundle(entry: string, cacheDir?: string): Promise<string>;
