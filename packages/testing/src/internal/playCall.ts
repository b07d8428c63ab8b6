import { concat, ignoreElements, NEVER, type Observable, type SchedulerLike } from 'rxjs';
import { ReplayedCallError } from '../errors/ReplayedCallError';
import type { JournalCall } from '../JournalCall';
import { observeAnswer } from '../ScriptAnswer';
import { after } from './after';

/**
 * @internal A recorded call answered again on `scheduler`, from the moment it is subscribed (the call's
 * `call-start`): the deltas of each recorded instant as one `{ chunks, delay }` script answer timed from the
 * instant before, then the end at its recorded time: completion, the rebuilt error, or (cancelled,
 * interrupted, unfinished) nothing ever.
 *
 * One part per instant, not per delta: every part after the first then starts with a timer, so `concat`
 * never subscribes a long row of parts that complete at once (which recurses once per part).
 */
export function playCall(call: JournalCall, scheduler: SchedulerLike): Observable<string> {
  const parts: Observable<string>[] = [];
  let previous = 0;
  let instant = 0;
  let chunks: string[] = [];
  const flush = (): void => {
    if (chunks.length > 0) parts.push(observeAnswer({ chunks, delay: instant - previous }, scheduler));
    previous = instant;
    chunks = [];
  };
  for (const { delta, afterMs } of call.deltas) {
    if (afterMs !== instant) {
      flush();
      instant = afterMs;
    }
    chunks.push(delta);
  }
  flush();
  const { end } = call;
  if (end.kind === 'completed') parts.push(after(end.afterMs - previous, scheduler).pipe(ignoreElements()));
  else if (end.kind === 'failed') parts.push(observeAnswer({ error: new ReplayedCallError(call.agentId, end.error), delay: end.afterMs - previous }, scheduler));
  else parts.push(NEVER);
  return concat(...parts);
}
