// Runs commands as child processes in rotation (A B, B A, … or A B C, B C A, C A B, …) and records each one's
// wall time, so that a noisy machine slows every side alike and the per-round ratios stay meaningful.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { summary } from './stats.mjs';

/**
 * `sides`: [{ label, argv: [file, ...args], env?, check?(result) → error text | undefined }]. Returns
 * { times: [ms per round] per side, summaries: summary per side }.
 */
export function rotate(sides, { rounds = 30, warmup = 3, cpuHook, instructions = false } = {}) {
  const times = sides.map(() => []);
  for (let i = 0; i < warmup + rounds; i++) {
    // Each round starts one side later, so no side always runs right after the same other one.
    const took = [];
    for (let k = 0; k < sides.length; k++) {
      const side = (i + k) % sides.length;
      took[side] = instructions ? instructionsOnce(sides[side]) : timeOnce(sides[side], cpuHook);
    }
    if (i < warmup) continue;
    took.forEach((ms, side) => times[side].push(ms));
  }
  return { times, summaries: times.map(summary) };
}

/** Side x against side y of a rotation: the ratio of their medians and a summary of the per-round ratios. */
export function ratioOf(rotation, x, y) {
  const perRound = rotation.times[x].map((ms, i) => ms / rotation.times[y][i]);
  return { ratio: rotation.summaries[x].median / rotation.summaries[y].median, perRound: summary(perRound) };
}

/** Two sides: { a, b, ratio, pairRatio, medianPairRatio }, a and b summarising milliseconds. */
export function alternate(a, b, { pairs = 30, warmup = 3, cpuHook } = {}) {
  const r = rotate([a, b], { rounds: pairs, warmup, cpuHook });
  const { ratio, perRound } = ratioOf(r, 0, 1);
  return { a: r.summaries[0], b: r.summaries[1], ratio, pairRatio: perRound, medianPairRatio: perRound.median };
}

/** Whether valgrind runs here: then the instructions a command runs (cachegrind) are measured beside its CPU time. */
export function hasCachegrind() {
  return spawnSync('valgrind', ['--version'], { stdio: 'ignore' }).status === 0;
}

/**
 * Millions of instructions the side's process ran in user space, all its threads (valgrind runs them one at a
 * time), by cachegrind without its cache simulation. Unlike CPU time it hardly moves with the machine's load,
 * but it leaves out the kernel's time (system calls, page faults): CPU time is printed beside it.
 */
function instructionsOnce(side) {
  const dir = mkdtempSync(join(os.tmpdir(), 'giftcodes-cachegrind-'));
  const out = join(dir, 'cachegrind.out');
  try {
    const [file, ...args] = side.argv;
    const result = spawnSync(
      'valgrind',
      ['--tool=cachegrind', '--cache-sim=no', `--cachegrind-out-file=${out}`, '-q', file, ...args],
      { env: side.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 24 },
    );
    const problem =
      result.error?.message ??
      (result.status !== 0
        ? `exit ${result.status ?? result.signal} under valgrind: ${String(result.stderr).trim()}`
        : side.check?.(result));
    if (problem) throw new Error(`${side.label}: ${problem}`);
    const count = /^summary:\s+(\d+)/m.exec(readFileSync(out, 'utf8'))?.[1];
    if (count === undefined) throw new Error(`${side.label}: cachegrind wrote no summary`);
    return Number(count) / 1e6;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Wall milliseconds; with `cpuHook` (scripts/bench/cputime.cjs preloaded), the child's CPU milliseconds instead. */
function timeOnce(side, cpuHook) {
  const [file, ...args] = side.argv;
  const started = performance.now();
  const argv = cpuHook ? ['--require', cpuHook, ...args] : args;
  const result = spawnSync(file, argv, {
    env: side.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe', ...(cpuHook ? ['pipe'] : [])],
    maxBuffer: 1 << 24,
  });
  const ms = cpuHook ? Number(String(result.output?.[3] ?? '').trim()) / 1000 : performance.now() - started;
  const problem =
    result.error?.message ??
    (result.status !== 0
      ? `exit ${result.status ?? result.signal}: ${String(result.stderr).trim()}`
      : side.check?.(result));
  if (problem) throw new Error(`${side.label}: ${problem}`);
  return ms;
}
