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
if ARGV[2] ~= '' and redis.call('HGET', KEYS[3], 'token') ~= ARGV[2] then return {'lease-lost'} end
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
-- The run exists now: its lease is kept as long as the run is (see acquireLease).
if records == 0 then redis.call('PERSIST', KEYS[3]) end
if ARGV[5] ~= '' and ARGV[6] ~= '' then
  redis.call('PEXPIRE', KEYS[1], ARGV[6])
  redis.call('PEXPIRE', KEYS[2], ARGV[6])
  redis.call('PEXPIRE', KEYS[3], ARGV[6], 'LT')
end
return {'ok', createdAt}
`);

/** A time in ms (a Lua number) as a hash field holds it: whole digits, never an exponent. */
const MS = `local function ms(value) return string.format('%.0f', value) end`;

/**
 * How long after it lapses the lease of a run that has no journal yet is kept, in ms: a day. A lease is
 * kept as long as its run (its epoch must outlive it), but one taken for a run id that never gets a
 * journal would otherwise stay for ever.
 */
const UNSTARTED_LEASE_GRACE_MS = 86_400_000;

/** Puts the grace TTL on the lease (KEYS[1]) of a run without a summary (KEYS[2]), given the ttl argument. */
const KEEP_UNSTARTED = `
local function keepUnstarted(ttl)
  if ttl ~= '' and redis.call('EXISTS', KEYS[2]) == 0 then redis.call('PEXPIRE', KEYS[1], tonumber(ttl) + ${UNSTARTED_LEASE_GRACE_MS}) end
end
`;

/**
 * Takes a run's lease (keys: lease, summary; args: token, ttl ms or '' for none, host, pid, owner or '', and the
 * host and pid of a holder known to have exited, or ''). The lease is a hash (`token`, `epoch`,
 * `expiresAt` or '' for never, `host`, `pid`, `owner`) without a TTL: a lapsed lease stays its holder's
 * until another acquisition takes it, and its `epoch` stays after a release (`token` removed), so each
 * acquisition's epoch is one more than the last. It is taken when no token holds it, when it lapsed,
 * when it is held under the same non-empty owner, or when its holder is the exited process named:
 * `{1, now, epoch}`. Otherwise `{0, now, expiresAt, host, pid, owner}` ('' for what is unknown). A lease
 * already held under this token (a command that ioredis sent again after a lost reply; each acquisition
 * has a new token) is this acquisition's: it is given, its ttl counted from now, its epoch unchanged.
 * The lease of a run without a journal yet expires a day after it lapses (the first append keeps it).
 */
export const acquireLease = new LuaScript(`
${NOW}
${MS}
${KEEP_UNSTARTED}
local held = redis.call('HMGET', KEYS[1], 'token', 'epoch', 'expiresAt', 'host', 'pid', 'owner')
local epoch = tonumber(held[2]) or 0
local expires = ''
if ARGV[2] ~= '' then expires = ms(now + tonumber(ARGV[2])) end
if held[1] and held[1] == ARGV[1] then
  redis.call('HSET', KEYS[1], 'expiresAt', expires)
  keepUnstarted(ARGV[2])
  return {1, now, epoch}
end
if held[1] then
  local lapsed = held[3] and held[3] ~= '' and tonumber(held[3]) <= now
  local sameOwner = ARGV[5] ~= '' and held[6] == ARGV[5]
  local exited = ARGV[6] ~= '' and held[4] == ARGV[6] and held[5] == ARGV[7]
  if not (lapsed or sameOwner or exited) then return {0, now, held[3] or '', held[4] or '', held[5] or '', held[6] or ''} end
end
epoch = epoch + 1
redis.call('HSET', KEYS[1], 'token', ARGV[1], 'epoch', epoch, 'expiresAt', expires, 'host', ARGV[3], 'pid', ARGV[4], 'owner', ARGV[5])
keepUnstarted(ARGV[2])
return {1, now, epoch}
`);

/**
 * Extends a lease still held by this token, lapsed or not (keys: lease, summary; args: token, ttl ms or ''):
 * `{1, now, epoch}`, or `{0}` when another acquisition took it, or it was released or deleted.
 */
export const renewLease = new LuaScript(`
local held = redis.call('HMGET', KEYS[1], 'token', 'epoch')
if held[1] ~= ARGV[1] then return {0} end
${NOW}
${MS}
${KEEP_UNSTARTED}
local expires = ''
if ARGV[2] ~= '' then expires = ms(now + tonumber(ARGV[2])) end
redis.call('HSET', KEYS[1], 'expiresAt', expires)
keepUnstarted(ARGV[2])
return {1, now, tonumber(held[2])}
`);

/** Gives up a lease still held by this token, keeping its epoch for the next one (keys: lease; args: token). */
export const releaseLease = new LuaScript(`
if redis.call('HGET', KEYS[1], 'token') == ARGV[1] then return redis.call('HDEL', KEYS[1], 'token', 'expiresAt', 'host', 'pid', 'owner') end
return 0
`);

/**
 * Deletes a run after a while (keys: journal, summary, lease; args: ms, or '' to keep it after all): its
 * journal and summary expire then, and its lease then at the latest. Nothing happens to a run that does not exist.
 */
export const expireRun = new LuaScript(`
if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
if ARGV[1] == '' then
  redis.call('PERSIST', KEYS[1])
  redis.call('PERSIST', KEYS[2])
  return 1
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
redis.call('PEXPIRE', KEYS[3], ARGV[1], 'LT')
return 1
`);
