import { lastValueFrom, Subject, tap, toArray, VirtualTimeScheduler } from 'rxjs';
import type { RunEvent } from '@rxagents/core';
import { createRunRegistry, EventStreamError, fromEventStream, type EventStreamStatus } from '@rxagents/web';
import { restartable, settleOnVirtualTime, type RestartableServer } from './helpers/restartable';

const base = { runId: 'r', callId: 'c', parentCallId: null, at: 0 } as const;
const runStart: RunEvent = { type: 'run-start', ...base, name: 'story', input: 'go' };
const delta = (i: number): RunEvent => ({ type: 'text-delta', ...base, agentId: 'a', delta: `d${i} ` });
const runEnd: RunEvent = { type: 'run-end', ...base, success: true, durationMs: 1 };
const text = (events: readonly RunEvent[]): string => events.map((e) => (e.type === 'text-delta' ? e.delta : `${e.type} `)).join('');

const servers: RestartableServer[] = [];
const registries: { close(): void }[] = [];

/** A registry run fed by hand, served by a real server that can be stopped and started on its port. */
async function restartableRun(): Promise<{ server: RestartableServer; url: string; events$: Subject<RunEvent> }> {
  const registry = createRunRegistry();
  registries.push(registry);
  const events$ = new Subject<RunEvent>();
  const { runId } = registry.start(events$);
  events$.next(runStart);
  const server = await restartable((request) => registry.response(new URL(request.url).pathname.split('/').at(-1) ?? '', request));
  servers.push(server);
  return { server, url: `${server.url}/runs/${runId}`, events$ };
}

/** The reconnecting statuses as `attempt:delayMs@retryAt` (elapsed), for comparing sequences. */
const plan = (statuses: readonly EventStreamStatus[]): string[] =>
  statuses.flatMap((s) => (s.state === 'reconnecting' ? [`${s.attempt}:${s.delayMs}@${s.retryAt} (${s.elapsedMs})`] : s.state === 'connected' ? [`connected after ${s.attempt}`] : [`gave up after ${s.attempts} (${s.elapsedMs})`]));

