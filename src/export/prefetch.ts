// One page ahead: while the writer formats page n, page n+1 is already being fetched and parsed, so the
// network and the server's work overlap the writing. At most two pages are held: memory stays flat.

/** Yields what `source` yields, asking it for the next item before handing out the current one. */
export async function* prefetched<T>(source: AsyncIterable<T>): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  let ahead = iterator.next();
  // A failure of the page fetched ahead surfaces when the consumer gets to it, or not at all if it stops first.
  ahead.catch(() => undefined);
  let done = false;
  try {
    for (;;) {
      const current = await ahead;
      if (current.done) {
        done = true;
        return;
      }
      ahead = iterator.next();
      ahead.catch(() => undefined);
      yield current.value;
    }
  } finally {
    // The consumer stopped early (an error, an interruption): close the source once its pending call settles.
    if (!done) await iterator.return?.().catch(() => undefined);
  }
}
