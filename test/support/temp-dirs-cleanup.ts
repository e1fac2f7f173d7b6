// A setup file (vitest.config.ts): runs before each test file, so this afterAll belongs to every file, shared
// modules or not, and removes the folders that file made through tempDir (temp-dirs.ts).
import { afterAll } from 'vitest';
import { removeTempDirs } from './temp-dirs.js';

afterAll(removeTempDirs);
