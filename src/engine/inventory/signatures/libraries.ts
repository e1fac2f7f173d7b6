// Common C libraries: compression, images, XML/JSON, databases, regex, event loops, HTTP/2, DNS, media.
import type { VersionSignature } from '../signature.js';
import { banner, standalone } from './helpers.js';

const lib = (id: string, name: string, vendor: string, product: string, files: string[], marker: string, version: RegExp): VersionSignature => ({
  id,
  name,
  type: 'library',
  cpe: { vendor, product },
  purl: { name: id },
  files,
  patterns: [],
  standalone: [standalone(marker, version)],
});

export const librarySignatures: VersionSignature[] = [
  {
    id: 'zlib',
    name: 'zlib',
    type: 'library',
    cpe: { vendor: 'zlib', product: 'zlib' },
    purl: { name: 'zlib' },
    // deflate_copyright / inflate_copyright: ' deflate 1.2.8 Copyright 1995-2013 Jean-loup Gailly and Mark Adler '
    patterns: [banner('flate ', /(?:deflate|inflate) (1\.\d+\.\d+(?:\.\d+)?(?:\.\d+)?) Copyright \d{4}-\d{4} /, 0.95)],
  },
  {
    id: 'libpng',
    name: 'libpng',
    type: 'library',
    cpe: { vendor: 'libpng', product: 'libpng' },
    purl: { name: 'libpng' },
    // png_get_copyright: 'libpng version 1.6.37 - April 14, 2019'
    patterns: [banner('libpng version ', /libpng version (1\.\d+\.\d+)(?:beta\d+|rc\d+)? - [A-Z][a-z]+ \d{1,2}, \d{4}/, 0.95)],
  },
  {
    id: 'libjpeg-turbo',
    name: 'libjpeg-turbo',
    type: 'library',
    cpe: { vendor: 'libjpeg-turbo', product: 'libjpeg-turbo' },
    purl: { name: 'libjpeg-turbo' },
    patterns: [banner('libjpeg-turbo version ', /libjpeg-turbo version (\d+\.\d+\.\d+) \(build \d{8}\)/, 0.95)],
  },
  {
    id: 'libjpeg',
    name: 'libjpeg',
    type: 'library',
    cpe: { vendor: 'ijg', product: 'libjpeg' },
    purl: { name: 'libjpeg' },
    // libjpeg-turbo also carries an IJG JVERSION ('8d  15-Jan-2012') for API emulation: it wins when present.
    excludedBy: ['libjpeg-turbo'],
    patterns: [banner('Thomas G. Lane', /\0(\d+[a-z]?)  \d{1,2}-[A-Z][a-z]{2}-\d{4}\0{1,8}Copyright \(C\) \d{4}, Thomas G\. Lane/, 0.85)],
  },
  {
    id: 'expat',
    name: 'expat',
    type: 'library',
    cpe: { vendor: 'libexpat_project', product: 'libexpat' },
    purl: { name: 'expat' },
    patterns: [banner('expat_', /\0expat_(\d+\.\d+\.\d+)\0/, 0.95)],
  },
  lib('libxml2', 'libxml2', 'xmlsoft', 'libxml2', ['libxml2.so*', 'libxml2*.dll'], 'xmlParse', /^2\.\d+\.\d+$/),
  {
    id: 'sqlite',
    name: 'sqlite',
    type: 'library',
    cpe: { vendor: 'sqlite', product: 'sqlite' },
    purl: { name: 'sqlite' },
    files: ['libsqlite3.so*', 'sqlite3', 'sqlite3.dll'],
    patterns: [],
    standalone: [standalone('sqlite_master', /^3\.\d+\.\d+(?:\.\d+)?$/, 0.7)],
  },
  {
    id: 'libevent',
    name: 'libevent',
    type: 'library',
    cpe: { vendor: 'libevent_project', product: 'libevent' },
    purl: { name: 'libevent' },
    patterns: [banner('-stable', /\0(2\.\d+\.\d+)-stable\0/, 0.7, true), banner('-beta', /\0(2\.\d+\.\d+)-beta\0/, 0.7, true)],
    files: ['libevent*.so*'],
  },
  {
    id: 'pcre',
    name: 'pcre',
    type: 'library',
    cpe: { vendor: 'pcre', product: 'pcre' },
    purl: { name: 'pcre' },
    files: ['libpcre.so*', 'libpcrecpp.so*', 'libpcreposix.so*'],
    patterns: [],
    // pcre_version(): '8.44 2020-02-12'
    standalone: [standalone('pcre_', /^[5-8]\.\d{2} \d{4}-\d{2}-\d{2}$/, 0.75)],
    normalize: (v) => v.split(' ')[0],
  },
  {
    id: 'pcre2',
    name: 'pcre2',
    type: 'library',
    cpe: { vendor: 'pcre', product: 'pcre2' },
    purl: { name: 'pcre2' },
    files: ['libpcre2-*.so*'],
    patterns: [],
    standalone: [standalone('pcre2_', /^10\.\d{2} \d{4}-\d{2}-\d{2}$/, 0.75)],
    normalize: (v) => v.split(' ')[0],
  },
  lib('jansson', 'jansson', 'jansson_project', 'jansson', ['libjansson.so*'], 'json_', /^2\.\d+(?:\.\d+)?$/),
  lib('c-ares', 'c-ares', 'c-ares', 'c-ares', ['libcares.so*'], 'ares_', /^1\.\d+\.\d+$/),
  lib('nghttp2', 'nghttp2', 'nghttp2', 'nghttp2', ['libnghttp2.so*'], 'nghttp2', /^1\.\d+\.\d+$/),
  {
    id: 'ffmpeg',
    name: 'ffmpeg',
    type: 'library',
    cpe: { vendor: 'ffmpeg', product: 'ffmpeg' },
    purl: { name: 'ffmpeg' },
    files: ['ffmpeg', 'ffprobe', 'ffplay', 'libavutil.so*', 'libavcodec.so*', 'libavformat.so*', 'avutil-*.dll'],
    // cmdutils: '%s version ' FFMPEG_VERSION; libavutil: av_version_info() = FFMPEG_VERSION
    patterns: [banner('%s version ', /\0%s version n?(\d+\.\d+(?:\.\d+)?)[\0 ,]/, 0.85, true)],
    standalone: [standalone('FFmpeg', /^n?[1-7]\.\d+(?:\.\d+)?$/)],
  },
];
