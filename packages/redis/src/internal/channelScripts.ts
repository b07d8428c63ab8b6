import { LuaScript } from './LuaScript';

/** Why an entry whose id the channel did not write is moved to the dead-letter stream. */
export const FOREIGN_REASON = 'its id is not one the channel writes';

/**
 * Moves the entries a channel did not write whose ids are above every ordinal (`XADD <items> * ...`: an id
 * of milliseconds since 1970) to the dead-letter stream, and sets the stream's last id back to the last
 * ordinal (`XSETID`), so that the producers' next ordinals can be added again and every consumer reads on.
 * Keys: items, dead letters, consumers. Args: the first id above the ordinals, the ordinal limit, the last
 * ordinal the caller knows of, the dead-letter stream's MAXLEN, its ttl (ms), the name of who moved them.
 * Returns the last ordinal (of the stream, or the highest known one when the stream holds none).
 */
export const dropForeignEntries = new LuaScript(`
local known = tonumber(ARGV[3])
if redis.call('EXISTS', KEYS[1]) == 0 then return known end
local foreign = redis.call('XRANGE', KEYS[1], ARGV[1], '+')
for _, entry in ipairs(foreign) do
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[4], '*', 'reason', '${FOREIGN_REASON}', 'entryId', entry[1], 'by', ARGV[6], 'fields', cjson.encode(entry[2]))
  redis.call('XDEL', KEYS[1], entry[1])
end
if #foreign > 0 then redis.call('PEXPIRE', KEYS[2], ARGV[5]) end
local limit = tonumber(ARGV[2])
local info = redis.call('XINFO', 'STREAM', KEYS[1])
local last = 0
for i = 1, #info, 2 do
  if info[i] == 'last-generated-id' then last = tonumber(string.match(info[i + 1], '^(%d+)')) end
end
if last < limit then return last end
for _, position in ipairs(redis.call('HVALS', KEYS[3])) do
  local at = tonumber(position)
  if at and at < limit and at > known then known = at end
end
local top = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)[1]
local topAt = top and tonumber(string.match(top[1], '^(%d+)')) or -1
if topAt >= known then
  redis.call('XSETID', KEYS[1], top[1])
  return topAt
end
redis.call('XSETID', KEYS[1], string.format('%d-0', known))
return known
`);

/**
 * Moves one malformed entry of a channel's stream to the dead-letter stream, if it is still there (another
 * consumer may have moved it first). Keys: items, dead letters. Args: the entry id, the reason, the name of
 * who moved it, the dead-letter stream's MAXLEN, its ttl (ms). Returns 1 when this call moved it.
 */
export const deadLetterEntry = new LuaScript(`
local entry = redis.call('XRANGE', KEYS[1], ARGV[1], ARGV[1])[1]
if not entry then return 0 end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[4], '*', 'reason', ARGV[2], 'entryId', entry[1], 'by', ARGV[3], 'fields', cjson.encode(entry[2]))
redis.call('PEXPIRE', KEYS[2], ARGV[5])
redis.call('XDEL', KEYS[1], entry[1])
return 1
`);
