// The thread that computes crypto facts beside the engine's thread (facts-sharing.ts sends it the files from the
// last one back; file-facts.ts does the work). It starts once the image is unpacked, while the engine's thread runs
// the stages before crypto, so it runs behind that thread (thread-priority.ts): on the core the engine's thread
// leaves idle, not on its share. Calls are answered one at a time, in order; a file the engine's thread has already
// taken is skipped.
import { answerTasks } from '../task-thread-port.js';
import { lowerThisThreadPriority } from '../thread-priority.js';
import { cryptoFactsWork, type CryptoFactsMessage } from './file-facts.js';

lowerThisThreadPriority();

answerTasks<CryptoFactsMessage>((message) => cryptoFactsWork(message));
