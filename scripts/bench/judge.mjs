// PASS or FAIL for each target, with the machine's load in view: a figure that fails while the 1-minute load
// average is above the core count is measured again (after waiting, bounded, for the load to fall) before it
// is called a FAIL, and the output says so, with both loads. Other sessions share this machine's cores.
import os from 'node:os';

export class Judge {
  /**
   * cores: above this 1-minute load average a failing figure is repeated. repeats: at most this many times.
   * waitSeconds: the longest wait for the load to fall before each repeat. load, sleep and log are the
   * machine's unless given (a check of this class can give its own).
   */
  constructor({
    cores = os.availableParallelism(),
    repeats = 1,
    waitSeconds = 60,
    pollSeconds = 5,
    load = () => os.loadavg()[0],
    sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    log = (line) => console.log(line),
  } = {}) {
    Object.assign(this, { cores, repeats, waitSeconds, pollSeconds, load, sleep, log });
    this.verdicts = [];
  }

  /**
   * Runs `measure(check)`, which prints its figures and calls check(figure, value, target, pass, { steady })
   * for each target; `steady` marks a figure load cannot move (a count of requests), never repeated for load.
   * The verdicts are printed once the measurement is final.
   */
  async figure(name, measure) {
    const earlier = [];
    for (let attempt = 0; ; attempt++) {
      const judgements = [];
      const before = this.load();
      await measure((figure, value, target, pass, { steady = false } = {}) =>
        judgements.push({ figure, value, target, pass, steady }),
      );
      const after = this.load();
      const load = Math.max(before, after);
      const heavy = load > this.cores;
      this.log(`  load average ${before.toFixed(2)} → ${after.toFixed(2)} while measured (${this.cores} cores)`);
      const failed = judgements.filter((j) => !j.pass);
      if (!heavy || attempt >= this.repeats || !failed.some((j) => !j.steady)) {
        for (const j of judgements) this.record(j, { load, heavy, earlier });
        return;
      }
      earlier.push({ load, failed });
      this.log(
        `  repeat: ${failed.map((j) => `${j.figure} ${j.value}`).join('; ')} failed at load ${load.toFixed(2)}, above the ${this.cores} cores; waiting at most ${this.waitSeconds} s for the load to fall, then ${name} again`,
      );
      const waited = await this.waitForLoad();
      this.log(
        `  load ${this.load().toFixed(2)} after waiting ${waited} s; ${name} again (repeat ${attempt + 1} of at most ${this.repeats}):`,
      );
    }
  }

  /** Seconds waited: until the load is at most the core count, or waitSeconds have passed. */
  async waitForLoad() {
    let waited = 0;
    while (this.load() > this.cores && waited < this.waitSeconds) {
      const step = Math.min(this.pollSeconds, this.waitSeconds - waited);
      await this.sleep(step * 1000);
      waited += step;
    }
    return waited;
  }

  record(j, { load, heavy, earlier }) {
    const notes = [];
    for (const [i, run] of earlier.entries()) {
      const before = run.failed.find((f) => f.figure === j.figure);
      notes.push(`run ${i + 1} at load ${run.load.toFixed(2)}: ${before ? `${before.value}, FAIL` : 'held'}`);
    }
    if (earlier.length > 0)
      notes.push(
        `repeated, this run at load ${load.toFixed(2)}${heavy ? `, still above the ${this.cores} cores` : ''}`,
      );
    else if (heavy && !j.pass)
      notes.push(
        `measured at load ${load.toFixed(2)}, above the ${this.cores} cores${j.steady ? '; load does not move this figure' : ''}`,
      );
    const verdict = { ...j, load, repeated: earlier.length };
    this.verdicts.push(verdict);
    this.log(
      `  ${j.pass ? 'PASS' : 'FAIL'}  ${j.figure}: ${j.value}  (target ${j.target})${notes.length ? `  [${notes.join('; ')}]` : ''}`,
    );
  }

  /** The closing line, and whether every target held. */
  summary() {
    const failed = this.verdicts.filter((v) => !v.pass);
    const repeated = this.verdicts.filter((v) => v.repeated > 0);
    const parts = [`${this.verdicts.length - failed.length} of ${this.verdicts.length} targets hold`];
    if (failed.length) parts.push(`failing: ${failed.map((v) => v.figure).join('; ')}`);
    if (repeated.length) parts.push(`measured again under load: ${repeated.map((v) => v.figure).join('; ')}`);
    return { ok: failed.length === 0, text: parts.join('; ') };
  }
}
