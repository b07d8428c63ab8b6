import { lastValueFrom } from 'rxjs';
import { stream } from '@rxagents/core';
import { BackpressureStrategy, type ChannelMetrics, StreamingChannel, toChannel } from '@rxagents/streaming';
import { scriptedAgent } from '@rxagents/testing';
import type { Scene } from '../Scene';

const TOKENS = Array.from({ length: 120 }, (_, i) => `t${i} `);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function bar(used: number, capacity: number, width = 16): string {
  const filled = Math.round((used / capacity) * width);
  return `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
}

function metricsLine(m: ChannelMetrics, extra: string): string {
  return `  ${m.channelId.padEnd(10)} buffer ${bar(m.bufferUsed, m.bufferCapacity)} ${String(m.bufferUsed).padStart(3)}/${m.bufferCapacity}  parked ${String(m.pendingOffers).padStart(3)}  delivered ${String(m.delivered).padStart(3)}  dropped ${String(m.dropped).padStart(3)} (${m.dropRate().toFixed(1).padStart(4)}%)  ${extra}`;
}

/** Prints the channel's metrics on one live line (rewritten in place on a terminal) until it ends. */
function watch(channel: StreamingChannel<string>, extra: () => string): Promise<void> {
  const live = process.stdout.isTTY === true;
  return new Promise<void>((resolve) => {
    channel.metrics$.subscribe({
      next: (m) => {
        const line = metricsLine(m, extra());
        if (live) process.stdout.write(`\r${line}`);
        else console.log(line);
      },
      complete: () => {
        if (live) process.stdout.write('\n');
        resolve();
      },
    });
  });
}

/** A fast scripted agent streams into a slow consumer: first with DROP_OLDEST, then BLOCK with per-subscriber buffers. */
export const scene: Scene = {
  name: 'streaming',
  title: 'a fast agent streams into a slow consumer, with live channel metrics',
  async run() {
    const writer = scriptedAgent('fast-writer', { chunks: TOKENS, interval: 5 });

    console.log('1) DROP_OLDEST, buffer 16: a UI that repaints every 25 ms paces the channel; old tokens are dropped.');
    const ui = StreamingChannel.builder<string>().id('ui').bufferSize(16).backpressure(BackpressureStrategy.DROP_OLDEST).metricsSampleTime(100).build();
    let painted = 0;
    ui.subscribe(async () => {
      painted += 1;
      await sleep(25);
    });
    const watchedUi = watch(ui, () => `painted ${painted}`);
    await lastValueFrom(stream(writer, 'stream').pipe(toChannel(ui, { complete: true })), { defaultValue: true });
    await watchedUi;
    console.log(`   the agent sent ${TOKENS.length} tokens; the UI painted ${painted}, always the newest.`);

    console.log('2) BLOCK through toChannel, buffer 16: the UI keeps its 4 newest tokens, the transcript (10 ms writes) loses nothing.');
    const tokens = StreamingChannel.builder<string>().id('tokens').bufferSize(16).backpressure(BackpressureStrategy.BLOCK).metricsSampleTime(100).build();
    let shown = 0;
    const transcript: string[] = [];
    tokens.subscribe(
      async () => {
        shown += 1;
        await sleep(25);
      },
      { bufferSize: 4, backpressure: BackpressureStrategy.DROP_OLDEST },
    );
    let transcriptDone!: () => void;
    const saved = new Promise<void>((resolve) => (transcriptDone = resolve));
    tokens.subscribe(
      {
        next: async (token) => {
          await sleep(10);
          transcript.push(token);
        },
        complete: () => transcriptDone(),
      },
      { bufferSize: 8, backpressure: BackpressureStrategy.BLOCK },
    );
    const watchedTokens = watch(tokens, () => `shown ${shown}, saved ${transcript.length}`);
    await lastValueFrom(stream(writer, 'stream').pipe(toChannel(tokens, { complete: true })), { defaultValue: true });
    await watchedTokens;
    await saved;
    const m = tokens.metrics();
    console.log(`   transcript saved ${transcript.length}/${TOKENS.length} tokens in order: ${transcript.join('') === TOKENS.join('')}; the UI skipped ${m.subscriberDropped}.`);
  },
};
