// The load generator's ceiling: a bare node:http server answering every request with the catalog's JSON (no
// framework, no parsing). When the Node load generator cannot drive this faster than the servers it compares,
// its own speed, not theirs, sets their ratios. argv[2]: {"catalog": <the emulator's catalog JSON>}.
import http from 'node:http';

const body = JSON.stringify(JSON.parse(process.argv[2] ?? '{}').catalog ?? {});
const headers = {
  'content-type': 'application/json; charset=utf-8',
  'content-length': Buffer.byteLength(body),
  etag: '"0123456789abcdef"',
};
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, headers);
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
