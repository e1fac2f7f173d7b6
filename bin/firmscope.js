#!/usr/bin/env node
// Entry point of the `firmscope` command: runs the compiled CLI (built by `npm run build`, which `npm ci` runs).
import '../dist/cli/main.js';
