import { LuaScript } from './LuaScript';

/** Redis's clock in ms, read inside a script (Redis replicates a script's effects, so it may then write). */
const NOW = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
`;

/**
 * Appends records to a run, all or none (keys: journal, summary, lease; args: append id, lease token or
 * '', '1' when the first event is the root's run-start, the run's name, the root's end status or '', the
 * retention ms or '', then each event as JSON). Replies `{'ok', createdAt}`, also when this append id is
 * the last one applied (a command that ioredis sent again after a lost reply: nothing is added twice);
 * `{'lease-lost'}`, `{'not-started'}` (a new journal not opening with the root's run-start), or
 * `{'damaged', entryId}` (the stream does not end where the summary says: an entry someone else wrote).
 * Every check runs before the first write, and the first write is where Redis refuses a script for lack
 * of memory, so a refused append writes nothing.
 */
export const appendRecords = new LuaScript(`
local summary = redis.call('HMGET', KEYS[2], 'records', 'append', 'createdAt')
if summary[2] == ARGV[1] then return {'ok', tonumber(summary[3])} end
if ARGV[2] ~= '' and redis.call('GET', KEYS[3]) ~= ARGV[2] then return {'lease-lost'} end
local records = tonumber(summary[1])
${NOW}
local createdAt = tonumber(summary[3])
if records == nil then
  local first = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)[1]
  if first then return {'damaged', first[1]} end
  if ARGV[3] ~= '1' then return {'not-started'} end
  records = 0
  createdAt = now
else
  local top = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)[1]
  local expected = records .. '-0'
  if not top then return {'damaged', expected} end
  if top[1] ~= expected then return {'damaged', top[1]} end
end
for i = 7, #ARGV do
  redis.call('XADD', KEYS[1], (records + i - 6) .. '-0', 'event', ARGV[i])
end
local fields = {'records', records + #ARGV - 6, 'updatedAt', now, 'append', ARGV[1]}
if records == 0 then
  table.insert(fields, 'name'); table.insert(fields, ARGV[4])
  table.insert(fields, 'createdAt'); table.insert(fields, now)
end
if ARGV[5] ~= '' then
  table.insert(fields, 'status'); table.insert(fields, ARGV[5])
elseif records == 0 then
  table.insert(fields, 'status'); table.insert(fields, 'running')
end
redis.call('HSET', KEYS[2], unpack(fields))
if ARGV[5] ~= '' and ARGV[6] ~= '' then
  redis.call('PEXPIRE', KEYS[1], ARGV[6])
  redis.call('PEXPIRE', KEYS[2], ARGV[6])
  redis.call('PEXPIRE', KEYS[3], ARGV[6], 'LT')
end
return {'ok', createdAt}
`);

/**
 * Takes a lease when none is held (keys: lease, epoch; args: token, ttl ms or '' for none): `{1, now,
 * epoch}` (the run's epoch counter incremented: the lease's fencing token), or
 * `{0, now, pttl}` while another holder's lease lasts (pttl -1: it never lapses). A lease already held
 * under this token (a command that ioredis sent again after a lost reply; each acquisition has a new
 * token) is this acquisition's: it is given, its ttl counted from now.
 */
export const acquireLease = new LuaScript(`
${NOW}
local held = redis.call('GET', KEYS[1])
if held and held ~= ARGV[1] then return {0, now, redis.call('PTTL', KEYS[1])} end
if ARGV[2] == '' then
  redis.call('SET', KEYS[1], ARGV[1])
else
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
end
return {1, now, redis.call('INCR', KEYS[2])}
`);

/** Extends a lease still held by this token (keys: lease; args: token, ttl ms or ''): `{1, now}`, or `{0}` when it is not. */
export const renewLease = new LuaScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return {0} end
${NOW}
if ARGV[2] == '' then redis.call('PERSIST', KEYS[1]) else redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return {1, now}
`);

/** Deletes a lease still held by this token (keys: lease; args: token). */
export const releaseLease = new LuaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`);

/**
 * Deletes a run after a while (keys: journal, summary, lease, epoch; args: ms, or '' to keep it after all): its
 * journal and summary expire then, and its lease then at the latest. Nothing happens to a run that does not exist.
 */
export const expireRun = new LuaScript(`
if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
if ARGV[1] == '' then
  redis.call('PERSIST', KEYS[1])
  redis.call('PERSIST', KEYS[2])
  redis.call('PERSIST', KEYS[4])
  return 1
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
redis.call('PEXPIRE', KEYS[3], ARGV[1], 'LT')
redis.call('PEXPIRE', KEYS[4], ARGV[1])
return 1
`);
