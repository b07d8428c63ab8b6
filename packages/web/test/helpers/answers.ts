import { filter, firstValueFrom, map } from 'rxjs';
import { pendingInterrupts$, type RunEventOf } from '@rxagents/core';

/** A page's answer: `POST` of `body` (a string is sent as it is). */
export const post = (body: unknown, method = 'POST'): Request =>
  new Request('http://localhost/runs/answer', {
    method,
    headers: { 'content-type': 'application/json' },
    ...(method === 'GET' ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });

/** The first interrupt open in this process under `runId` (the events' run id), once there is one. */
export const nextInterrupt = (runId: string): Promise<RunEventOf<'interrupt'>> =>
  firstValueFrom(
    pendingInterrupts$(runId).pipe(
      filter((open) => open.length > 0),
      map((open) => open[0] as RunEventOf<'interrupt'>),
    ),
  );

/** A response's JSON body. */
export const bodyOf = async (response: Response): Promise<unknown> => JSON.parse(await response.text()) as unknown;
