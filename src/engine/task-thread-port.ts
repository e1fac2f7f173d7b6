// The thread side of task-thread.ts: answers each call with what `handle` returns (or its error), one call at a
// time in the order they came, so that a thread holds one file's work at once whatever the queue.
import { parentPort } from 'node:worker_threads';
import type { TaskEnvelope, TaskReply } from './task-thread.js';

export function answerTasks<M>(handle: (message: M) => unknown): void {
  const port = parentPort!;
  let queue: Promise<void> = Promise.resolve();
  port.on('message', ({ id, message }: TaskEnvelope<M>) => {
    queue = queue.then(async () => {
      try {
        const value = await handle(message);
        if (id !== undefined) port.postMessage({ id, value } satisfies TaskReply);
      } catch (error) {
        if (id !== undefined) port.postMessage({ id, error: error instanceof Error ? error.message : String(error) } satisfies TaskReply);
      }
    });
  });
}
