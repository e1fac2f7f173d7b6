// A thread that does one kind of per-file work for the engine (the malicious-code stage's rule scan) while the
// engine's thread goes on: messages go out in order, the thread answers the calls one at a time, in order. Each
// process (or scan thread) has one of each kind, started on first use. A thread that dies fails the calls it held
// and the next call starts a new one; `stop` ends it (a cancelled scan), failing what it held.
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from './module-worker.js';

/** What travels to the thread: a call (with an id, answered) or a message (without, not answered). */
export interface TaskEnvelope<M> {
  id?: number;
  message: M;
}
export type TaskReply = { id: number; value: unknown } | { id: number; error: string };

export class TaskThread<M> {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  private nextId = 0;
  /** Called when a new thread starts, before any call reaches it (to send what the calls rely on). */
  onStart?: () => void;

  /** `callerUrl`/`name`: the thread's module beside the caller (module-worker.ts). */
  constructor(
    private readonly callerUrl: string,
    private readonly name: string,
  ) {}

  /** Starts the thread when there is none (running `onStart`), so that what the caller sends next reaches that one. */
  ensure(): void {
    this.thread();
  }

  /** A message the thread does not answer (a definition later calls use). */
  send(message: M): void {
    this.thread().postMessage({ message } satisfies TaskEnvelope<M>);
  }

  call<T>(message: M): Promise<T> {
    const worker = this.thread();
    const id = this.nextId++;
    const reply = new Promise<T>((resolve, reject) => this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject }));
    // held while it owes answers: a caller awaiting them must keep the process alive
    if (this.pending.size === 1) worker.ref();
    worker.postMessage({ id, message } satisfies TaskEnvelope<M>);
    return reply;
  }

  /** Ends the thread; the calls it held fail. */
  stop(): void {
    const worker = this.worker;
    this.worker = undefined;
    this.fail(new Error(`the ${this.name} thread was stopped`));
    void worker?.terminate();
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = startModuleWorker(this.callerUrl, this.name);
    this.worker = worker;
    worker.on('message', (reply: TaskReply) => {
      const waiting = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      if ('error' in reply) waiting?.reject(new Error(reply.error));
      else waiting?.resolve(reply.value);
    });
    const died = (error: Error) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.fail(error);
    };
    worker.on('error', died);
    worker.on('exit', (code) => died(new Error(`the ${this.name} thread exited (code ${code})`)));
    // after the listeners, which hold the process again when added: an idle thread must not keep it alive
    worker.unref();
    this.onStart?.();
    return worker;
  }

  private fail(error: Error): void {
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }
}
