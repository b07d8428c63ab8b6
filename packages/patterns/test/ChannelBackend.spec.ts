import { filter, map, timer } from 'rxjs';
import { BackpressureStrategy, StreamingChannel } from '@rxagents/streaming';
import { scriptedAgent } from '@rxagents/testing';
import { ConfigError } from '@rxagents/core';
import { ChannelBackend, ChannelExecutionStrategy, ConversationOrchestrator, MessageDroppedError, type ConversationState, Patterns, TerminationCondition, TurnPolicy, type ExecutionResult, type PatternChannel, type PostedMessage } from '@rxagents/patterns';
import { debater, testScheduler } from './helpers';

const outcome = (result: ExecutionResult<unknown>) => ({
  status: result.status,
  error: result.error instanceof MessageDroppedError ? result.error.message : result.error,
});

// A run whose channel loses one of its messages can never collect it: it must end, never hang.
describe('ChannelBackend: a message the channel drops fails the run instead of hanging it', () => {
  const voters = () => ['a', 'b', 'c'].map((id) => scriptedAgent(id, { reply: 'yes', delay: 1 }));
  const slowWatcher = (ms: number) => ({ onChannel: (channel: PatternChannel) => void channel.subscribe((_item: unknown) => timer(ms)) });

  it('FanIn under DROP_NEWEST with a slow watcher', () => {
    testScheduler().run(({ expectObservable }) => {
      const vote = Patterns.voting({ agents: voters() }).overChannel({ bufferSize: 1, backpressure: BackpressureStrategy.DROP_NEWEST, ...slowWatcher(100) });
      expectObservable(vote.execute$('?').pipe(map(outcome))).toBe('1ms (r|)', {
        r: { status: 'failed', error: 'Pattern "voting" lost the message of agent "c": the channel dropped it' },
      });
    });
  });

  it('FanIn under DROP_OLDEST: an evicted earlier result counts as lost', () => {
    testScheduler().run(({ expectObservable }) => {
      const vote = Patterns.voting({ agents: voters() }).overChannel({ bufferSize: 1, backpressure: BackpressureStrategy.DROP_OLDEST, ...slowWatcher(100) });
      expectObservable(vote.execute$('?').pipe(map((r) => r.status))).toBe('1ms (r|)', { r: 'failed' });
    });
  });

  it('Barrier under BLOCK: a post waits for room (the run slows down), and fails once offerTimeout (5 s) passes', () => {
    testScheduler().run(({ expectObservable }) => {
      const agents = ['a', 'b', 'c'].map((id) => scriptedAgent(id, { reply: id, delay: 1 }));
      const slow = Patterns.parallel({ agents }).overChannel({ bufferSize: 1, ...slowWatcher(10_000) });
      // a is delivered at 1 ms (the watcher holds it 10 s), b waits in the buffer, c is parked and times out at 5001 ms.
      expectObservable(slow.execute$('x').pipe(map((r) => r.status))).toBe('5001ms (r|)', { r: 'failed' });
      const patient = Patterns.parallel({ agents }).overChannel({ bufferSize: 1, ...slowWatcher(2_000) });
      // a 1..2001, b 2001..4001, c parked at 1 enters the buffer at 2001 (within its 5 s): the run completes when c is collected.
      expectObservable(patient.execute$('x').pipe(map((r) => r.status))).toBe('4001ms (r|)', { r: 'completed' });
    });
  });

  it('a free-for-all conversation on a DROP_NEWEST channel', () => {
    testScheduler().run(({ expectObservable }) => {
      const channel = StreamingChannel.create<PostedMessage>({ bufferSize: 1, backpressure: BackpressureStrategy.DROP_NEWEST });
      channel.subscribe(() => timer(100));
      const orchestrator = ConversationOrchestrator.create({
        participants: [debater('a', 1), debater('b', 1), debater('c', 1)],
        turnPolicy: TurnPolicy.freeForAll(),
        termination: TerminationCondition.maxIterations(3),
      });
      // a's message is delivered (the watcher holds it), b's waits in the buffer, c's is dropped.
      const end$ = orchestrator.conversation$('t', channel).pipe(
        filter((event) => event.type === 'finished'),
        map((event) => (event.type === 'finished' ? { type: event.decision.type, error: (event.decision.error as Error).message } : undefined)),
      );
      expectObservable(end$).toBe('1ms (r|)', { r: { type: 'failed', error: 'Pattern "conversation" lost the message of agent "c": the channel dropped it' } });
    });
  });
});

describe('ChannelBackend: teardown', () => {
  it('closes the channel when setting the run up fails (onChannel throws); an invalid strategy is refused before any channel opens', async () => {
    const agents = ['a', 'b'].map((id) => scriptedAgent(id, 'ok'));
    const seen: { channel?: PatternChannel } = {};
    const throwing = Patterns.voting({ agents }).overChannel({
      onChannel: (channel) => {
        seen.channel = channel;
        throw new Error('watcher bug');
      },
    });
    await expect(throwing.execute('?')).rejects.toThrow('watcher bug');
    expect(seen.channel?.metrics().closed).toBe(true);

    const seenAgain: { channel?: PatternChannel } = {};
    const settings = { turnPolicy: {} as TurnPolicy, termination: TerminationCondition.maxIterations(1), project: (state: ConversationState) => state };
    expect(() => ChannelExecutionStrategy.conversation<ConversationState>(settings)).toThrow('turnPolicy must be a TurnPolicy');
    // Built by hand, past the factory's check: ChannelBackend checks it where it is given, so no run ever opens a channel.
    const invalid: ChannelExecutionStrategy<ConversationState> = { kind: 'conversation', ...settings };
    const backend = () => ChannelBackend(invalid, { onChannel: (channel) => (seenAgain.channel = channel) });
    expect(backend).toThrow(ConfigError);
    expect(backend).toThrow('turnPolicy must be a TurnPolicy');
    expect(seenAgain.channel).toBeUndefined();
  });
});
