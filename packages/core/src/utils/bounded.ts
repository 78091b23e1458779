/**
 * Keeps a map or set (in insertion order, oldest first) within `max` entries: once it holds more,
 * drops its oldest entries, a slice of `max / 64` at a time (one at a time below 64), calling
 * `onEvict` with each dropped key.
 *
 * Deleting one oldest entry per insertion through `keys().next()` is not constant time in V8: a
 * deleted entry stays a hole at the front of the ordered hash table until the table is rebuilt, and
 * every new iterator walks over those holes first. With 20,000 entries that is about 10 µs per
 * insertion. Dropping a slice per pass walks the holes once per slice instead of once per insertion.
 */
export function evictOldest<K>(
  collection: Map<K, unknown> | Set<K>,
  max: number,
  onEvict?: (key: K) => void,
): void {
  if (collection.size <= max) return;
  const keep = Math.max(0, max - Math.floor(max / 64));
  for (const key of collection.keys()) {
    collection.delete(key);
    onEvict?.(key);
    if (collection.size <= keep) return;
  }
}
