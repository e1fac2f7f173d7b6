// The thread that computes crypto facts beside the engine's thread at the crypto stage's turn (facts-sharing.ts
// sends it the files from the last one back; file-facts.ts does the work). Calls are answered one at a time, in
// order; a file the engine's thread has already taken is skipped.
import { answerTasks } from '../task-thread-port.js';
import { cryptoFactsWork, type CryptoFactsMessage } from './file-facts.js';

answerTasks<CryptoFactsMessage>((message) => cryptoFactsWork(message));