describe('fromEventStream reconnecting through a restart, on virtual time', () => {
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.stop()));
    for (const registry of registries.splice(0)) registry.close();
  });

  it('with the default retry, reads on through a server down for 70 s: no gap, no repeat, completes at run-end', async () => {
    const { server, url, events$ } = await restartableRun();
    const scheduler = new VirtualTimeScheduler();
    events$.next(delta(0));
    const seen: RunEvent[] = [];
    const done = lastValueFrom(fromEventStream(url, { scheduler }).pipe(tap((event) => seen.push(event)), toArray()));
    let phase: 'reading' | 'down' | 'back' | 'ended' = 'reading';
    const events = await settleOnVirtualTime(scheduler, done, async () => {
      if (phase === 'reading' && seen.length === 2) {
        await server.stop();
        events$.next(delta(1)); // kept by the registry while the page is away
        phase = 'down';
      } else if (phase === 'down' && scheduler.now() >= 70_000) {
        // Whether the try in flight now still finds the port closed or not, a later one connects.
        await server.start();
        phase = 'back';
      } else if (phase === 'back' && server.requests.length > 1) {
        events$.next(delta(2));
        events$.next(runEnd);
        phase = 'ended';
      }
    });
    expect(text(events)).toBe('run-start d0 d1 d2 run-end ');
    expect(scheduler.now()).toBeGreaterThanOrEqual(70_000);
    expect(server.requests.at(-1)?.headers.get('last-event-id')).toBe('1');
  });

  it('backs off from delayMs by factor up to maxDelayMs, less the jitter share drawn from retry.random, and says so in onStatus', async () => {
    const { server, url, events$ } = await restartableRun();
    await server.stop();
    const scheduler = new VirtualTimeScheduler();
    const draws = [0, 0.5, 1, 0.2];
    let draw = 0;
    const statuses: EventStreamStatus[] = [];
    const retry = { delayMs: 1_000, factor: 2, maxDelayMs: 5_000, jitter: 0.5, random: () => draws[draw++ % draws.length] as number };
    const done = lastValueFrom(fromEventStream(url, { scheduler, retry, onStatus: (status) => statuses.push(status) }).pipe(toArray()));
    await settleOnVirtualTime(scheduler, done, async () => {
      const last = statuses.at(-1);
      // Back before the try due past 20 s: that try connects.
      if (!server.running && last?.state === 'reconnecting' && last.retryAt >= 20_000) {
        await server.start();
        events$.next(runEnd);
      }
    });
    // 1000, 2000 × 0.75, 4000 × 0.5, then 5000 (the cap) × 0.9, × 1, × 0.75, × 0.5 ...
    expect(plan(statuses)).toEqual([
      '1:1000@1000 (0)',
      '2:1500@2500 (1000)',
      '3:2000@4500 (2500)',
      '4:4500@9000 (4500)',
      '5:5000@14000 (9000)',
      '6:3750@17750 (14000)',
      '7:2500@20250 (17750)',
      'connected after 7',
    ]);
    const first = statuses[0] as Extract<EventStreamStatus, { state: 'reconnecting' }>;
    expect((first.cause as Error).name).toBe('TypeError'); // fetch's own error for a refused connection
  });

  it('gives up when maxElapsedMs is spent: the last try at the budget end, gave-up told, then EVENT_STREAM_DROPPED naming the tries', async () => {
    const { server, url } = await restartableRun();
    await server.stop();
    const scheduler = new VirtualTimeScheduler();
    const statuses: EventStreamStatus[] = [];
    const done = lastValueFrom(fromEventStream(url, { scheduler, retry: { jitter: 0, maxElapsedMs: 10_000 }, onStatus: (status) => statuses.push(status) }));
    const error = await settleOnVirtualTime(scheduler, done).catch((thrown: unknown) => thrown);
    expect(plan(statuses)).toEqual(['1:1000@1000 (0)', '2:2000@3000 (1000)', '3:4000@7000 (3000)', '4:3000@10000 (7000)', 'gave up after 4 (10000)']);
    expect(error).toBeInstanceOf(EventStreamError);
    expect(error).toMatchObject({ code: 'EVENT_STREAM_DROPPED', message: 'The event stream was dropped (4 reconnections tried over 10 s)', context: { attempts: 4, elapsedMs: 10_000 } });
    expect(statuses.at(-1)).toMatchObject({ state: 'gave-up', error });
  });

  it('gives up after maxAttempts reconnections too, whichever comes first', async () => {
    const { server, url } = await restartableRun();
    await server.stop();
    const scheduler = new VirtualTimeScheduler();
    const statuses: EventStreamStatus[] = [];
    const done = lastValueFrom(fromEventStream(url, { scheduler, retry: { jitter: 0, maxAttempts: 2 }, onStatus: (status) => statuses.push(status) }));
    const error = await settleOnVirtualTime(scheduler, done).catch((thrown: unknown) => thrown);
    expect(plan(statuses)).toEqual(['1:1000@1000 (0)', '2:2000@3000 (1000)', 'gave up after 2 (3000)']);
    expect(error).toMatchObject({ code: 'EVENT_STREAM_DROPPED', context: { attempts: 2 } });
  });

  it('an event resets the backoff and the budget: the next drop starts again from delayMs', async () => {
    const { server, url, events$ } = await restartableRun();
    const scheduler = new VirtualTimeScheduler();
    const statuses: EventStreamStatus[] = [];
    const seen: RunEvent[] = [];
    const stream$ = fromEventStream(url, { scheduler, retry: { jitter: 0, maxElapsedMs: 8_000 }, onStatus: (status) => statuses.push(status) });
    const done = lastValueFrom(stream$.pipe(tap((event) => seen.push(event)), toArray()));
    let phase = 0;
    const events = await settleOnVirtualTime(scheduler, done, async () => {
      const last = statuses.at(-1);
      if (phase === 0 && last?.state === 'connected') {
        await server.stop();
        phase = 1;
      } else if (phase === 1 && last?.state === 'reconnecting' && last.attempt === 2) {
        await server.start();
        events$.next(delta(0));
        phase = 3;
      } else if (phase === 3 && seen.length === 2) {
        // The event was read: the count and the budget start over at the next drop.
        await server.stop();
        phase = 4;
      } else if (phase === 4 && last?.state === 'reconnecting' && last.retryAt >= 10_000) {
        // 7 s after the second drop: past the first budget's end (8 s after the first drop), within the second one's.
        await server.start();
        events$.next(runEnd);
        phase = 5;
      }
    });
    expect(text(events)).toBe('run-start d0 run-end ');
    expect(plan(statuses)).toEqual([
      'connected after 0',
      '1:1000@1000 (0)',
      '2:2000@3000 (1000)',
      'connected after 2',
      '1:1000@4000 (0)',
      '2:2000@6000 (1000)',
      '3:4000@10000 (3000)',
      'connected after 3',
    ]);
  });

  it('a 502, 503 or 504 answer (a proxy before a restarting server) is a drop to reconnect from, not an error', async () => {
    const registry = createRunRegistry();
    registries.push(registry);
    const events$ = new Subject<RunEvent>();
    const { runId } = registry.start(events$);
    events$.next(runStart);
    const answers = [502, 503, 504];
    const server = await restartable((request) => {
      const status = answers.shift();
      return status === undefined ? registry.response(runId, request) : new Response('upstream restarting', { status });
    });
    servers.push(server);
    const scheduler = new VirtualTimeScheduler();
    const statuses: EventStreamStatus[] = [];
    const done = lastValueFrom(fromEventStream(server.url, { scheduler, retry: { jitter: 0 }, onStatus: (status) => statuses.push(status) }).pipe(toArray()));
    const events = await settleOnVirtualTime(scheduler, done, () => {
      if (statuses.at(-1)?.state === 'connected' && events$.observed) events$.next(runEnd);
    });
    expect(text(events)).toBe('run-start run-end ');
    const causes = statuses.flatMap((s) => (s.state === 'reconnecting' ? [s.cause] : []));
    expect(causes).toEqual([502, 503, 504].map((status) => expect.objectContaining({ code: 'EVENT_STREAM_STATUS', context: { status } }) as unknown));
  });

  it('an onStatus that throws errors the Observable with its error and stops reading', async () => {
    const { url } = await restartableRun();
    const failure = new Error('the page broke');
    const error = await lastValueFrom(
      fromEventStream(url, {
        onStatus: () => {
          throw failure;
        },
      }),
    ).catch((thrown: unknown) => thrown);
    expect(error).toBe(failure);
  });

  it('refuses bad retry options with a ConfigError naming each', () => {
    expect(() => fromEventStream('http://x', { retry: { maxDelayMs: 500, delayMs: 1_000 } })).toThrow(/retry\.maxDelayMs must be at least retry\.delayMs \(1000\)/);
    expect(() => fromEventStream('http://x', { retry: { maxDelayMs: Infinity } })).toThrow(/retry\.maxDelayMs must be a finite number/);
    expect(() => fromEventStream('http://x', { retry: { factor: 0.5 } })).toThrow(/retry\.factor must be a number from 1 to 1000/);
    expect(() => fromEventStream('http://x', { retry: { jitter: 2 } })).toThrow(/retry\.jitter must be a number from 0 to 1/);
    expect(() => fromEventStream('http://x', { retry: { random: 0.5 } as never })).toThrow(/retry\.random must be a function/);
    expect(() => fromEventStream('http://x', { retry: { maxElapsedMs: -1 } })).toThrow(/retry\.maxElapsedMs must be from 0/);
    expect(() => fromEventStream('http://x', { onStatus: 'log' as never })).toThrow(/onStatus must be a function/);
    // A longer first delay raises the default cap to it.
    expect(() => fromEventStream('http://x', { retry: { delayMs: 30_000 } })).not.toThrow();
  });
});
