// opkg package versions (OpenWrt: '1.31.1-1', '2019.78-2', '2020-06-03-bb8b1dd7-1', '1:2.4-3') compared as opkg does
// (libopkg/pkg_version.c): an optional numeric epoch before ':', the revision after the last '-', and each part by
// dpkg's verrevcmp ('~' before everything, letters before other characters, digit runs as numbers). Unlike dpkg,
// opkg does not require the upstream part to start with a digit. Used for OSV-format records of the 'OpenWrt'
// ecosystem, the only way OpenWrt advisory data can be imported (OSV has no OpenWrt ecosystem).
import { verrevcmp } from './version-dpkg.js';
import type { VersionScheme } from './version.js';

export function parseOpkgVersion(v: string): { epoch: number; version: string; revision: string } | undefined {
  const text = v.trim();
  if (text === '' || /\s/.test(text)) return undefined;
  const colon = /^(\d+):(.*)$/.exec(text);
  const rest = colon ? colon[2]! : text;
  const dash = rest.lastIndexOf('-');
  const version = dash >= 0 ? rest.slice(0, dash) : rest;
  if (version === '') return undefined;
  return { epoch: colon ? Number(colon[1]) : 0, version, revision: dash >= 0 ? rest.slice(dash + 1) : '' };
}

export const opkgScheme: VersionScheme = {
  id: 'opkg',
  compare(a, b) {
    const va = parseOpkgVersion(a);
    const vb = parseOpkgVersion(b);
    if (!va || !vb) return undefined;
    if (va.epoch !== vb.epoch) return va.epoch - vb.epoch;
    return verrevcmp(va.version, vb.version) || verrevcmp(va.revision, vb.revision);
  },
};
