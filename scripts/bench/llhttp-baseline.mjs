// What every floor of scripts/bench does before undici compiles llhttp, its WebAssembly parser, as the CLI does
// (src/api/transport.ts): keep it at V8's baseline tier. `--liftoff-only` is enough on Node 22; Node 24 and 26
// compile it again with their optimising tier unless both tier-up flags are off too. A floor that paid for that
// compile, which the CLI no longer makes, would lean every ratio the CLI's way. Imported for its effect, first.
import { setFlagsFromString } from 'node:v8';

for (const flag of ['--liftoff-only', '--no-wasm-tier-up', '--no-wasm-dynamic-tiering']) setFlagsFromString(flag);
