import { ignoreElements, NEVER, type Observable, type SchedulerLike } from 'rxjs';
import { ReplayedCallError } from '../errors/ReplayedCallError';
import type { JournalCall } from '../JournalCall';
import { observeAnswer } from '../ScriptAnswer';
import { after } from './after';
import { sequence } from './sequence';

/**
 * @internal A recorded call answered again on `scheduler`, from the moment it is subscribed (the call's
 * `call-start`): the deltas of each recorded instant as one `{ chunks, delay }` script answer timed from the
 * instant before, then the end at its recorded time: completion, the rebuilt error, or (cancelled,
 * interrupted, unfinished) nothing ever.
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
  return sequence(parts);
}
