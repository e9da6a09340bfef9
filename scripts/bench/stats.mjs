// Small statistics and formatting for the benchmark report.

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export function summary(values) {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values), n: values.length };
}

/** `12.3 ms (11.9–15.0)` for a summary of milliseconds. */
export function formatMs(s) {
  return `${s.median.toFixed(1)} ms (${s.min.toFixed(1)}–${s.max.toFixed(1)})`;
}
