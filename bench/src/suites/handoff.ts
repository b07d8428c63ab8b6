import { defineAgent, stream, type Agent } from '@rxagents/core';
import { DefaultHandoff, HandoffChain, HandoffContext } from '@rxagents/handoff';
import type { BenchFigure, BenchSuite } from '../BenchSuite';
import { median } from '../median';

const STEPS = 10_000;
const ROUNDS = 11;
const WARM_UPS = 3;

function seconds(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e9;
}

/** 10,001 "instant" agents: `chat` returns an already-resolved Promise, as an async SDK call that answers at once. */
function instantAgents(): Agent[] {
  return Array.from({ length: STEPS + 1 }, (_, i) => defineAgent(`agent-${i}`, async () => 'x'));
}

/** The peer: the loop a person would write by hand, awaiting each agent's Promise in turn with the same prompt. */
async function handLoop(agents: readonly Agent[], taskId: string): Promise<string> {
  let payload: Record<string, unknown> = { document: 'Invoice text ...' };
  let output = '';
  for (let i = 1; i < agents.length; i += 1) {
    const controller = new AbortController();
    output = await (agents[i] as Agent).chat(`Process handoff task: ${taskId} | payload: ${JSON.stringify(payload)}`, { signal: controller.signal }) as string;
    payload = { previousOutput: output };
  }
  return output;
}

/** The floor every handoff pays: the same agents called in turn through core's stream(), nothing else. */
function invokeLoop(agents: readonly Agent[]): Promise<void> {
  return new Promise((resolve, reject) => {
    let i = 1;
    const next = (): void => {
      if (i >= agents.length) return resolve();
      stream(agents[i++] as Agent, 'Go').subscribe({ error: reject, complete: next });
    };
    next();
  });
}

export const suite: BenchSuite = {
  name: 'handoff',
  async run(log) {
    const agents = instantAgents();
    const builder = HandoffChain.builder();
    for (const agent of agents) builder.add(agent);
    const chain = builder.build();
    const handoff = new DefaultHandoff();
    const context = HandoffContext.of('invoice-42', { document: 'Invoice text ...' });

    for (let i = 0; i < WARM_UPS; i += 1) {
      await chain.execute(handoff, context);
      await handLoop(agents, 'invoice-42');
    }

    const chainTimes: number[] = [];
    const loopTimes: number[] = [];
    const ratios: number[] = [];
    const invokeRatios: number[] = [];
    global.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    for (let round = 0; round < ROUNDS; round += 1) {
      const timeChain = async (): Promise<number> => {
        const start = process.hrtime.bigint();
        const results = await chain.execute(handoff, context);
        const time = seconds(start);
        if (results.length !== STEPS || !results.every((result) => result.success)) throw new Error('chain did not complete');
        return time;
      };
      const timeLoop = async (): Promise<number> => {
        const start = process.hrtime.bigint();
        await handLoop(agents, 'invoice-42');
        return seconds(start);
      };
      // Alternate which side runs first, so drift in machine load does not favour one.
      const chainFirst = round % 2 === 0;
      const chainTime = chainFirst ? await timeChain() : 0;
      const loopTime = await timeLoop();
      const chainTimeLate = chainFirst ? chainTime : await timeChain();
      const invokeStart = process.hrtime.bigint();
      await invokeLoop(agents);
      invokeRatios.push(seconds(invokeStart) / loopTime);
      chainTimes.push(chainTimeLate);
      loopTimes.push(loopTime);
      ratios.push(chainTimeLate / loopTime);
    }
    global.gc?.();
    const heapGrowth = (process.memoryUsage().heapUsed - heapBefore) / 1024 / 1024;

    const chainMedian = median(chainTimes);
    const loopMedian = median(loopTimes);
    log(`HandoffChain of ${STEPS.toLocaleString('en')} instant agents: ${(chainMedian * 1e3).toFixed(1)} ms (${((chainMedian / STEPS) * 1e6).toFixed(2)} µs/hop)`);
    log(`hand-written await loop over the same agents: ${(loopMedian * 1e3).toFixed(1)} ms (${((loopMedian / STEPS) * 1e6).toFixed(2)} µs/hop)`);
    log(`heap after ${ROUNDS} rounds vs before, after GC: ${heapGrowth.toFixed(2)} MiB`);

    const figures: Record<string, BenchFigure> = {
      hopRatio: { value: median(ratios), label: `time of a ${STEPS.toLocaleString('en')}-step HandoffChain / a hand-written loop awaiting the same agents (median of per-round ratios)`, bar: { op: '<=', limit: 1.5 } },
      chainPerHopUs: { value: (chainMedian / STEPS) * 1e6, label: 'µs per hop in the HandoffChain (DefaultHandoff: prompt, callAgent() over stream() with its AbortController, chain threading, result)' },
      loopPerHopUs: { value: (loopMedian / STEPS) * 1e6, label: 'µs per hop in the hand-written loop' },
      invokeFloorRatio: { value: median(invokeRatios), label: 'the same 10,000 agents called in turn through stream() alone / the hand-written loop: the part of hopRatio that is core\'s agent call' },
      heapGrowthMiB: { value: heapGrowth, label: `heap growth over ${ROUNDS} measured rounds (MiB, after GC; results are dropped each round)`, bar: { op: '<=', limit: 5 } },
    };
    return figures;
  },
};
