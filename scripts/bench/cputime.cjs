// Preloaded into a measured command (`node --require`): at exit, writes the CPU time the process used (user +
// system, getrusage) in microseconds to file descriptor 3. Unlike wall time, it barely moves when other
// processes compete for the machine's cores, so it shows what a command costs on a busy machine. CommonJS and
// --require, not --import: an --import starts Node's ES module loader in every process it is given to, `node -e
// 0` and the CommonJS launcher answering `giftcodes --version` included, and so hid what that loader costs.
'use strict';
const { writeSync } = require('node:fs');

process.on('exit', () => {
  const usage = process.resourceUsage();
  writeSync(3, `${usage.userCPUTime + usage.systemCPUTime}\n`);
});
