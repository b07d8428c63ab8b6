import { LuaScript } from './LuaScript';

/**
 * Sends a call made with an idempotency key unless a call with its id exists, in one step, so that two
 * callers of one key (a run resumed twice, a caller resumed while another still waits) send it once
 * (keys: lease, reply, attempts, entry, and the agent's call stream when it shares their slot; args: lease
 * ms, the lease-lost code, and with the call stream its MAXLEN and the call's JSON).
 *
 * The call exists when its caller's lease does (it was requested and a caller held it less than its
 * `leaseMs` ago), or its reply stream does (a worker took it: it runs, or it ended and the stream is kept
 * for the worker's `replyTtlMs`). Then the lease is stored again (whoever attaches holds the call now) and
 * the caller reads the reply stream from its start: 0 is returned, or 2 when there is no reply stream
 * yet (no worker took the call). On a Redis Cluster a caller then adds the call's entry once more: the
 * caller before it may have died between this script and its `XADD`, and of two entries of one call a
 * worker runs only the one that takes the call first (see `claimCall`). A stream whose last reply says the
 * worker stopped the call because no caller held its lease is a call that nobody will finish: its reply
 * stream, attempts and entry key are deleted and the call is sent again. A sent call stores the lease and
 * adds the call's entry: its entry id is returned, or 1 when the call stream is not among the keys (a
 * Redis Cluster: the caller adds the entry itself, just after).
 */
export const attachCall = new LuaScript(`
local function stopped()
  local last = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)[1]
  if not last then return false end
  local fields = last[2]
  for i = 1, #fields - 1, 2 do
    local ok, value = pcall(cjson.decode, fields[i + 1])
    if ok and fields[i] == 'replies' and type(value) == 'table' then value = value[#value] end
    if ok and type(value) == 'table' and value.kind == 'error' and type(value.error) == 'table' and value.error.code == ARGV[2] then return true end
  end
  return false
end
local replied = redis.call('EXISTS', KEYS[2]) == 1
if replied and stopped() then
  redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
elseif replied then
  redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
  return 0
elseif redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
  return 2
end
redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
if KEYS[5] then return redis.call('XADD', KEYS[5], 'MAXLEN', '~', ARGV[3], '*', 'call', ARGV[4]) end
return 1
`);
