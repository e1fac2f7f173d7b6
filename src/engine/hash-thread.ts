// The thread that computes a large image's reported digests (SHA-1 and MD5) for hash.ts's hashFileAside: each call
// names a file, which is read and hashed here, on the other core, while the engine's thread unpacks the image.
import { answerTasks } from './task-thread-port.js';
import { hashFile, type HashAlgorithm } from './hash.js';

export interface HashMessage {
  path: string;
  algorithms: HashAlgorithm[];
}

answerTasks<HashMessage>((message) => hashFile(message.path, message.algorithms));
