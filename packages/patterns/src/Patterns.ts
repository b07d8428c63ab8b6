import { DebateBuilder, type DebateOptions } from './DebateBuilder';
import { ParallelBuilder, type ParallelOptions } from './ParallelBuilder';
import { SequenceBuilder, type SequenceOptions } from './SequenceBuilder';
import { SupervisorBuilder, type SupervisorOptions } from './SupervisorBuilder';
import { VotingBuilder, type VotingOptions } from './VotingBuilder';

/**
 * The pattern builders: one configuration surface per pattern, run directly or, with `.overChannel()`, over a channel.
 *
 * @remarks
 * Each builder validates its options at once (`ConfigError`), gives a model with `build()`, a run with
 * `run(input)` / `observe(input)` / `execute(input)`, and a `ComposedAgent` with `asAgent(id)`.
 * `.overChannel()` is the one-call mode switch (debate: Conversation with round-robin turns; voting:
 * FanIn; parallel: Barrier); the channel is a transport decision, not a different kind of debate.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { Patterns } from '@rxagents/patterns';
 *
 * const pro = defineAgent('pro', async () => 'Yes, because...');
 * const con = defineAgent('con', async () => 'No, because...');
 * const direct = Patterns.debate({ agents: [pro, con], maxRounds: 2 });
 * const overChannel = direct.overChannel();
 * const [a, b] = await Promise.all([direct.execute('Topic'), overChannel.execute('Topic')]);
 * console.log(a.output === b.output); // true
 * ```
 */
export const Patterns = {
  /** A debate ({@link DebateBuilder}); `maxRounds` defaults to 5. */
  debate: (options: DebateOptions): DebateBuilder => new DebateBuilder(options),
  /** A vote ({@link VotingBuilder}); majority by default, a tie is `deadlocked`. */
  voting: (options: VotingOptions): VotingBuilder => new VotingBuilder(options),
  /** Parallel work behind a barrier ({@link ParallelBuilder}). */
  parallel: (options: ParallelOptions): ParallelBuilder => new ParallelBuilder(options),
  /** A pipeline ({@link SequenceBuilder}). */
  sequence: (options: SequenceOptions): SequenceBuilder => new SequenceBuilder(options),
  /** A supervisor delegating to workers ({@link SupervisorBuilder}). */
  supervisor: (options: SupervisorOptions): SupervisorBuilder => new SupervisorBuilder(options),
} as const;
