// The yardstick for the reference server: node:http answering every request with the same JSON the
// reference server sent for one real order (given in BENCH_BODY), after reading the request body.
import { createServer } from 'node:http';

const body = Buffer.from(process.env.BENCH_BODY ?? '{}');
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(201, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
