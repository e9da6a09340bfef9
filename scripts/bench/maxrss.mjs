// Preloaded into a measured command (`node --import`): at exit, writes the process's peak resident set
// size in KiB (getrusage's ru_maxrss, the figure /usr/bin/time -v prints) to file descriptor 3.
import { writeSync } from 'node:fs';

process.on('exit', () => {
  writeSync(3, `${process.resourceUsage().maxRSS}\n`);
});
