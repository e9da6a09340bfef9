// Runs two commands as child processes in alternation (A, B, B, A, …) and records each one's wall time,
// so that a noisy machine slows both sides alike and the per-pair ratio stays meaningful.
import { spawnSync } from 'node:child_process';
import { summary, median } from './stats.mjs';

/**
 * `a` and `b`: { label, argv: [file, ...args], env?, check?(result) → error text | undefined }.
 * Returns { a, b, ratio, pairRatio } where a and b summarise milliseconds and pairRatio the per-pair A/B.
 */
export function alternate(a, b, { pairs = 30, warmup = 3, cpuHook } = {}) {
  const times = { a: [], b: [] };
  const ratios = [];
  for (let i = 0; i < warmup + pairs; i++) {
    // Swap the order every pair so neither side always runs right after the other.
    const order = i % 2 ? [b, a] : [a, b];
    const took = new Map(order.map((side) => [side, timeOnce(side, cpuHook)]));
    if (i < warmup) continue;
    times.a.push(took.get(a));
    times.b.push(took.get(b));
    ratios.push(took.get(a) / took.get(b));
  }
  const sa = summary(times.a);
  const sb = summary(times.b);
  return { a: sa, b: sb, ratio: sa.median / sb.median, pairRatio: summary(ratios), medianPairRatio: median(ratios) };
}

/** Wall milliseconds; with `cpuHook` (scripts/bench/cputime.mjs preloaded), the child's CPU milliseconds instead. */
function timeOnce(side, cpuHook) {
  const [file, ...args] = side.argv;
  const started = process.hrtime.bigint();
  const argv = cpuHook ? ['--import', cpuHook, ...args] : args;
  const result = spawnSync(file, argv, { env: side.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe', ...(cpuHook ? ['pipe'] : [])], maxBuffer: 1 << 24 });
  const ms = cpuHook ? Number(String(result.output?.[3] ?? '').trim()) / 1000 : Number(process.hrtime.bigint() - started) / 1e6;
  const problem = result.error?.message ?? (result.status !== 0 ? `exit ${result.status ?? result.signal}: ${String(result.stderr).trim()}` : side.check?.(result));
  if (problem) throw new Error(`${side.label}: ${problem}`);
  return ms;
}
