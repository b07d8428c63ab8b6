import { last, lastValueFrom, type Observable, of } from 'rxjs';
import { type Agent, callAgent, defineAgent } from '@rxagents/core';
import { ExecutionModel, type ExecutionResult, Patterns, runModel, TerminationCondition } from '@rxagents/patterns';
import type { BenchFigure, BenchSuite } from '../BenchSuite';
import { median } from '../median';

const SMALL = 20_000;
const LARGE = 40_000;
const ROUNDS = 5;
const WARM_UPS = 2;

/** An agent that answers at once (`of('x')`), so the figures measure the pattern, not a model. */
const instant = (id: string): Agent => defineAgent(id, () => of('x'));

/** A model loop: one instant agent per iteration, `iterations` iterations. */
function modelLoop(iterations: number): ExecutionModel<number> {
  const agent = instant('loop');
  return ExecutionModel.create<number>({
    pattern: 'loop',
    agents: [agent],
    initialState: () => 0,
    route: () => [agent],
    prompt: () => 'go',
    aggregate: (state) => state + 1,
    termination: TerminationCondition.maxIterations(iterations),
    output: String,
  });
}

/** A run observed to its end, every snapshot delivered (as a UI would get them), none kept. */
async function observe<T>(snapshots$: Observable<ExecutionResult<T>>, expected: number): Promise<void> {
  const result = await lastValueFrom(snapshots$.pipe(last()));
  if (result.status !== 'completed' || result.iterations !== expected) throw new Error(`unexpected end: ${result.status} after ${result.iterations}`);
}

/**
 * Median seconds of `small()` and of `large()`, measured in alternating rounds so both see the same
 * machine load, with a GC before each timing and WARM_UPS untimed runs of each first.
 */
async function measurePair(small: () => Promise<void>, large: () => Promise<void>): Promise<[number, number]> {
  for (let i = 0; i < WARM_UPS; i += 1) {
    await small();
    await large();
  }
  const smallTimes: number[] = [];
  const largeTimes: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [run, times] of [[small, smallTimes], [large, largeTimes]] as const) {
      const start = process.hrtime.bigint();
      await run();
      times.push(Number(process.hrtime.bigint() - start) / 1e9);
    }
  }
  return [median(smallTimes), median(largeTimes)];
}

const DEBATE_ROUNDS = 200;
/** Debates per timing: one 200-round debate takes a few ms, too short to time alone on a busy machine. */
const DEBATES_PER_TIMING = 10;
const DEBATE_TIMINGS = 9;

/**
 * What a person writes instead of `Patterns.debate`: the same turns, each prompt built as the debate's
 * default prompt builds it (topic, participants, the transcript so far, whose turn and round), the call
 * made through core's `callAgent`, the reply appended to the messages and the transcript text. Returns
 * the transcript, and hands each prompt to `onPrompt` (for the one equivalence check before timing).
 */
async function handDebate(agents: readonly Agent[], topic: string, rounds: number, onPrompt?: (prompt: string) => void): Promise<string> {
  const messages: { index: number; speaker: string; content: string; at: number; round: number }[] = [];
  const head = `Topic: ${topic}\nParticipants: ${agents.map((agent) => agent.id).join(', ')}\nTranscript:\n`;
  let transcript = '';
  for (let round = 1; round <= rounds; round += 1) {
    for (const agent of agents) {
      const prompt = head + (messages.length === 0 ? '(nobody has spoken yet)' : transcript) + `\nYou are ${agent.id}. Round ${round}: give your contribution.`;
      onPrompt?.(prompt);
      const result = await lastValueFrom(callAgent(agent, prompt));
      if (!result.success) throw result.error;
      const line = `${agent.id}: ${result.output}`;
      transcript = messages.length === 0 ? line : `${transcript}\n${line}`;
      messages.push({ index: messages.length, speaker: agent.id, content: result.output, at: result.startedAt + result.durationMs, round });
    }
  }
  return transcript;
}

/** Checks once, untimed, that the hand loop sends the debate's prompts and ends with its transcript. */
async function checkHandDebate(rounds: number): Promise<void> {
  const recorded = (id: string, prompts: string[]): Agent =>
    defineAgent(id, (prompt) => {
      prompts.push(prompt);
      return of('x');
    });
  const debatePrompts: string[] = [];
  const handPrompts: string[] = [];
  const result = await Patterns.debate({ agents: [recorded('pro', debatePrompts), recorded('con', debatePrompts)], maxRounds: rounds }).execute('go');
  const transcript = await handDebate([instant('pro'), instant('con')], 'go', rounds, (prompt) => handPrompts.push(prompt));
  const samePrompts = debatePrompts.length === handPrompts.length && debatePrompts.every((prompt, i) => prompt === handPrompts[i]);
  if (!samePrompts || result.output !== transcript) throw new Error('the hand-written debate differs from Patterns.debate');
}

