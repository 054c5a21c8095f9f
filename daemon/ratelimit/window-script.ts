/**
 * The sliding-window Lua script: every counter a request must pass, checked and (when all
 * pass) incremented in one atomic call — one round trip, no race between check and count.
 * A counter is one of two kinds:
 *
 * ## Exact log (bucket width 0: the hourly limits)
 *
 * A sorted set of the admitted requests' times (ms). A request counts for exactly `W`
 * seconds: it is in the window while `now - t < W`. Retry-After is when the oldest request
 * that must leave does, so it is never above `W`. Memory: one entry per request in the
 * window (at most the limit); entries older than the window are trimmed on every admission
 * and the key expires `W` after its last write.
 *
 * ## Ring of buckets (the daily limits)
 *
 * Time is cut into buckets of `B` seconds (bucket index = `floor(t / B)`). A window of
 * `W` seconds holds the current bucket and the `K = W / B - 1` before it: 24 hour buckets
 * for the day. Each counter is one Redis string: a 32-byte
 * header (newest bucket written, oldest non-empty bucket, sum of the window, fill time)
 * and a ring of `K + 1` bucket counts, 4 bytes each, bucket `b` in slot `b mod (K + 1)`.
 * A call rolls the ring forward to the current bucket — zeroing the slots of buckets that
 * left the window and subtracting them from the sum — so the hot path touches the header
 * and one or two slots (a minute boundary), never the whole window. A counter is 276
 * bytes (hour) or 132 bytes (day) whatever the limit (no per-request log), and the key
 * expires one window plus one bucket after its last write.
 *
 * A request of weight `w` (1 unless the caller says: a costly screen counts as several) is
 * admitted only if every counter has `count + w <= limit`; then all are incremented by `w` and
 * written back. A rejected request writes nothing (spec: rejection does
 * not consume quota).
 *
 * ## Precision of the ring
 *
 * A request counts until its bucket leaves the window, at (its bucket + K + 1)·B: between
 * W − B and W after it was made (23–24 h for the day). Retry-After therefore never exceeds
 * W; the price is that a W-second span may admit up to one bucket's requests more than the
 * limit (the daily limit is the backstop behind the exact hourly one).
 *
 * ## Returned per counter
 *
 * - `count`: requests in the window (after this one, when admitted).
 * - `resetMs`: until the oldest non-empty bucket leaves (W when empty) — IETF `RateLimit` `t`.
 * - `retryMs` (rejections): until enough buckets leave that `count + 1 <= limit`.
 * - `filledAtMs` (rejections): when the counter last reached its limit (the time of the
 *   admission that made `count == limit`, kept in the header); when that admission has
 *   left the window or never happened (the limit was lowered), the start of the bucket
 *   where the oldest-first running count reaches the limit.
 *
 * Then, when a probe key was given: 1 if it exists, else 0.
 *
 * ## A cached answer read in the same call
 *
 * Mode `cached:<weight>:<ttl ms>` takes two more keys, last: a cached answer and its request
 * counter. When the answer exists the call is a peek (the spec does not count an answer from the
 * result cache) and returns it; else it is a hit, and when admitted the counter is incremented
 * (expiring `ttl` after the first request) — it tells the caller whether anyone asked for this
 * answer before, i.e. whether it is worth sharing. Appended to the reply: the counter (0 when the
 * answer was found or the request refused), then the answer when found.
 *
 * Time is Redis `TIME` unless the caller passes milliseconds (tests inject a clock). A
 * clock that goes backwards counts the request in the newest bucket written.
 */

/**
 * Lua source. KEYS: the counters, then optionally one more key whose existence is reported (the
 * caller's token revocation mark, so that lookup needs no command of its own), then in mode
 * `cached` the answer's key and its counter's. ARGV: now ms or '', 'hit' | 'hit:<weight>' |
 * 'peek' | 'cached:<weight>:<ttl ms>', then limit, bucket ms (0: exact log), K (buckets before the
 * current one; for a log, the window in ms) per counter.
 */
