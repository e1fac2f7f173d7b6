// What the detectors report for one file, before assets and findings are built from it.
import type { AlgorithmSpec } from './libraries.js';
import type { Material } from './material.js';
import type { ProtocolName } from './protocols.js';

export interface AlgorithmHit extends AlgorithmSpec {
  /** 'constant-table', 'library-symbol', 'protocol-string', 'config', 'certificate', 'key', ... */
  method: string;
  /** What matched, for evidence: 'AES S-box', 'symbol RC4_set_key', 'cipher suite TLS_RSA_WITH_RC4_128_SHA'. */
  what: string;
  offset?: number;
  kind: 'crypto' | 'non-crypto';
  library?: string;
  protocol?: ProtocolName;
  /** The key verifies firmware (Secure Boot, signed updates): migrate to stateful hash-based signatures. */
  firmwareSigning?: boolean;
  /** Number of matches in the file (constants). */
  count?: number;
}

export interface LibraryHit {
  id: string;
  name: string;
  version?: string;
  markers: string[];
  functions: string[];
  algorithms: AlgorithmSpec[];
  offset: number;
}

/** An algorithm a protocol uses, with the protocol name or cipher suite that implies it (for evidence). */
export interface ProtocolAlgorithm extends AlgorithmSpec {
  via?: string;
}

export interface ProtocolHit {
  protocol: ProtocolName;
  method: 'protocol-string' | 'config';
  versions: string[];
  cipherSuites: string[];
  /** Algorithm names as the protocol spells them ('curve25519-sha256', 'aes128-sha256-modp2048', 'sha256,rsa2048'). */
  names: string[];
  algorithms: ProtocolAlgorithm[];
  /** Settings worth showing ('PermitRootLogin', 'Protocol', 'check_signature', ...). */
  settings?: Record<string, string>;
  offset?: number;
}

export interface FileDetections {
  path: string;
  algorithms: AlgorithmHit[];
  libraries: LibraryHit[];
  protocols: ProtocolHit[];
  materials: Material[];
}

export const emptyDetections = (path: string): FileDetections => ({ path, algorithms: [], libraries: [], protocols: [], materials: [] });
