// What every floor of scripts/bench does before undici compiles llhttp, its WebAssembly parser, as the CLI does
// (src/api/transport.ts): keep it at V8's baseline tier. `--liftoff-only` is enough on Node 22; Node 24 and 26
// compile it again with their optimising tier unless both tier-up flags are off too. A floor that paid for that
// compile, which the CLI no longer makes, would lean every ratio the CLI's way.
//
// Called as the first statement of a floor's body: after its imports (undici's modules and the modules of Node's
// they require, loaded with Node's own code cache of them) and before its first request (undici compiles llhttp
// at its first connection). Set before those imports, the flags made Node compile every module of its own loaded
// after them from source, its code cache of them refused (a V8 flag is part of what a code cache is checked
// against): the bare GET ran 427–461 M instructions against 337–350 M with the flags set here (BENCHMARKS.md,
// issue 33), and `ping`'s ratio to it leaned the CLI's way by as much.
import { setFlagsFromString } from 'node:v8';
import { LLHTTP_BASELINE_FLAGS } from '../../src/api/llhttp-flags.ts';

export function keepLlhttpAtBaseline() {
  for (const flag of LLHTTP_BASELINE_FLAGS) setFlagsFromString(flag);
}
