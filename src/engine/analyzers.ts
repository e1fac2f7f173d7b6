// The analysis stages run after unpacking, in order (later ones see what earlier ones added).
// Adding a stage is one file plus one line here.
import type { Analyzer } from './analyzer.js';
import { cryptoAnalyzer } from './crypto/analyzer.js';

export const analyzers: Analyzer[] = [
  // crypto: after inventory and vulnerability matching (links its assets to their components).
  cryptoAnalyzer,
];
