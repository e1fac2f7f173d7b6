// The analysis stages run after unpacking, in order (later ones see what earlier ones added).
// Adding a stage is one file plus one line here.
import type { Analyzer } from './analyzer.js';
import { binariesAnalyzer } from './binaries/binaries.analyzer.js';
import { cryptoAnalyzer } from './crypto/analyzer.js';
import { inventoryAnalyzer } from './inventory/inventory.analyzer.js';
import { malwareAnalyzer } from './malware/malware.analyzer.js';
import { vulnerabilityMatcherAnalyzer } from './vulns/vulnerability-matcher.analyzer.js';
import { weaknessesAnalyzer } from './weaknesses/weaknesses.analyzer.js';

export const analyzers: Analyzer[] = [
  inventoryAnalyzer, // first: vulnerability matching and crypto use its components
  vulnerabilityMatcherAnalyzer, // after inventory: matches its components
  // crypto: after inventory and vulnerability matching (links its assets to their components).
  cryptoAnalyzer,
  binariesAnalyzer, // hardening and unsafe functions of ELF/PE binaries; needs nothing from the others
  malwareAnalyzer, // reads each file once with the YARA-X rules and checks known-bad hashes
  weaknessesAnalyzer, // after crypto: its private keys are crypto findings, not repeated here
];
