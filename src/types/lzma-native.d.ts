// Minimal typings for the parts of lzma-native Firmscope uses (the package ships none).
declare module 'lzma-native' {
  import type { Transform } from 'node:stream';
  export interface LzmaFilter {
    /** a filter's name, as the binding gives it (FILTER_LZMA1: 'LZMA_FILTER_LZMA1') */
    id: string;
    options?: { dictSize?: number; lc?: number; lp?: number; pb?: number; preset?: number };
  }
  export interface StreamOptions {
    memlimit?: number;
    flags?: number;
    filters?: LzmaFilter[];
    preset?: number;
    check?: number;
    synchronous?: boolean;
    bufsize?: number;
  }
  export function createStream(
    coder: 'autoDecoder' | 'streamDecoder' | 'aloneDecoder' | 'rawDecoder' | 'easyEncoder' | 'aloneEncoder' | 'rawEncoder',
    options?: StreamOptions,
  ): Transform;
  export function compress(input: Buffer | string, options?: StreamOptions | number): Promise<Buffer>;
  export function decompress(input: Buffer, options?: StreamOptions): Promise<Buffer>;
  export const FILTER_LZMA1: string;
  export const FILTER_LZMA2: string;
  export const CONCATENATED: number;
  export const TELL_NO_CHECK: number;
  export const PRESET_EXTREME: number;
  export const CHECK_NONE: number;
  export const CHECK_CRC32: number;
}
