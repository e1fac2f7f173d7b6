// Embedded web servers: their Server-header tokens carry the version.
import type { VersionSignature } from '../signature.js';
import { banner } from './helpers.js';

export const webSignatures: VersionSignature[] = [
  {
    id: 'lighttpd',
    name: 'lighttpd',
    type: 'application',
    cpe: { vendor: 'lighttpd', product: 'lighttpd' },
    purl: { name: 'lighttpd' },
    patterns: [banner('lighttpd/', /lighttpd\/(1\.\d+\.\d+)(?:-devel-\w+)?[\0 \r\n]/)],
  },
  {
    id: 'nginx',
    name: 'nginx',
    type: 'application',
    cpe: { vendor: 'f5', product: 'nginx' },
    purl: { name: 'nginx' },
    patterns: [banner('nginx/', /nginx\/(\d+\.\d+\.\d+)[\0 \r\n]/)],
  },
  {
    id: 'uhttpd',
    name: 'uhttpd',
    type: 'application',
    purl: { name: 'uhttpd', namespace: 'openwrt' },
    files: ['uhttpd'],
    // uhttpd has no release numbers (OpenWrt git snapshots); its version comes from the package database.
    patterns: [{ needle: 'uhttpd', regex: /\0uhttpd\0|uhttpd -f -h/, presence: true, confidence: 0.6, hintOnly: true }],
  },
  {
    id: 'mini_httpd',
    name: 'mini_httpd',
    type: 'application',
    cpe: { vendor: 'acme', product: 'mini_httpd' },
    purl: { name: 'mini_httpd' },
    patterns: [banner('mini_httpd/', /mini_httpd\/(1\.\d+[a-z]?) \d{1,2}[A-Z][a-z]{2}\d{4}/)],
  },
  {
    id: 'thttpd',
    name: 'thttpd',
    type: 'application',
    cpe: { vendor: 'acme', product: 'thttpd' },
    purl: { name: 'thttpd' },
    patterns: [banner('thttpd/', /(?<![\w_])thttpd\/(2\.\d+[a-z]?) \d{1,2}[a-z]{3}\d{4}/i)],
  },
  {
    id: 'boa',
    name: 'boa',
    type: 'application',
    cpe: { vendor: 'boa', product: 'boa' },
    purl: { name: 'boa' },
    patterns: [banner('Boa/', /\0Boa\/(0\.\d+\.\d+(?:rc\d+)?)\0/)],
  },
  {
    id: 'goahead',
    name: 'goahead',
    type: 'application',
    cpe: { vendor: 'embedthis', product: 'goahead' },
    purl: { name: 'goahead' },
    patterns: [banner('GoAhead', /GoAhead(?:-Webs|-http)?\/(\d+\.\d+\.\d+)[\0 ]/)],
  },
];