/** Median seconds of `DEBATES_PER_TIMING` runs of `a` and of `b`, timed alternately, after warm-ups. */
async function measureAlternating(a: () => Promise<unknown>, b: () => Promise<unknown>): Promise<[number, number]> {
  const batch = (run: () => Promise<unknown>) => async () => {
    for (let i = 0; i < DEBATES_PER_TIMING; i += 1) await run();
  };
  const timesA: number[] = [];
  const timesB: number[] = [];
  for (let i = 0; i < WARM_UPS; i += 1) {
    await batch(a)();
    await batch(b)();
  }
  for (let round = 0; round < DEBATE_TIMINGS; round += 1) {
    for (const [run, times] of [[batch(a), timesA], [batch(b), timesB]] as const) {
      const start = process.hrtime.bigint();
      await run();
      times.push(Number(process.hrtime.bigint() - start) / 1e9);
    }
  }
  return [median(timesA), median(timesB)];
}

const ms = (seconds: number): string => `${(seconds * 1e3).toFixed(0)} ms`;

export const suite: BenchSuite = {
  name: 'patterns',
  async run(log) {
    const loop = (n: number) => () => observe(runModel(modelLoop(n), 'go'), n);
    const [loopSmall, loopLarge] = await measurePair(loop(SMALL), loop(LARGE));
    log(`model loop, ${SMALL.toLocaleString('en')} iterations: ${ms(loopSmall)}; ${LARGE.toLocaleString('en')}: ${ms(loopLarge)}`);

    const steps = (n: number) => Array.from({ length: n }, (_, i) => instant(`step-${i}`));
    const smallSteps = steps(SMALL);
    const largeSteps = steps(LARGE);
    const sequence = (agents: readonly Agent[]) => () => observe(Patterns.sequence({ agents }).snapshots$('go'), agents.length);
    const [sequenceSmall, sequenceLarge] = await measurePair(sequence(smallSteps), sequence(largeSteps));
    log(`sequence of ${SMALL.toLocaleString('en')} agents: ${ms(sequenceSmall)}; of ${LARGE.toLocaleString('en')}: ${ms(sequenceLarge)}`);

    // A debate of two instant debaters: SMALL/2 rounds = SMALL turns, each prompt holding the whole transcript.
    const debaters = [instant('pro'), instant('con')];
    const debate = (turns: number, channel: boolean) => () => {
      const builder = Patterns.debate({ agents: debaters, maxRounds: turns / 2 });
      return observe((channel ? builder.overChannel() : builder).snapshots$('go'), turns / 2);
    };
    const [debateSmall, debateLarge] = await measurePair(debate(SMALL, false), debate(LARGE, false));
    log(`debate, ${SMALL.toLocaleString('en')} turns: ${ms(debateSmall)}; ${LARGE.toLocaleString('en')}: ${ms(debateLarge)}`);
    const [channelSmall, channelLarge] = await measurePair(debate(SMALL, true), debate(LARGE, true));
    log(`debate over a channel, ${SMALL.toLocaleString('en')} turns: ${ms(channelSmall)}; ${LARGE.toLocaleString('en')}: ${ms(channelLarge)}`);

    await checkHandDebate(DEBATE_ROUNDS);
    const byPattern = Patterns.debate({ agents: debaters, maxRounds: DEBATE_ROUNDS });
    const [debateTime, handTime] = await measureAlternating(
      () => byPattern.execute('go'),
      () => handDebate(debaters, 'go', DEBATE_ROUNDS),
    );
    const perDebate = (seconds: number): string => `${((seconds / DEBATES_PER_TIMING) * 1e3).toFixed(2)} ms`;
    log(`debate of ${DEBATE_ROUNDS} rounds: ${perDebate(debateTime)}; the same ${2 * DEBATE_ROUNDS} turns by hand: ${perDebate(handTime)}`);

    const loopScaling = loopLarge / loopSmall;
    const sequenceScaling = sequenceLarge / sequenceSmall;
    const figures: Record<string, BenchFigure> = {
      patternScaling: {
        value: Math.max(loopScaling, sequenceScaling),
        label: `time for ${LARGE.toLocaleString('en')} iterations / for ${SMALL.toLocaleString('en')}, the larger of a model loop's and a sequence's (linear = 2)`,
        bar: { op: '<=', limit: 2.5 },
      },
      loopScaling: { value: loopScaling, label: `model loop: ${LARGE.toLocaleString('en')} iterations / ${SMALL.toLocaleString('en')} (linear = 2)` },
      sequenceScaling: { value: sequenceScaling, label: `sequence: ${LARGE.toLocaleString('en')} agents / ${SMALL.toLocaleString('en')} (linear = 2)` },
      debateScaling: { value: debateLarge / debateSmall, label: `direct debate: ${LARGE.toLocaleString('en')} turns / ${SMALL.toLocaleString('en')} (linear = 2)`, bar: { op: '<=', limit: 2.5 } },
      channelDebateScaling: {
        value: channelLarge / channelSmall,
        label: `debate over a channel: ${LARGE.toLocaleString('en')} turns / ${SMALL.toLocaleString('en')} (linear = 2)`,
        bar: { op: '<=', limit: 2.5 },
      },
      debateOverHand: {
        value: debateTime / handTime,
        label: `time of a ${DEBATE_ROUNDS}-round direct debate of two instant agents / the same ${2 * DEBATE_ROUNDS} turns as a hand-written loop (same prompts, callAgent, append)`,
        bar: { op: '<=', limit: 2 },
      },
      loopPerIterationUs: { value: (loopLarge / LARGE) * 1e6, label: `µs per iteration of the ${LARGE.toLocaleString('en')}-iteration model loop (route, invoke$(), aggregate, snapshot, termination)` },
    };
    return figures;
  },
};