export const WINDOW_SCRIPT = `
local now
if ARGV[1] == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
else
  now = tonumber(ARGV[1])
end
-- 'hit' or 'hit:<weight>': a request may count as several (its cost), 'peek' as none.
local mode, weight, ttl = string.match(ARGV[2], '^(%a+):?(%d*):?(%d*)$')
local hit = mode == 'hit'
local w = tonumber(weight) or 1
local HDR = 32
local N = (#ARGV - 2) / 3
local nKeys = #KEYS
-- A cached answer, when found, makes the request free: a peek.
local answer
if mode == 'cached' then
  nKeys = nKeys - 2
  answer = redis.call('GET', KEYS[nKeys + 1])
  hit = not answer
end
-- One MGET reads the ring counters and, when given, the probe key (its value only says it exists).
local ringKeys, ringAt = {}, {}
for i = 1, nKeys do
  if i > N or tonumber(ARGV[3 + (i - 1) * 3 + 1]) > 0 then
    ringKeys[#ringKeys + 1] = KEYS[i]
    ringAt[i] = #ringKeys
  end
end
local raws = {}
if #ringKeys > 0 then
  local got = redis.call('MGET', unpack(ringKeys))
  for i, at in pairs(ringAt) do raws[i] = got[at] end
end
local unpack4, pack4 = struct.unpack, struct.pack

local function slot(raw, b, size)
  return (unpack4('>I4', raw, HDR + (b % size) * 4 + 1))
end
local function setSlot(raw, b, size, v)
  local p = HDR + (b % size) * 4 + 1
  return raw:sub(1, p - 1) .. pack4('>I4', v) .. raw:sub(p + 4)
end

-- An exact log: the requests of the last wms milliseconds (a request at t counts while now - t < wms).
local function loadLog(i, limit, wms)
  local cut = '(' .. (now - wms)
  return { log = true, key = KEYS[i], limit = limit, wms = wms, cut = cut, count = redis.call('ZCOUNT', KEYS[i], cut, '+inf') }
end

-- The time of the n-th oldest request (1-based) in a log's window.
local function nth(c, n)
  local got = redis.call('ZRANGEBYSCORE', c.key, c.cut, '+inf', 'WITHSCORES', 'LIMIT', n - 1, 1)
  return tonumber(got[2])
end

-- Load one counter and roll it forward to the current bucket (in memory only).
local function load(i)
  local base = 3 + (i - 1) * 3
  local limit, bms, k = tonumber(ARGV[base]), tonumber(ARGV[base + 1]), tonumber(ARGV[base + 2])
  if bms == 0 then return loadLog(i, limit, k) end
  local size = k + 1
  local cur = math.floor(now / bms)
  local raw = raws[i]
  local n, o, s, f
  if raw and #raw == HDR + 4 * size then n, o, s, f = unpack4('>dddd', raw) end
  -- Anything but a header this script wrote is discarded: every loop below then runs at
  -- most K + 1 times (a corrupt header must never turn into a busy script blocking Redis).
  if not (n and n == math.floor(n) and n >= 0 and n < 1e15 and o == math.floor(o) and o <= n and o >= n - k
      and s >= 0 and s < 1e15 and f >= -1 and f < 1e16) then
    raw, n, o, s, f = string.rep('\\0', HDR + 4 * size), cur, cur, 0, -1
  end
  if cur < n then cur = n end
  local oldest = cur - k
  -- Within the newest bucket written (the common case under load) nothing has left the window
  -- and o is already the oldest non-empty bucket: no roll forward, no search for o.
  local rolled = n < cur
  if rolled and n < oldest then
    raw, o, s = string.rep('\\0', HDR + 4 * size), cur, 0
  elseif rolled and o < oldest then
    for b = o, oldest - 1 do
      local v = slot(raw, b, size)
      if v > 0 then
        s = s - v
        raw = setSlot(raw, b, size, 0)
      end
    end
    o = oldest
  end
  if s == 0 then
    o = cur
  elseif rolled then
    while o < cur and slot(raw, o, size) == 0 do o = o + 1 end
  end
  return { limit = limit, bms = bms, k = k, size = size, raw = raw, cur = cur, oldest = oldest, o = o, count = s, full = f }
end

local C, admit = {}, true
for i = 1, N do
  local c = load(i)
  C[i] = c
  if c.count + w > c.limit then admit = false end
end
if hit and admit then
  for i = 1, N do
    local c = C[i]
    if c.log then
      redis.call('ZREMRANGEBYSCORE', c.key, '-inf', now - c.wms)
      for j = 1, w do
        local member = now .. ':' .. c.count
        while redis.call('ZSCORE', c.key, member) do member = member .. '+' end
        redis.call('ZADD', c.key, now, member)
        c.count = c.count + 1
      end
      redis.call('PEXPIRE', c.key, c.wms)
    else
    local p = HDR + (c.cur % c.size) * 4 + 1
    local v = unpack4('>I4', c.raw, p) + w
    if c.count < c.limit and c.count + w >= c.limit then c.full = now end
    c.count = c.count + w
    c.raw = pack4('>dddd', c.cur, c.o, c.count, c.full) .. c.raw:sub(HDR + 1, p - 1) .. pack4('>I4', v) .. c.raw:sub(p + 4)
    redis.call('SET', KEYS[i], c.raw, 'PX', c.size * c.bms)
    end
  end
end

-- A log's figures: reset when its oldest request leaves; on rejection, when enough have left
-- for one more, and when the window's running count reached the limit.
local function logFigures(c)
  local reset, retry, filled = c.wms, -1, -1
  if c.count > 0 then reset = nth(c, 1) + c.wms - now end
  if hit and not admit and c.count + w > c.limit then
    retry = nth(c, math.min(c.count, c.count - c.limit + w)) + c.wms - now
    -- Below its limit, a counter refusing a heavy request is reached by it: now.
    filled = c.count >= c.limit and nth(c, c.limit) or now
  end
  return reset, retry, filled
end

local out = { admit and 1 or 0, now }
for i = 1, N do
  local c = C[i]
  if c.log then
    local reset, retry, filled = logFigures(c)
    out[#out + 1] = c.count
    out[#out + 1] = reset
    out[#out + 1] = retry
    out[#out + 1] = filled
  else
  local reset, retry, filled = c.size * c.bms, -1, -1
  if c.count > 0 then reset = (c.o + c.size) * c.bms - now end
  if hit and not admit and c.count + w > c.limit then
    local need, cum = c.count - c.limit + w, 0
    for b = c.o, c.cur do
      cum = cum + slot(c.raw, b, c.size)
      if cum >= need then retry = (b + c.size) * c.bms - now break end
    end
    if c.full >= 0 and math.floor(c.full / c.bms) >= c.oldest then
      filled = c.full
    else
      cum = 0
      for b = c.o, c.cur do
        cum = cum + slot(c.raw, b, c.size)
        if cum >= c.limit then filled = b * c.bms break end
      end
      if filled < 0 then filled = now end
    end
  end
  out[#out + 1] = c.count
  out[#out + 1] = reset
  out[#out + 1] = retry
  out[#out + 1] = filled
  end
end
if nKeys > N then out[#out + 1] = raws[N + 1] and 1 or 0 end
if mode == 'cached' then
  if answer then
    out[#out + 1] = 0
    out[#out + 1] = answer
  elseif admit then
    local asked = redis.call('INCR', KEYS[nKeys + 2])
    if asked == 1 then redis.call('PEXPIRE', KEYS[nKeys + 2], tonumber(ttl)) end
    out[#out + 1] = asked
  else
    out[#out + 1] = 0
  end
end
return out
`;
