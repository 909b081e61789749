/**
 * The empty set a rarely used set field starts as, shared by every object, until something is added
 * (see {@link own}): an empty `Set` is ~150 bytes kept per object, and most sessions never add to
 * theirs. Nothing is ever added to this one: reading it (`size`, `has`, iterating) and deleting
 * from it are fine.
 */
export const NOTHING: Set<never> = new Set<never>();

/** `set` to add to: a new set in place of {@link NOTHING} (assign it back to the field). */
export function own<T>(set: Set<T>): Set<T> {
  return set === NOTHING ? new Set<T>() : set;
}
