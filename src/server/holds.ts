// The `--hold` fault: a new order request stays in progress (its idempotency key claimed, nothing committed) for a
// while. With `--admin` a test can also see how many requests are held and end every hold at once, so that what it
// does meanwhile waits on that event rather than on the hold lasting long enough on a loaded machine.

export class Holds {
  private readonly held = new Set<() => void>();

  /** How many requests are held right now. */
  get count(): number {
    return this.held.size;
  }

  /** Resolves after `ms`, or sooner when release() is called. */
  hold(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.held.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.held.add(done);
    });
  }

  /** Ends every hold now; returns how many there were. */
  release(): number {
    const waiting = [...this.held];
    for (const done of waiting) done();
    return waiting.length;
  }
}
