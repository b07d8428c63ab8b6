/** The place key of a node id: the id without its attempts (`run/1#2/0` is at `run/1/0`). */
export function placeKeyOf(callId: string): string {
  return callId.indexOf('#') === -1 ? callId : callId.replace(/#\d+/g, '');
}

/** Which attempt at its place a call id is: 1 unless its last segment ends with `#n`. */
export function attemptOf(callId: string): number {
  const match = /#(\d+)$/.exec(callId);
  return match === null ? 1 : Number(match[1]);
}
