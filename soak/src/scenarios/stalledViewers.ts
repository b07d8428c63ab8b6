import { stream } from '@rxagents/core';
import { collectedMemory, growth, mb, type MemoryFigures, sleep } from '../memory';
import { openViewer, type RawViewer } from '../rawViewer';
import { createRunRegistry } from '@rxagents/web';
import { deltaFrameBytes, runWriter } from '../runWriter';
import { serveRegistry } from '../serveRegistry';
import type { SoakScenario } from '../SoakScenario';

/** What may be left at the end, when the registry holds no run any more, besides one run's frames: the heap's own noise. */
const END_SLACK_MB = 8;

/** Heap plus array buffers: where a run's log (strings) and what waits for a socket (buffers) live. */
const held = (figures: MemoryFigures): number => figures.heap + figures.arrayBuffers;

/**
 * Runs one after the other on a small registry, each with one viewer socket that connects and never reads:
 * what the process holds must stay within what the registry keeps (`maxRuns` runs of at most
 * `replayLimit` frames), however many stalled viewers there were, and a forgotten run must be freed.
 */
export const stalledViewers: SoakScenario = {
  name: 'stalled-viewers',
  needsRedis: false,
  async run(size, log) {
    const { runs, deltas, deltaBytes, maxRuns, ttlMs, replayLimit, stallTimeoutMs, slackMB } = size.stalled;
    const frameBytes = await deltaFrameBytes(deltaBytes);
    const registry = createRunRegistry({ replayLimit, maxRuns, ttlMs, stallTimeoutMs });
    const arrivals = new Map<string, () => void>();
    const server = await serveRegistry(registry, (runId) => arrivals.get(runId)?.(), stallTimeoutMs);
    log(`stallTimeoutMs ${stallTimeoutMs}`);
    log(`${runs} runs × ${deltas} deltas of ${deltaBytes} B (frame ${frameBytes} B, log ${mb(deltas * frameBytes)} MB a run); replayLimit ${replayLimit}, maxRuns ${maxRuns}, ttlMs ${ttlMs}`);

    const base = collectedMemory();
    const viewers: RawViewer[] = [];
    const runIds: string[] = [];
    let peak = 0;
    for (let i = 0; i < runs; i++) {
      let arrived!: () => void;
      const go = new Promise<void>((resolve) => (arrived = resolve));
      let finished!: () => void;
      const done = new Promise<void>((resolve) => (finished = resolve));
      const writer = runWriter(deltas, deltaBytes, go, finished);
      const { runId } = registry.start('stalled', 'go', (run) => stream(writer, 'go', { run }));
      arrivals.set(runId, arrived);
      runIds.push(runId);
      viewers.push(openViewer(server.port, `/runs/${runId}`));
      await done;
      arrivals.delete(runId);
      await sleep(50);
      const grown = growth(base, collectedMemory());
      peak = Math.max(peak, held(grown));
      log(`run ${i + 1}: heap +${mb(grown.heap)} MB, arrayBuffers +${mb(grown.arrayBuffers)} MB, rss +${mb(grown.rss)} MB; registry holds ${runIds.filter((id) => registry.has(id)).length} of them`);
    }
    // After ttlMs every run is forgotten (and a stalled viewer cut after stallTimeoutMs): nothing of them should be left.
    await sleep(ttlMs + stallTimeoutMs + 1_000);
    const end = growth(base, collectedMemory());
    const forgotten = runIds.filter((id) => !registry.has(id)).length;
    const stillOpen = server.openConnections();
    log(`end: heap +${mb(end.heap)} MB, arrayBuffers +${mb(end.arrayBuffers)} MB, rss +${mb(end.rss)} MB; ${forgotten}/${runs} runs forgotten, ${stillOpen}/${runs} stalled sockets still open on the server`);
    for (const viewer of viewers) viewer.close();
    registry.close();
    await server.close();

    const peakBound = replayLimit * frameBytes * maxRuns + slackMB * 2 ** 20;
    // At the end the registry holds no run: what is left of them is at most what one run keeps, plus the heap's noise.
    const endBound = replayLimit * frameBytes + END_SLACK_MB * 2 ** 20;
    const endHeld = held(end);
    const freed = endHeld <= endBound;
    return {
      figures: `peak +${mb(peak)} MB, end +${mb(endHeld)} MB heap+arrayBuffers (end rss +${mb(end.rss)} MB) after ${runs} runs with a stalled viewer each; ${forgotten}/${runs} runs forgotten, their memory ${freed ? 'freed' : 'NOT freed'}; ${stillOpen}/${runs} stalled sockets still open`,
      bound: `peak <= ${mb(peakBound)} MB (replayLimit ${replayLimit} × frame ${frameBytes} B × maxRuns ${maxRuns} + ${slackMB} MB), end <= ${mb(endBound)} MB (one run's replayLimit frames + ${END_SLACK_MB} MB)`,
      within: peak <= peakBound && freed && forgotten === runs,
    };
  },
};
