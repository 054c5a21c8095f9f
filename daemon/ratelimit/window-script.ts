/**
 * The sliding-window Lua script: every counter a request must pass, checked and (when all
 * pass) incremented in one atomic call — one round trip, no race between check and count.
 *
 * ## Algorithm
 *
 * Time is cut into buckets of `B` seconds (bucket index = `floor(t / B)`). A window of
 * `W` seconds holds the current bucket and the `K = W / B` before it: 61 minute buckets
 * for the hour, 25 hour buckets for the day. Each counter is one Redis string: a 32-byte
 * header (newest bucket written, oldest non-empty bucket, sum of the window, fill time)
 * and a ring of `K + 1` bucket counts, 4 bytes each, bucket `b` in slot `b mod (K + 1)`.
 * A call rolls the ring forward to the current bucket — zeroing the slots of buckets that
 * left the window and subtracting them from the sum — so the hot path touches the header
 * and one or two slots (a minute boundary), never the whole window. A counter is 276
 * bytes (hour) or 132 bytes (day) whatever the limit (no per-request log), and the key
 * expires one window plus one bucket after its last write.
 *
 * A request is admitted only if every counter has `count + 1 <= limit`; then all are
 * incremented and written back. A rejected request writes nothing (spec: rejection does
 * not consume quota).
 *
 * ## Precision
 *
 * A request counts until its bucket leaves the window: between W and W + B after it was
 * made (60–61 min for the hour, 24–25 h for the day). So no W-second interval ever admits
 * more than the limit (strictly safe), and a slot is released at most B late.
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
 * Time is Redis `TIME` unless the caller passes milliseconds (tests inject a clock). A
 * clock that goes backwards counts the request in the newest bucket written.
 */

/**
 * Lua source. KEYS: the counters, then optionally one more key whose existence is reported (the
 * caller's token revocation mark, so that lookup needs no command of its own). ARGV: now ms or
 * '', 'hit' | 'peek', then limit, bucket ms, K per counter.
 */
export const WINDOW_SCRIPT = `
local now
if ARGV[1] == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
else
  now = tonumber(ARGV[1])
end
local hit = ARGV[2] == 'hit'
local HDR = 32
local N = (#ARGV - 2) / 3
-- One MGET reads the counters and, when given, the probe key (its value only says it exists).
local raws = redis.call('MGET', unpack(KEYS))
local unpack4, pack4 = struct.unpack, struct.pack

local function slot(raw, b, size)
  return (unpack4('>I4', raw, HDR + (b % size) * 4 + 1))
end
local function setSlot(raw, b, size, v)
  local p = HDR + (b % size) * 4 + 1
  return raw:sub(1, p - 1) .. pack4('>I4', v) .. raw:sub(p + 4)
end

-- Load one counter and roll it forward to the current bucket (in memory only).
local function load(i)
  local base = 3 + (i - 1) * 3
  local limit, bms, k = tonumber(ARGV[base]), tonumber(ARGV[base + 1]), tonumber(ARGV[base + 2])
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
  if c.count + 1 > c.limit then admit = false end
end
if hit and admit then
  for i = 1, N do
    local c = C[i]
    local p = HDR + (c.cur % c.size) * 4 + 1
    local v = unpack4('>I4', c.raw, p) + 1
    c.count = c.count + 1
    if c.count == c.limit then c.full = now end
    c.raw = pack4('>dddd', c.cur, c.o, c.count, c.full) .. c.raw:sub(HDR + 1, p - 1) .. pack4('>I4', v) .. c.raw:sub(p + 4)
    redis.call('SET', KEYS[i], c.raw, 'PX', c.size * c.bms)
  end
end

local out = { admit and 1 or 0, now }
for i = 1, N do
  local c = C[i]
  local reset, retry, filled = c.k * c.bms, -1, -1
  if c.count > 0 then reset = (c.o + c.size) * c.bms - now end
  if hit and not admit and c.count >= c.limit then
    local need, cum = c.count - c.limit + 1, 0
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
    end
  end
  out[#out + 1] = c.count
  out[#out + 1] = reset
  out[#out + 1] = retry
  out[#out + 1] = filled
end
if #KEYS > N then out[#out + 1] = raws[N + 1] and 1 or 0 end
return out
`;
