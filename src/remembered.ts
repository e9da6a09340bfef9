// A bounded memo of a function of one string, for the journal's, the lock's and the API client's repeated questions.

/**
 * `compute`, its answers remembered by their string argument: a plan's 1,000 rows ask the same few several times
 * each (issue 33). Bounded: a process that meets more than `limit` arguments starts again rather than grow.
 */
export function remembered<T>(limit: number, compute: (arg: string) => T): (arg: string) => T {
  const answers = new Map<string, T>();
  return (arg) => {
    let answer = answers.get(arg);
    if (answer === undefined) {
      if (answers.size >= limit) answers.clear();
      answer = compute(arg);
      answers.set(arg, answer);
    }
    return answer;
  };
}
