-- PATCH /v1/produtos/{id}, each with a fresh Idempotency-Key and the product's current ETag in If-Match.
-- A queue of (product id, ETag): init() fills it from a file of "id etag" lines (products made through the API
-- before the round, one per connection); request() pops one, so each product has one request in flight;
-- response() reads the id from the answer's JSON body and pushes it back with the answer's new ETag.
-- wrk ... -s wrk-patch.lua <url> -- <products file> <token> <key prefix>
local dir = debug.getinfo(1, 'S').source:match('^@(.*/)') or './'
dofile(dir .. 'wrk-report.lua')

local queue, head, tail = {}, 1, 0
local headers = {}
local prefix
local sent = 0
-- wrk calls request() once after init() to check that it returns a well-formed request (script_verify_request),
-- before any connection opens; that request is never sent, so it must not take a product from the queue.
local verified = false

local function patch(item, n)
  headers['idempotency-key'] = string.format('%s-%012d', prefix, n)
  headers['if-match'] = item[2]
  return wrk.format('PATCH', '/v1/produtos/' .. item[1], headers, string.format('{"sku":"SKU-%s-%d"}', prefix, n))
end

function init(args)
  local file = assert(io.open(args[1], 'r'))
  for line in file:lines() do
    local id, etag = line:match('^(%S+) (%S+)$')
    if id then
      tail = tail + 1
      queue[tail] = { id, etag }
    end
  end
  file:close()
  headers['Host'] = wrk.host .. ':' .. wrk.port
  headers['authorization'] = 'Bearer ' .. args[2]
  headers['content-type'] = 'application/json'
  prefix = args[3]
end

function request()
  if not verified then
    verified = true
    return patch(queue[head], 0)
  end
  if head > tail then error('the product queue is empty: a PATCH was lost (see the errors)') end
  local item = queue[head]
  queue[head] = nil
  head = head + 1
  sent = sent + 1
  return patch(item, sent)
end

function response(status, hdrs, body)
  if status ~= 200 then return end -- counted by wrk as a status error; the product leaves the queue
  local id = body:match('^%s*{%s*"id"%s*:%s*"([^"]+)"')
  local etag = hdrs['etag'] or hdrs['ETag'] or hdrs['Etag']
  if id and etag then
    tail = tail + 1
    queue[tail] = { id, etag }
  end
end
