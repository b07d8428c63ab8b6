import { stream } from '@rxagents/core';
import { collectedMemory, mb, memoryNow, sleep } from '../memory';
import { openViewer } from '../rawViewer';
import { createRunRegistry } from '@rxagents/web';
import { deltaFrameBytes, runWriter } from '../runWriter';
import { serveRegistry } from '../serveRegistry';
import type { SoakScenario } from '../SoakScenario';

/**
 * One finished large run, then many late viewers at once, each reading its socket slowly: a viewer
 * costs a cursor into the shared log, so the peak must not grow with the number of viewers.
 */
export const lateViewers: SoakScenario = {
  name: 'late-viewers',
  needsRedis: false,
  async run(size, log) {
    const { deltas, deltaBytes, viewers: count, readPauseMs, readMs, slackMB } = size.late;
    const frameBytes = await deltaFrameBytes(deltaBytes);
    const registry = createRunRegistry({ replayLimit: deltas + 16, maxRuns: 2, ttlMs: Infinity });
    const server = await serveRegistry(registry);
    let finished!: () => void;
    const done = new Promise<void>((resolve) => (finished = resolve));
    const { runId } = registry.start('late', 'go', (run) => stream(runWriter(deltas, deltaBytes, undefined, finished), 'go', { run }));
    await done;
    await sleep(50);
    const logBytes = deltas * frameBytes;
    log(`a finished run of ${deltas} deltas (log ${mb(logBytes)} MB); ${count} late viewers, each reading a chunk every ${readPauseMs} ms for ${readMs / 1000} s`);

    const base = collectedMemory();
    let peakBuffers = 0;
    let peakRss = 0;
    let peakHeap = 0;
    const sample = (): void => {
      const now = memoryNow();
      peakBuffers = Math.max(peakBuffers, now.arrayBuffers - base.arrayBuffers);
      peakRss = Math.max(peakRss, now.rss - base.rss);
      peakHeap = Math.max(peakHeap, now.heap - base.heap);
    };
    const sampler = setInterval(sample, 25);
    const viewers = Array.from({ length: count }, () => openViewer(server.port, `/runs/${runId}`, readPauseMs));
    await sleep(readMs);
    clearInterval(sampler);
    sample();
    const read = viewers.reduce((sum, viewer) => sum + viewer.bytes(), 0);
    const cut = viewers.filter((viewer) => viewer.closedByServer() || viewer.gotErrorFrame()).length;
    log(`peak: arrayBuffers +${mb(peakBuffers)} MB, heap +${mb(peakHeap)} MB, rss +${mb(peakRss)} MB; viewers read ${mb(read)} MB in all (${mb(read / count)} MB each), ${cut} ended by the server`);
    for (const viewer of viewers) viewer.close();
    registry.close();
    await server.close();

    const boundBytes = logBytes + slackMB * 2 ** 20;
    return {
      figures: `peak arrayBuffers +${mb(peakBuffers)} MB, peak rss +${mb(peakRss)} MB with ${count} slow late viewers of a ${mb(logBytes)} MB run (${mb(read)} MB read in ${readMs / 1000} s)`,
      bound: `peak arrayBuffers <= ${mb(boundBytes)} MB (one copy of the log ${mb(logBytes)} MB + ${slackMB} MB, whatever the number of viewers)`,
      within: peakBuffers <= boundBytes,
    };
  },
};
