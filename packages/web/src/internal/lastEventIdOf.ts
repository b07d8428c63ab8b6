/** The request's `Last-Event-ID` header (or `?lastEventId=` query) as a number, `undefined` when none, `bad` when it is no event id. */
export function lastEventIdOf(request: Request): number | undefined | 'bad' {
  const lastEventId = request.headers.get('last-event-id') ?? new URL(request.url).searchParams.get('lastEventId');
  if (lastEventId === null || lastEventId === '') return undefined;
  return /^\d{1,15}$/.test(lastEventId) ? Number(lastEventId) : 'bad';
}

/** The `404` of a run neither the registry nor its store holds. */
export const unknownRun = (): Response => new Response('Unknown run', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' } });
/** The `400` of a `Last-Event-ID` that is not one of the run's event ids (its body never repeats it). */
export const badLastEventId = (): Response => new Response('Last-Event-ID is not an event of this run', { status: 400 });
