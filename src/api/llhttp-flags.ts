/**
 * The V8 flags that keep undici's HTTP parser (llhttp, WebAssembly) at V8's baseline tier: `--liftoff-only` is
 * enough on Node 22; Node 24's and 26's dynamic tiering reads only the two tier-up flags. Set by loadUndici
 * (transport.ts) before undici loads, and by every floor of the bench (scripts/bench/llhttp-baseline.mjs), one
 * list for both, so that a floor never pays for a compile the CLI does not make, nor skips one it makes.
 */
export const LLHTTP_BASELINE_FLAGS = ['--liftoff-only', '--no-wasm-tier-up', '--no-wasm-dynamic-tiering'] as const;
