// Counts in words for a person: "1 code", "3 codes", "1,000,000 codes" (not "1 codes", which a reseller
// ordering one card reads in every message).

/** `n` and its noun, singular for exactly one; thousands grouped as progress lines group them. */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}
