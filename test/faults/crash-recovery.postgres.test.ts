// Fault injection on PostgreSQL (FIRMSCOPE_TEST_DATABASE_URL, a fresh schema): see crash-recovery.ts.
import { describe, it } from 'vitest';
import { testDialects } from '../support/databases.js';
import { describeCrashRecovery } from './crash-recovery.js';

if (testDialects().includes('postgres')) describeCrashRecovery('postgres');
else describe.skip('crash recovery [postgres] (skipped: FIRMSCOPE_TEST_DATABASE_URL unset)', () => it('needs PostgreSQL', () => undefined));
