-- wrk's summary as one JSON line (bench/load.ts reads it): requests, duration, latency percentiles in µs, errors.
-- Loaded alone for GET (a static request, wrk's fastest path) and by wrk-patch.lua.
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d}}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.connect, e.read, e.write, e.status, e.timeout))
end
