// Preloaded into a measured command (`node --import`): at exit, writes the process's peak resident set
// size in KiB (getrusage's ru_maxrss, the figure /usr/bin/time -v prints) and its CPU time (user + system)
// in microseconds to file descriptor 3, space apart.
import { writeSync } from 'node:fs';

process.on('exit', () => {
  const usage = process.resourceUsage();
  writeSync(3, `${usage.maxRSS} ${usage.userCPUTime + usage.systemCPUTime}\n`);
});
