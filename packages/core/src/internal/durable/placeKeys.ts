/** The place key of a node id: the id without its attempts (`run/1#2/0` is at `run/1/0`). */
export function placeKeyOf(callId: string): string {
  return callId.indexOf('#') === -1 ? callId : callId.replace(/#\d+/g, '');
}

/** Which attempt at its place a call id is: 1 unless its last segment ends with `#n`. */
export function attemptOf(callId: string): number {
  const match = /#(\d+)$/.exec(callId);
  return match === null ? 1 : Number(match[1]);
}

/**
 * The id of the attempt a call id follows at its place (`run/1#3` follows `run/1#2`, `run/1#2` follows
 * `run/1`), or `undefined` for a first attempt. Only the last segment counts: `run/1#2/0` is a first
 * attempt, of a call under a second attempt.
 */
export function previousAttemptOf(callId: string): string | undefined {
  const match = /#(\d+)$/.exec(callId);
  if (match === null) return undefined;
  const attempt = Number(match[1]);
  if (!(attempt >= 2)) return undefined;
  const place = callId.slice(0, match.index);
  return attempt === 2 ? place : `${place}#${attempt - 1}`;
}
