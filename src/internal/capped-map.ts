/**
 * A Map that keeps at most `capacity` entries: setting a new key beyond it
 * drops the oldest (insertion order). For what is remembered "the last N"
 * (settled cells, tracked outputs).
 */
export class CappedMap<K, V> extends Map<K, V> {
  readonly #capacity: number;

  constructor(capacity: number) {
    super();
    this.#capacity = capacity;
  }

  override set(key: K, value: V): this {
    super.set(key, value);
    while (this.size > this.#capacity) {
      const oldest = this.keys().next();
      if (oldest.done === true) break;
      this.delete(oldest.value);
    }
    return this;
  }
}
