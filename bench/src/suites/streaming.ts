import { Readable } from 'node:stream';
import { FixedBuffer, Repeater } from '@repeaterjs/repeater';
import { Effect, Fiber, Queue } from 'effect';
import { pushable } from 'it-pushable';
import { concatMap, of, range, Subject } from 'rxjs';
import { backpressure, BackpressureStrategy, StreamingChannel } from '@rxagents/streaming';
import type { BenchFigure, BenchSuite } from '../BenchSuite';
import { median } from '../median';

const ITEMS = 1_000_000;
const BUFFER = 256;
const ROUNDS = 5;

type Run = () => Promise<void> | void;

async function seconds(run: Run): Promise<number> {
  const start = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - start) / 1e9;
}

/** Runs every contender once per round, interleaved, after one warm-up; returns median items/s of each. */
async function race(contenders: Record<string, Run>, rounds: number, items: number): Promise<Record<string, number>> {
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(contenders).map((name) => [name, []]));
  for (const run of Object.values(contenders)) await run();
  for (let round = 0; round < rounds; round++) {
    for (const [name, run] of Object.entries(contenders)) {
      times[name]!.push(await seconds(run));
    }
  }
  return Object.fromEntries(Object.entries(times).map(([name, list]) => [name, items / median(list)]));
}

let sink = 0;

const syncContenders: Record<string, Run> = {
  channel: () => {
    const channel = StreamingChannel.create<number>({ bufferSize: BUFFER });
    channel.subscribe((n) => {
      sink += n;
    });
    for (let i = 0; i < ITEMS; i++) channel.emit(i);
  },
  'Subject.next': () => {
    const subject = new Subject<number>();
    subject.subscribe((n) => {
      sink += n;
    });
    for (let i = 0; i < ITEMS; i++) subject.next(i);
  },
};

// Measured in its own race after the main one: interleaving a second channel consumer style in the same
// rounds changes the JIT feedback of the shared dispatcher code and would blur the headline figure.
const forAwaitContender: Record<string, Run> = {
  'channel (for await)': async () => {
    const channel = StreamingChannel.create<number>({ bufferSize: BUFFER, backpressure: BackpressureStrategy.BLOCK });
    const consumer = (async () => {
      for await (const n of channel) sink += n;
    })();
    for (let i = 0; i < ITEMS; i++) await channel.offer(i);
    channel.complete();
    await consumer;
  },
};

const blockContenders: Record<string, Run> = {
  channel: async () => {
    const channel = StreamingChannel.create<number>({ bufferSize: BUFFER, backpressure: BackpressureStrategy.BLOCK });
    const done = new Promise<void>((resolve) => channel.onComplete(resolve));
    channel.subscribe(async (n) => {
      sink += n;
    });
    for (let i = 0; i < ITEMS; i++) await channel.offer(i);
    channel.complete();
    await done;
  },
  'it-pushable': async () => {
    const source = pushable<number>({ objectMode: true });
    const consumer = (async () => {
      for await (const n of source) sink += n;
    })();
    for (let i = 0; i < ITEMS; i++) {
      source.push(i);
      if (source.readableLength >= BUFFER) await source.onEmpty();
    }
    source.end();
    await consumer;
  },
  'node Readable': async () => {
    let resume: (() => void) | undefined;
    const readable = new Readable({
      objectMode: true,
      highWaterMark: BUFFER,
      read() {
        const go = resume;
        resume = undefined;
        go?.();
      },
    });
    const consumer = (async () => {
      for await (const n of readable) sink += n as number;
    })();
    for (let i = 0; i < ITEMS; i++) {
      if (!readable.push(i)) await new Promise<void>((resolve) => (resume = resolve));
    }
    readable.push(null);
    await consumer;
  },
  repeater: async () => {
    const repeater = new Repeater<number>(async (push, stop) => {
      for (let i = 0; i < ITEMS; i++) await push(i);
      stop();
    }, new FixedBuffer(BUFFER));
    for await (const n of repeater) sink += n;
  },
  'effect Queue': () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const queue = yield* Queue.bounded<number>(BUFFER);
        const consumer = yield* Effect.fork(
          Effect.gen(function* () {
            for (let i = 0; i < ITEMS; i++) sink += yield* Queue.take(queue);
          }),
        );
        for (let i = 0; i < ITEMS; i++) yield* Queue.offer(queue, i);
        yield* Fiber.join(consumer);
      }),
    ),
};

const PROJECTED = 300_000;

// Synchronous projects: what the operator itself costs per value, against RxJS's unbounded `concatMap`.
const projectContenders: Record<string, Run> = {
  concatMap: () => {
    range(0, PROJECTED)
      .pipe(concatMap((n) => of(n)))
      .subscribe((n) => {
        sink += n;
      });
  },
  backpressure: () => {
    range(0, PROJECTED)
      .pipe(backpressure((n: number) => of(n), { concurrency: 1 }))
      .subscribe((n) => {
        sink += n;
      });
  },
};

const consume = (n: number): void => {
  sink += n;
};

