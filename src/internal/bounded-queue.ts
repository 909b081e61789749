import { defer, type Deferred } from "./deferred.js";

/** Options of a {@link BoundedQueue}. */
export interface BoundedQueueOptions<T> {
  /** Most units (bytes, items…) held for a consumer that does not keep up. */
  readonly maxUnits: number;
  /** How many units an item counts for. */
  readonly sizeOf: (item: T) => number;
  /** The item handed to the consumer in place of what was dropped. */
  readonly droppedItem: (droppedUnits: number) => T;
  /** Called once when the consumer stops (end, break, or error). */
  readonly onDone?: () => void;
}

/**
 * One consumer's async-iterable view of a stream. Memory is bounded: when
 * the consumer falls behind, the oldest items are dropped and the consumer
 * is told so by a `droppedItem` before the items that follow.
 */
export class BoundedQueue<T> implements AsyncIterableIterator<T> {
  readonly #options: BoundedQueueOptions<T>;
  #items: T[] = [];
  #head = 0;
  #units = 0;
  #dropped = 0;
  #ended = false;
  #waiter: Deferred<IteratorResult<T>> | undefined;
  #notifiedDone = false;

  constructor(options: BoundedQueueOptions<T>) {
    this.#options = options;
  }

  get ended(): boolean {
    return this.#ended;
  }

  push(item: T): void {
    if (this.#ended) return;
    if (this.#waiter !== undefined && this.#dropped === 0) {
      const waiter = this.#waiter;
      this.#waiter = undefined;
      waiter.resolve({ value: item, done: false });
      return;
    }
    this.#items.push(item);
    this.#units += this.#options.sizeOf(item);
    while (this.#units > this.#options.maxUnits && this.#head < this.#items.length - 1) {
      const oldest = this.#items[this.#head] as T;
      this.#items[this.#head] = undefined as T;
      this.#head++;
      const size = this.#options.sizeOf(oldest);
      this.#units -= size;
      this.#dropped += size;
    }
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
  }

  /** No more items: the consumer gets what is buffered, then the end. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#waiter !== undefined) {
      const waiter = this.#waiter;
      this.#waiter = undefined;
      waiter.resolve({ value: undefined, done: true });
      this.#notifyDone();
    }
  }

  next(): Promise<IteratorResult<T>> {
    if (this.#dropped > 0) {
      const dropped = this.#dropped;
      this.#dropped = 0;
      return Promise.resolve({ value: this.#options.droppedItem(dropped), done: false });
    }
    if (this.#head < this.#items.length) {
      const item = this.#items[this.#head] as T;
      this.#items[this.#head] = undefined as T;
      this.#head++;
      this.#units -= this.#options.sizeOf(item);
      if (this.#head === this.#items.length) {
        this.#items = [];
        this.#head = 0;
      }
      return Promise.resolve({ value: item, done: false });
    }
    if (this.#ended) {
      this.#notifyDone();
      return Promise.resolve({ value: undefined, done: true });
    }
    this.#waiter = defer();
    return this.#waiter.promise;
  }

  return(): Promise<IteratorResult<T>> {
    this.#items = [];
    this.#head = 0;
    this.#units = 0;
    this.#dropped = 0;
    this.#ended = true;
    if (this.#waiter !== undefined) {
      this.#waiter.resolve({ value: undefined, done: true });
      this.#waiter = undefined;
    }
    this.#notifyDone();
    return Promise.resolve({ value: undefined, done: true });
  }

  #notifyDone(): void {
    if (this.#notifiedDone) return;
    this.#notifiedDone = true;
    this.#options.onDone?.();
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
