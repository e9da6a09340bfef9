// Preloaded into a measured command (`node --import`): at exit, writes the CPU time the process used (user +
// system, getrusage) in microseconds to file descriptor 3. Unlike wall time, it barely moves when other
// processes compete for the machine's cores, so it shows what a command costs on a busy machine.
import { writeSync } from 'node:fs';

process.on('exit', () => {
  const usage = process.resourceUsage();
  writeSync(3, `${usage.userCPUTime + usage.systemCPUTime}\n`);
});
