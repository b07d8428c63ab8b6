import { concat, defer, merge, of } from 'rxjs';
import { ChoreographyEngine, ChoreographySpec, DeadlockDetector } from '@rxagents/choreography';
import { defineAgent, lastValue, invoke$ } from '@rxagents/core';
import type { BenchFigure, BenchSuite } from '../BenchSuite';
import { median } from '../median';

const ROUNDS = 7;
const WARM_UPS = 3;
const silent = { warn: () => undefined };
const instant = defineAgent('instant', () => of('x'));

type Run = () => Promise<unknown> | unknown;

/**
 * Median seconds per run of `a` and of `b`, measured in alternating rounds so both see the same machine
 * load. A round times `batch` consecutive runs of one side and divides by `batch`, so a round of either
 * lasts long enough (tens of ms) that a time slice lost to another process does not decide the figure.
 * WARM_UPS untimed runs of each first, for the JIT. No forced GC: see docs/performance.md.
 */
async function measurePair(a: { run: Run; batch: number }, b: { run: Run; batch: number }, rounds = ROUNDS): Promise<[number, number]> {
  for (let i = 0; i < WARM_UPS; i += 1) {
    await a.run();
    await b.run();
  }
  const times: [number[], number[]] = [[], []];
  for (let round = 0; round < rounds; round += 1) {
    // Alternate which side goes first, so drift in the load favours neither.
    const order = round % 2 === 0 ? ([0, 1] as const) : ([1, 0] as const);
    for (const side of order) {
      const { run, batch } = side === 0 ? a : b;
      const start = process.hrtime.bigint();
      for (let i = 0; i < batch; i += 1) await run();
      times[side].push(Number(process.hrtime.bigint() - start) / 1e9 / batch);
    }
  }
  return [median(times[0]), median(times[1])];
}

/** A chain: start -> e1 -> e2 -> ... ; interaction i runs on e<i> and emits e<i+1>. */
function chainSpec(length: number): ChoreographySpec {
  let builder = ChoreographySpec.builder(`chain-${length}`).initialEvent('e0');
  for (let i = 0; i < length; i += 1) builder = builder.interaction(`i${i}`, `a${i}`, 'instant', `e${i}`, `e${i + 1}`, 'Go');
  return builder.build();
}

/** One event that triggers `width` interactions. */
function fanOutSpec(width: number): ChoreographySpec {
  let builder = ChoreographySpec.builder(`fan-${width}`).initialEvent('go');
  for (let i = 0; i < width; i += 1) builder = builder.interaction(`i${i}`, 'hub', 'instant', 'go', null, 'Go');
  return builder.build();
}

/** A chain of agents a0 -> a1 -> ... with a back edge every 100 vertices: many small cycles, as in a large spec with review loops. */
function loopySpec(vertices: number): ChoreographySpec {
  let builder = ChoreographySpec.builder(`graph-${vertices}`).initialEvent('go');
  for (let i = 0; i + 1 < vertices; i += 1) builder = builder.interaction(`f${i}`, `a${i}`, `a${i + 1}`, 'go', null, 'Go');
  for (let i = 99; i < vertices; i += 100) builder = builder.interaction(`b${i}`, `a${i}`, `a${i - 50}`, 'go', null, 'Go');
  return builder.build();
}

const runEngine = (spec: ChoreographySpec) => () =>
  ChoreographyEngine.builder().spec(spec).agent('instant', instant).logger(silent).build().execute();

export const suite: BenchSuite = {
  name: 'choreography',
  async run(log) {
    const chain1k = chainSpec(1_000);
    const chain10k = chainSpec(10_000);
    // 10 chains of 1,000 take about as long as one of 10,000: rounds of equal length.
    const [chainSmall, chainLarge] = await measurePair({ run: runEngine(chain1k), batch: 10 }, { run: runEngine(chain10k), batch: 1 });
    log(`chain of 1,000 instant agents: ${(chainSmall * 1e3).toFixed(1)} ms; of 10,000: ${(chainLarge * 1e3).toFixed(1)} ms`);
    // Peer: the same 10,000 calls threaded by hand, each invoke$() subscribed after the previous one (concat).
    const chainByHand = () => lastValue(concat(...Array.from({ length: 10_000 }, () => defer(() => invoke$(instant, 'Go')))));
    const [chainOfEngine, handChain] = await measurePair({ run: runEngine(chain10k), batch: 1 }, { run: chainByHand, batch: 1 });
    log(`10,000 invoke$() calls chained by hand with concat: ${(handChain * 1e3).toFixed(1)} ms (the engine's chain in the same rounds: ${(chainOfEngine * 1e3).toFixed(1)} ms)`);

    const fan = fanOutSpec(1_000);
    const fanByHand = () => lastValue(merge(...Array.from({ length: 1_000 }, () => invoke$(instant, 'Go'))));
    const [fanOut, handFan] = await measurePair({ run: runEngine(fan), batch: 20 }, { run: fanByHand, batch: 20 });
    log(`one event -> 1,000 interactions: ${(fanOut * 1e3).toFixed(1)} ms; 1,000 invoke$() merged by hand: ${(handFan * 1e3).toFixed(1)} ms`);

    const graph10k = loopySpec(10_000);
    const graph100k = loopySpec(100_000);
    // 10 detects on 10,000 vertices take about as long as one on 100,000: rounds of equal length.
    const [detectSmall, detectLarge] = await measurePair({ run: () => DeadlockDetector.detect(graph10k), batch: 10 }, { run: () => DeadlockDetector.detect(graph100k), batch: 1 }, 15);
    const found = DeadlockDetector.detect(graph100k);
    log(`DeadlockDetector.detect: 10,000 vertices ${(detectSmall * 1e3).toFixed(1)} ms; 100,000 vertices ${(detectLarge * 1e3).toFixed(1)} ms (${found.cycles.length} cycles listed, truncated=${found.truncated})`);

    const figures: Record<string, BenchFigure> = {
      chainScaling: { value: chainLarge / chainSmall, label: 'time of a 10,000-interaction chain / time of a 1,000-interaction chain (linear = 10)', bar: { op: '<=', limit: 12 } },
      chainPerInteractionUs: { value: (chainLarge / 10_000) * 1e6, label: 'µs per interaction in the 10,000 chain (routing, agent call, event publish)' },
      chainOverHandChain: { value: chainOfEngine / handChain, label: 'engine chain time / the same invoke$() calls chained by hand with concat', bar: { op: '<=', limit: 1.2 } },
      fanOutPerInteractionUs: { value: (fanOut / 1_000) * 1e6, label: 'µs per interaction when one event triggers 1,000 interactions' },
      fanOutOverHandMerge: { value: fanOut / handFan, label: 'engine fan-out time / the same invoke$() calls merged by hand', bar: { op: '<=', limit: 1.5 } },
      detectScaling: { value: detectLarge / detectSmall, label: 'DeadlockDetector.detect on 100,000 vertices / on 10,000 (linear = 10)', bar: { op: '<=', limit: 12 } },
    };
    return figures;
  },
};
