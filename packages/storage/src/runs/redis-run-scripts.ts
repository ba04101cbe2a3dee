// The Lua scripts of the Redis run store. Each runs as one step on the server: that is what makes
// the limit check of `createRun` and the status check of `updateRun` atomic with their writes.
// Every field of a run's hash holds the field's JSON (a status is stored as `"running"`), so the
// scripts compare and copy values without decoding them; numbers are read with `tonumber`.

/**
 * Stores a new run unless its account has `max` runs in flight. At the limit, it first drops the
 * members of the in-flight set whose run is gone (evicted, deleted by hand) or finished, so that
 * they do not hold their slots for good, then counts again. (Those hashes are named from the
 * namespace's prefix: one Redis, not a cluster, as the other scripts need.)
 * KEYS: run hash, account's in-flight set, leases zset, agent's run list (zset).
 * ARGV: max, run id, lease_until, created ms, prefix of run hashes, then field/value pairs of the hash.
 * Returns 1 (stored), 0 (limit reached) or -1 (a run with this id exists).
 */
export const CREATE_RUN = `
if redis.call('EXISTS', KEYS[1]) == 1 then return -1 end
local max = tonumber(ARGV[1])
if redis.call('SCARD', KEYS[2]) >= max then
  for _, member in ipairs(redis.call('SMEMBERS', KEYS[2])) do
    local status = redis.call('HGET', ARGV[5] .. member, 'status')
    if status ~= '"queued"' and status ~= '"running"' then redis.call('SREM', KEYS[2], member) end
  end
  if redis.call('SCARD', KEYS[2]) >= max then return 0 end
end
redis.call('HSET', KEYS[1], unpack(ARGV, 6))
redis.call('SADD', KEYS[2], ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[2])
redis.call('ZADD', KEYS[4], ARGV[4], ARGV[2])
redis.call('PERSIST', KEYS[4])
return 1
`;

/**
 * Applies a change to a run of the account whose status is one of `from`, then keeps the indexes
 * in step: an unfinished run is in the in-flight set and in the leases zset at its lease; a finished
 * one is in neither, and its hash and events expire at its `expires_at` and `events_expire_at`; its
 * agent's run list lives at least as long as it (when the list's key is given).
 * KEYS: run hash, account's in-flight set, leases zset, events stream, agent's run list (or the run
 * hash again when not known).
 * ARGV: account id (JSON), run id, n, n statuses (JSON), '1' when KEYS[5] is the list, the time
 * (epoch ms) its lease must be before or '' for any lease, the id its stored events must end at
 * (0: none) or '' for any, then field/value pairs to set.
 * Returns the hash after the change (HGETALL), or nil when the run is not there, not the account's,
 * not in one of the statuses, its lease is not before the time given, or its events end elsewhere.
 */
export const UPDATE_RUN = `
local run = KEYS[1]
if redis.call('HGET', run, 'account_id') ~= ARGV[1] then return false end
local status = redis.call('HGET', run, 'status')
local n = tonumber(ARGV[3])
local allowed = false
for i = 4, 3 + n do
  if ARGV[i] == status then allowed = true end
end
if not allowed then return false end
local leaseBefore = tonumber(ARGV[5 + n])
if leaseBefore and not (tonumber(redis.call('HGET', run, 'lease_until')) < leaseBefore) then return false end
local endAt = tonumber(ARGV[6 + n])
if endAt then
  local last = 0
  local top = redis.call('XREVRANGE', KEYS[4], '+', '-', 'COUNT', 1)
  if top[1] then last = tonumber(string.match(top[1][1], '^%d+')) end
  if last ~= endAt then return false end
end
local withList = ARGV[4 + n] == '1'
if #ARGV > 6 + n then redis.call('HSET', run, unpack(ARGV, 7 + n)) end
status = redis.call('HGET', run, 'status')
if status == '"queued"' or status == '"running"' then
  redis.call('SADD', KEYS[2], ARGV[2])
  redis.call('ZADD', KEYS[3], tonumber(redis.call('HGET', run, 'lease_until')), ARGV[2])
  return redis.call('HGETALL', run)
end
redis.call('SREM', KEYS[2], ARGV[2])
redis.call('ZREM', KEYS[3], ARGV[2])
local eventsAt = tonumber(redis.call('HGET', run, 'events_expire_at'))
if eventsAt then redis.call('PEXPIREAT', KEYS[4], eventsAt) end
local expiresAt = tonumber(redis.call('HGET', run, 'expires_at'))
local reply = redis.call('HGETALL', run)
if expiresAt then
  if withList then
    local time = redis.call('TIME')
    local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
    local ttl = redis.call('PTTL', KEYS[5])
    if expiresAt > now and (ttl == -1 or (ttl >= 0 and now + ttl < expiresAt)) then
      redis.call('PEXPIREAT', KEYS[5], expiresAt)
    end
  end
  redis.call('PEXPIREAT', run, expiresAt)
end
return reply
`;

/**
 * Appends events to a run's stream under ids `<id>-0`, all or none, when they continue the stored
 * events exactly: ids the stream holds must hold the same events (a retried append, which adds
 * nothing), the rest follow its last; a finished run takes one new event at most, alone, at exactly
 * its `last_event_id`, agreeing with the hash (`done` for a `completed` or `requires_approval` run,
 * an `error` with the hash's error code for a `failed` or `cancelled` one), and none once its events
 * expired. A finished run's stream expires at its `events_expire_at`.
 * KEYS: events stream, run hash. ARGV: id/event pairs, the ids consecutive.
 * Returns 1 (stored, or held already) or 0 (refused: a gap, an id held with another event, past a
 * finished run's last, expired events, or no such run).
 */
export const APPEND_EVENTS = `
if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
local status = redis.call('HGET', KEYS[2], 'status')
local open = status == '"queued"' or status == '"running"'
local eventsAt = tonumber(redis.call('HGET', KEYS[2], 'events_expire_at'))
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
if not open and eventsAt and eventsAt <= now then return 0 end
local last = 0
local top = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
if top[1] then last = tonumber(string.match(top[1][1], '^%d+')) end
local first = tonumber(ARGV[1])
local n = #ARGV / 2
if first > last + 1 then return 0 end
local held = math.min(last, first + n - 1)
if held >= first then
  local stored = redis.call('XRANGE', KEYS[1], first .. '-0', held .. '-0')
  if #stored ~= held - first + 1 then return 0 end
  for i, entry in ipairs(stored) do
    if entry[2][2] ~= ARGV[2 * i] then return 0 end
  end
end
if not open and first + n - 1 > last then
  if n ~= 1 or first ~= tonumber(redis.call('HGET', KEYS[2], 'last_event_id')) then return 0 end
  local decoded, event = pcall(cjson.decode, ARGV[2])
  if not decoded or type(event) ~= 'table' then return 0 end
  if event.type == 'done' then
    if status ~= '"completed"' and status ~= '"requires_approval"' then return 0 end
  elseif event.type == 'error' then
    if status ~= '"failed"' and status ~= '"cancelled"' then return 0 end
    local read, failure = pcall(cjson.decode, redis.call('HGET', KEYS[2], 'error') or 'null')
    if not read or type(failure) ~= 'table' or type(event.code) ~= 'string' or failure.code ~= event.code then
      return 0
    end
  else
    return 0
  end
end
for i = last - first + 1, n - 1 do
  redis.call('XADD', KEYS[1], ARGV[2 * i + 1] .. '-0', 'e', ARGV[2 * i + 2])
end
if not open and eventsAt then redis.call('PEXPIREAT', KEYS[1], eventsAt) end
return 1
`;
