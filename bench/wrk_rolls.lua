-- wrk's side of bench_wrk.py: POST a 3d6 roll to rooms round-robin, each with a
-- member's token. The targets file (the argument after `--`) holds one
-- "ROOM TOKEN" a line, rooms interleaved (room 1's first member, room 2's first
-- member, ..., room 1's second member, ...), so that consecutive rolls go to
-- different rooms. Each thread starts at a different place in the list.
-- At the end one line, "WRKJSON {...}", gives the counts and the latency.

local counter = 0

function setup(thread)
  counter = counter + 1
  thread:set("id", counter)
end

local requests = {}
local at = 0

function init(args)
  for line in io.lines(args[1]) do
    local room, token = line:match("^(%S+) (%S+)$")
    if room then
      requests[#requests + 1] = wrk.format("POST", "/api/rooms/" .. room .. "/rolls", {
        ["Authorization"] = "Bearer " .. token,
        ["Content-Type"] = "application/json",
      }, '{"command": "3d6"}')
    end
  end
  local step = math.floor(#requests / 7) + 1
  at = ((id or 1) - 1) * step % #requests
end

function request()
  at = at % #requests + 1
  return requests[at]
end

function done(summary, latency, _requests)
  local e = summary.errors
  io.write(string.format(
    'WRKJSON {"requests": %d, "duration_us": %d, "connect": %d, "read": %d, ' ..
    '"write": %d, "status": %d, "timeout": %d, "p50_us": %d, "p90_us": %d, ' ..
    '"p99_us": %d, "max_us": %d}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status,
    e.timeout, latency:percentile(50), latency:percentile(90),
    latency:percentile(99), latency.max))
end