// The floor of a channel's synchronous path: the same items through a bare circular array of the
// channel's buffer size, each enqueued, dequeued, counted (a channel counts what it delivers) and handed
// to the same consumer.
const ringContenders: Record<string, Run> = {
  channel: () => {
    const channel = StreamingChannel.create<number>({ bufferSize: BUFFER });
    channel.subscribe(consume);
    for (let i = 0; i < ITEMS; i++) channel.emit(i);
  },
  ring: () => {
    const slots = new Array<number | undefined>(BUFFER);
    let head = 0;
    let size = 0;
    let delivered = 0;
    for (let i = 0; i < ITEMS; i++) {
      let tail = head + size;
      if (tail >= BUFFER) tail -= BUFFER;
      slots[tail] = i;
      size += 1;
      while (size > 0) {
        const n = slots[head] as number;
        slots[head] = undefined;
        head = head + 1 === BUFFER ? 0 : head + 1;
        size -= 1;
        consume(n);
        delivered += 1;
      }
    }
    if (delivered !== ITEMS) throw new Error('ring bench lost count');
  },
};

function stalledBurst(items: number): Run {
  return () => {
    const channel = StreamingChannel.create<number>({ bufferSize: BUFFER });
    channel.subscribe(() => new Promise<void>(() => undefined));
    for (let i = 0; i < items; i++) channel.emit(i);
  };
}

async function heapGrowthMB(items: number): Promise<number> {
  global.gc?.();
  const before = process.memoryUsage().heapUsed;
  const channel = StreamingChannel.create<number>({ bufferSize: BUFFER });
  channel.subscribe(() => new Promise<void>(() => undefined));
  for (let i = 0; i < items; i++) channel.emit(i);
  global.gc?.();
  const after = process.memoryUsage().heapUsed;
  if (channel.metrics().emitted !== items) throw new Error('heap bench lost count');
  return (after - before) / (1024 * 1024);
}

const format = (perSecond: number) => `${(perSecond / 1e6).toFixed(2)}M items/s`;

export const suite: BenchSuite = {
  name: 'streaming',
  async run(log) {
    // First, while no other race has run in this process: see docs/performance.md, "How the figures are taken".
    const ring = await race(ringContenders, ROUNDS, ITEMS);
    log(`ring  channel ${format(ring.channel!)}, bare ring buffer ${format(ring.ring!)}`);
    const sync = await race(syncContenders, ROUNDS, ITEMS);
    for (const [name, perSecond] of Object.entries(sync)) log(`sync  ${name.padEnd(22)} ${format(perSecond)}`);

    const block = await race(blockContenders, 3, ITEMS);
    for (const [name, perSecond] of Object.entries(block)) log(`block ${name.padEnd(22)} ${format(perSecond)}`);
    const peers = Object.entries(block).filter(([name]) => !name.startsWith('channel'));
    const [fastestPeer, fastestRate] = peers.reduce((best, entry) => (entry[1] > best[1] ? entry : best));
    const forAwait = await race(forAwaitContender, 3, ITEMS);
    log(`block ${'channel (for await)'.padEnd(22)} ${format(forAwait['channel (for await)']!)} (separate race)`);

    const projected = await race(projectContenders, ROUNDS, PROJECTED);
    log(`project concatMap ${format(projected.concatMap!)}, backpressure ${format(projected.backpressure!)} (synchronous projects)`);

    const burst = await race({ million: stalledBurst(1_000_000), hundredThousand: stalledBurst(100_000) }, ROUNDS, 1);
    const growth = await heapGrowthMB(10_000_000);
    log(`burst 1,000,000 in ${(1000 / burst.million!).toFixed(1)} ms, 100,000 in ${(1000 / burst.hundredThousand!).toFixed(1)} ms`);
    if (sink === -1) log('unreachable');

    const figures: Record<string, BenchFigure> = {
      syncRatio: {
        value: sync.channel! / sync['Subject.next']!,
        label: 'items/s: channel with a synchronous subscriber / raw Subject.next',
        bar: { op: '>=', limit: 0.5 },
      },
      blockRatio: {
        value: block.channel! / fastestRate,
        label: `items/s: await offer() under BLOCK, async consumer / fastest peer (${fastestPeer})`,
        bar: { op: '>=', limit: 1.5 },
      },
      forAwaitRatio: {
        value: forAwait['channel (for await)']! / fastestRate,
        label: `items/s: await offer() under BLOCK, for-await consumer (separate race) / fastest peer (${fastestPeer})`,
      },
      backpressureOverConcatMap: {
        value: projected.backpressure! / projected.concatMap!,
        label: `time of concatMap / time of backpressure(project, { concurrency: 1 }), ${PROJECTED.toLocaleString('en-US')} values, synchronous projects`,
        bar: { op: '>=', limit: 0.5 },
      },
      channelOverRing: {
        value: ring.channel! / ring.ring!,
        label: 'time of a bare ring-buffer loop / time of a channel with one synchronous subscriber, same items and consumer',
        bar: { op: '>=', limit: 0.5 },
      },
      burstScaling: {
        value: burst.hundredThousand! / burst.million!,
        label: 'time for 1,000,000 DROP_OLDEST emits with a stalled consumer / time for 100,000',
        bar: { op: '<=', limit: 12 },
      },
      heapGrowthMB: {
        value: growth,
        label: 'heap growth (MB) after 10,000,000 DROP_OLDEST emits with a stalled consumer',
        bar: { op: '<', limit: 16 },
      },
    };
    return figures;
  },
};
