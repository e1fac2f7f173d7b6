// Fault injection on SQLite: see crash-recovery.ts.
import { describeCrashRecovery } from './crash-recovery.js';

describeCrashRecovery('sqlite');
