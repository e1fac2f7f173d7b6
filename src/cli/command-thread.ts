// `firmscope scan` and `unpack` of a large image run the whole command again in a worker thread: V8 sizes a heap
// when it creates it, so the engine's heap (engine/thread-heap.ts) can only be had by a thread started after it is
// set. On the 64 MB benchmark image that saved 0.2 to 1.3 s of an 8 s scan (README). A small image gains nothing
// from it and would pay the thread's start and the larger heap's page faults (0.02 to 0.2 s more for the 3.9 MB
// OpenWrt image), so it stays on the main thread. The thread prints through the process's standard output and
// error (Node forwards them, all of it before the thread exits) and its exit code becomes the process's. The
// process's other threads then run behind that one (putOtherThreadsBehindThisOne).
import { statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { isMainThread, MessageChannel, workerData, type MessagePort } from 'node:worker_threads';
import { hashFile } from '../engine/hash.js';
import { startModuleWorker } from '../engine/module-worker.js';
import { startEngineThread } from '../engine/thread-heap.js';
import { lowerOtherThreadsPriority } from '../engine/thread-priority.js';
import type { Hashes } from '../engine/types.js';

/** Images from this size on are unpacked and analysed in a thread with the engine's heap. */
export const ENGINE_THREAD_MIN_BYTES = 16 * 1024 * 1024;

/** The command line `firmscope` was started with (main.ts); commands run any other way (the tests) stay where they are. */
let commandLine: readonly string[] | undefined;

export function setCommandLine(args: readonly string[]): void {
  commandLine = args;
}

/**
 * On the main thread of `firmscope`, for an image of ENGINE_THREAD_MIN_BYTES or more: runs this command line again
 * in a thread with the engine's heap, sets the process's exit code from it, and returns true (the caller stops).
 * Otherwise (a small image, already in that thread, or a command not run by main.ts) returns false and the caller
 * runs the command itself. `hashImage`: this thread computes the image's digests meanwhile (imageHashesFromParent).
 */
export async function ranInEngineThread(image: string, options: { hashImage?: boolean } = {}): Promise<boolean> {
  if (!commandLine || !isMainThread || statSync(image).size < ENGINE_THREAD_MIN_BYTES) return false;
  process.exitCode = await runCommandInThread(commandLine, options.hashImage ? image : undefined);
  return true;
}

/** What the main thread sends the command's thread: the image's digests and the stat they were made under, or nothing. */
interface ImageHashesMessage {
  hashes?: Hashes;
  size?: number;
  mtimeMs?: number;
}

/**
 * Runs `main` (cli/main.ts) in a worker thread with the engine's heap and these arguments; resolves to its exit code.
 * With `image`, this thread hashes it while that one starts and loads the engine (~0.5 s; the hashes of a 64 MB
 * image take 0.2-0.3 s), and sends the digests over a port of the thread's workerData.
 */
function runCommandInThread(args: readonly string[], image?: string): Promise<number> {
  if (process.env.FIRMSCOPE_DEBUG) process.stderr.write('firmscope: the command runs in a thread with the engine heap\n');
  return new Promise((resolve) => {
    const channel = image ? new MessageChannel() : undefined;
    const workerData: ThreadData = { commandThread: true, imageHashes: channel?.port2 };
    const worker = startEngineThread(() => startModuleWorker(import.meta.url, 'main', { argv: [...args], workerData, transferList: channel ? [channel.port2] : [] }));
    if (channel && image) void sendImageHashes(image, channel.port1);
    let failure: Error | undefined;
    worker.once('error', (error: Error) => {
      failure = error;
    });
    worker.once('exit', (code) => {
      // main.ts reports the command's own errors; this is an uncaught one, or a thread that could not start
      if (failure) process.stderr.write(`firmscope: ${failure.message}\n`);
      channel?.port1.close();
      resolve(failure && code === 0 ? 1 : code);
    });
  });
}

/** What a command's thread gets from the main thread (runCommandInThread). */
interface ThreadData {
  commandThread: true;
  imageHashes?: MessagePort;
}

/** Whether this is the thread runCommandInThread started. */
function inCommandThread(): boolean {
  return !isMainThread && (workerData as ThreadData | null)?.commandThread === true;
}

/**
 * In the command's thread: the process's other threads (the main thread, libuv's decoders, V8's helpers) go behind
 * this one (engine/thread-priority.ts); elsewhere (the main thread, tests) nothing changes. The process runs this
 * command and nothing else.
 */
export async function putOtherThreadsBehindThisOne(): Promise<void> {
  if (!inCommandThread()) return;
  // libuv starts its pool's threads at the first request: one is made, so that they exist to be lowered
  await stat('.').catch(() => undefined);
  const lowered = lowerOtherThreadsPriority();
  if (process.env.FIRMSCOPE_DEBUG) process.stderr.write(`firmscope: ${lowered} other threads run behind the engine's thread\n`);
}

async function sendImageHashes(image: string, port: MessagePort): Promise<void> {
  let message: ImageHashesMessage = {};
  try {
    const { size, mtimeMs } = statSync(image);
    message = { hashes: await hashFile(image), size, mtimeMs };
  } catch {
    // the command's thread hashes the image itself, and reports what fails
  }
  port.postMessage(message);
}

/**
 * In the command's thread: the image's digests from the main thread (runCommandInThread), if it sent them and the
 * file is still the one they were made of (same size and modification time); undefined otherwise (then the engine
 * hashes it). Undefined at once when this thread was not started that way.
 */
export function imageHashesFromParent(image: string): Promise<Hashes | undefined> | undefined {
  const port = (workerData as ThreadData | null)?.imageHashes;
  if (isMainThread || !port) return undefined;
  return new Promise((resolve) => {
    port.once('message', (message: ImageHashesMessage) => {
      port.close();
      try {
        const { size, mtimeMs } = statSync(image);
        const usable = message.hashes && size === message.size && mtimeMs === message.mtimeMs;
        if (usable && process.env.FIRMSCOPE_DEBUG) process.stderr.write('firmscope: the image digests were computed while the thread started\n');
        resolve(usable ? message.hashes : undefined);
      } catch {
        resolve(undefined);
      }
    });
  });
}
