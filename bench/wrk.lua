-- wrk script for bench/: spreads requests over the paths given after "--" (or requests
-- the URL's own path), counts answers that are not 2xx, and prints one line of JSON.

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  paths = args
  sent = 0
  not_2xx = 0
end

function request()
  sent = sent + 1
  if #paths == 0 then
    return wrk.format()
  end
  return wrk.format(nil, paths[math.random(#paths)])
end

function response(status, headers, body)
  if status < 200 or status > 299 then
    not_2xx = not_2xx + 1
  end
end

function done(summary, latency, requests)
  local n = 0
  for _, thread in ipairs(threads) do
    n = n + thread:get("not_2xx")
  end
  local e = summary.errors
  io.write(string.format(
    'WRK_RESULT {"requests": %d, "duration_us": %d, "bytes": %d, "not_2xx": %d, '
      .. '"connect": %d, "read": %d, "write": %d, "timeout": %d, '
      .. '"p50_us": %d, "p99_us": %d, "max_us": %d}\n',
    summary.requests, summary.duration, summary.bytes, n,
    e.connect, e.read, e.write, e.timeout,
    latency:percentile(50), latency:percentile(99), latency.max))
end
