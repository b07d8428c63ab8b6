import { LuaScript } from './LuaScript';

/**
 * Takes a call for an entry (keys: lease, entry, reply; args: entry id, ttl ms), only while its caller's
 * lease exists: 0 when it does not (the caller cancelled or its lease ran out: nothing is written), 1 when
 * the call is this entry's (it was free, or already this entry's: a restart, or a resent command), 2 when
 * another entry of the same call took it. Taking it creates the call's reply stream (empty, its last id
 * 0-0: a caller blocked on it is not woken for nothing, as it would be by an entry added and trimmed) if
 * it does not exist, with the ttl: every reply is then added with `NOMKSTREAM`, so that no write of the worker
 * creates the stream again once the caller deleted it.
 */
export const claimCall = new LuaScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local previous = redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2], 'NX', 'GET')
if previous and previous ~= ARGV[1] then return 2 end
if redis.call('EXISTS', KEYS[3]) == 0 then
  redis.call('XGROUP', 'CREATE', KEYS[3], 'open', '$', 'MKSTREAM')
  redis.call('XGROUP', 'DESTROY', KEYS[3], 'open')
  redis.call('PEXPIRE', KEYS[3], ARGV[2])
end
return 1
`);

/**
 * Ends what a worker left of a call it stopped because its caller's lease was gone (keys: lease, entry,
 * reply, attempts; args: the lease-lost reply, the reply for a missing stream or '', the reply stream's
 * MAXLEN, ttl ms). The call's `entry` key tells a lease that ran out from a cancellation: a cancelling
 * caller deletes its lease, reply stream, attempts and entry key in one `DEL`.
 * - Lease gone, entry key there (the lease ran out): the lease-lost reply is added to the reply stream
 *   (never creating it), so a caller that is still there ends its call at once: 1.
 * - Lease and entry key gone (cancelled): the reply stream and attempts list, which a write of the worker
 *   may have created again after the cancellation, are deleted: 2.
 * - Lease there: the reply stream was missing for another reason (it expired: the worker stalled past its
 *   ttl); the second reply, when given, is added so that the caller does not wait: 3; otherwise 0.
 */
export const stopCall = new LuaScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then
  if ARGV[2] == '' then return 0 end
  redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[3], '*', 'reply', ARGV[2])
  redis.call('PEXPIRE', KEYS[3], ARGV[4])
  return 3
end
if redis.call('EXISTS', KEYS[2]) == 1 then
  if redis.call('XADD', KEYS[3], 'NOMKSTREAM', 'MAXLEN', '~', ARGV[3], '*', 'reply', ARGV[1]) then
    redis.call('PEXPIRE', KEYS[3], ARGV[4])
  end
  return 1
end
redis.call('DEL', KEYS[3], KEYS[4])
return 2
`);

/**
 * Takes back a claimed call entry that waited on a busy worker and was released (no longer confirmed), if
 * it is still this worker's: still pending for this consumer, not claimed by another worker nor answered
 * (keys: the call stream; args: group, consumer, entry id). Its idle time starts again (`XCLAIM`). Returns 1
 * when it was taken back.
 */
export const retakeClaim = new LuaScript(`
local pending = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[3], ARGV[3], 1)[1]
if not pending or pending[2] ~= ARGV[2] then return 0 end
redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[3], 'JUSTID')
return 1
`);
