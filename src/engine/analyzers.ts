// The analysis stages run after unpacking, in order (later ones see what earlier ones added).
// Adding a stage is one file plus one line here.
import type { Analyzer } from './analyzer.js';

export const analyzers: Analyzer[] = [];
