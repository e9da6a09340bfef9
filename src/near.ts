// The words nearest a typo, for "did you mean": product ids, outcome words, profiles and command names alike.
import { byCodePoint } from './compare.js';

/** The ids closest to `id` (edit distance, ties by name): those at the least distance; none when nothing is close. */
export function nearestIds(id: string, ids: readonly string[], count = 3): string[] {
  const wanted = id.toLowerCase();
  const limit = Math.max(2, Math.floor(wanted.length / 3));
  return (
    ids
      .map((candidate) => ({ candidate, distance: editDistance(wanted, candidate.toLowerCase(), limit) }))
      .filter((c) => c.distance <= limit)
      .sort((a, b) => a.distance - b.distance || byCodePoint(a.candidate, b.candidate))
      // Only the closest: "amazon-us-25", not every denomination of the brand beside it.
      .filter((c, _i, all) => c.distance === all[0]!.distance)
      .slice(0, count)
      .map((c) => c.candidate)
  );
}

/** Levenshtein distance, given up (limit + 1) once it exceeds `limit`: 20,000 products stay cheap. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      current.push(value);
      best = Math.min(best, value);
    }
    if (best > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length]!;
}
