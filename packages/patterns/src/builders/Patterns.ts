import { DebateBuilder, type DebateOptions } from './DebateBuilder';
import { ParallelBuilder, type ParallelOptions } from './ParallelBuilder';
import { SequenceBuilder, type SequenceOptions } from './SequenceBuilder';
import { SupervisorBuilder, type SupervisorOptions } from './SupervisorBuilder';
import { VotingBuilder, type VotingOptions } from './VotingBuilder';

// The pattern builders, exported from the package as the module namespace `Patterns`.

/** A debate ({@link DebateBuilder}); `maxRounds` defaults to 5. */
export function debate(options: DebateOptions): DebateBuilder {
  return new DebateBuilder(options);
}

/** A vote ({@link VotingBuilder}); majority by default, a tie is `deadlocked`. */
export function voting(options: VotingOptions): VotingBuilder {
  return new VotingBuilder(options);
}

/** Parallel work behind a barrier ({@link ParallelBuilder}). */
export function parallel(options: ParallelOptions): ParallelBuilder {
  return new ParallelBuilder(options);
}

/** A pipeline ({@link SequenceBuilder}). */
export function sequence(options: SequenceOptions): SequenceBuilder {
  return new SequenceBuilder(options);
}

/** A supervisor delegating to workers ({@link SupervisorBuilder}). */
export function supervisor(options: SupervisorOptions): SupervisorBuilder {
  return new SupervisorBuilder(options);
}
