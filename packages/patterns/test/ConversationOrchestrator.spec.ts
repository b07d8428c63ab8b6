import { asapScheduler, filter, map } from 'rxjs';
import { scriptedAgent } from '@rxagents/testing';
import { StreamingChannel } from '@rxagents/streaming';
import { ConversationOrchestrator, MessageDroppedError, TerminationCondition, TurnPolicy, UnknownParticipantError, type ConversationEvent, type PostedMessage } from '@rxagents/patterns';
import { countLargeArrayCopies, debater, testScheduler } from './helpers';

const describeEvent = (event: ConversationEvent): string =>
  event.type === 'message' ? `${event.message.speaker}#${event.state.round}` : `${event.decision.type}:${event.decision.reason}`;

describe('ConversationOrchestrator', () => {
  it('lets a watcher of the channel see every message, and exposes the live projection', () => {
    const seen: string[] = [];
    testScheduler().run(({ expectObservable }) => {
      const channel = StreamingChannel.create<PostedMessage>({ id: 'room' });
      channel.subscribe((message) => void seen.push(`${message.speaker}:${message.content}`));
      const orchestrator = ConversationOrchestrator.create({
        participants: [debater('a', 5), debater('b', 5)],
        termination: TerminationCondition.maxMessages(3),
      });
      expectObservable(orchestrator.conversation$('t', channel).pipe(map(describeEvent))).toBe('5ms x 4ms y 4ms (zw|)', {
        x: 'a#0',
        y: 'b#1',
        z: 'a#1',
        w: 'complete:reached 3 messages',
      });
    });
    expect(seen).toEqual(['a:a r1', 'b:b r1', 'a:a r2']);
  });

  it('with a free-for-all, every participant answers each turn concurrently, seeing the same transcript', () => {
    testScheduler().run(({ expectObservable }) => {
      const a = scriptedAgent('a', (input) => ({ reply: `a saw ${input.split('\n').length}`, delay: 10 }));
      const b = scriptedAgent('b', (input) => ({ reply: `b saw ${input.split('\n').length}`, delay: 4 }));
      const orchestrator = ConversationOrchestrator.create({
        participants: [a, b],
        turnPolicy: TurnPolicy.freeForAll(),
        termination: TerminationCondition.maxIterations(2),
      });
      const contents$ = orchestrator.conversation$('t', StreamingChannel.create<PostedMessage>()).pipe(map((e) => (e.type === 'message' ? e.message.content : e.decision.type)));
      expectObservable(contents$).toBe('4ms x 5ms y 3ms z 5ms (wv|)', { x: 'b saw 5', y: 'a saw 5', z: 'b saw 6', w: 'a saw 6', v: 'complete' });
    });
  });

  it('with the addressed policy, whoever is named answers', async () => {
    const pm = scriptedAgent('pm', '@qa is the build green?');
    const dev = scriptedAgent('dev', 'not me');
    const qa = scriptedAgent('qa', 'green. TERMINATE');
    const orchestrator = ConversationOrchestrator.create({
      participants: [pm, dev, qa],
      turnPolicy: TurnPolicy.addressed(),
      termination: TerminationCondition.textMention('TERMINATE'),
    });
    const speakers: string[] = [];
    orchestrator.conversation$('status', StreamingChannel.create<PostedMessage>()).subscribe((e) => e.type === 'message' && speakers.push(e.message.speaker));
    await Promise.resolve();
    expect(speakers).toEqual(['pm', 'qa']);
    expect(dev.inputs).toHaveLength(0);
  });

  it('refuses a topic that is not a string, or something that is not a channel, when conversation$ or events$ is called', () => {
    const a = scriptedAgent('a', 'x');
    const orchestrator = ConversationOrchestrator.create({ participants: [a], termination: TerminationCondition.maxMessages(1) });
    const channel = StreamingChannel.create<PostedMessage>();
    expect(() => orchestrator.conversation$(42 as never, channel)).toThrow('Conversation topic: value must be a string, got 42');
    expect(() => orchestrator.events$(undefined as never, channel)).toThrow('Conversation topic: value must be a string, got undefined');
    expect(() => orchestrator.conversation$('t', null as never)).toThrow('Conversation channel: value must be a channel (with emit() and asObservable()), got null');
    expect(() => orchestrator.events$('t', {} as never)).toThrow('Conversation channel: value must be a channel (with emit() and asObservable()), got {}');
    expect(a.inputs).toHaveLength(0);
  });

  it('waits for its own replies, not for any message: a message someone else posted does not let a turn start before the last reply is folded', () => {
    testScheduler().run(({ expectObservable }) => {
      // Delivery off the caller's stack: a reply is folded a moment after it is posted.
      const channel = StreamingChannel.create<PostedMessage>({ id: 'room', dispatchScheduler: asapScheduler });
      channel.emit({ speaker: 'human', content: 'please discuss', at: 0 });
      const a = scriptedAgent('a', 'from a');
      const b = scriptedAgent('b', 'from b');
      const orchestrator = ConversationOrchestrator.create({ participants: [a, b], termination: TerminationCondition.maxMessages(4) });
      const speakers$ = orchestrator.conversation$('t', channel).pipe(
        filter((event) => event.type === 'finished'),
        map((event) => event.state.messages.map((message) => message.speaker).join(',')),
      );
      expectObservable(speakers$).toBe('(s|)', { s: 'human,a,b,a' });
    });
  });

  it('ends as failed with MessageDroppedError when the channel is closed before the conversation has read its last reply, instead of waiting forever', () => {
    testScheduler().run(({ expectObservable }) => {
      const channel = StreamingChannel.create<PostedMessage>({ id: 'room' });
      // A watcher subscribed before the conversation closes the channel on b's reply: the conversation never receives it.
      channel.subscribe((message) => {
        if (message.speaker === 'b') channel.close();
      });
      const orchestrator = ConversationOrchestrator.create({ participants: [debater('a', 10), debater('b', 10)], termination: TerminationCondition.maxMessages(6) });
      const end$ = orchestrator.conversation$('t', channel).pipe(
        filter((event) => event.type === 'finished'),
        map((event) => `${event.decision.type}:${event.decision.error instanceof MessageDroppedError}:${event.state.messages.length}`),
      );
      expectObservable(end$).toBe('20ms (f|)', { f: 'failed:true:1' });
    });
  });

  it('fails when the turn policy names a stranger', () => {
    testScheduler().run(({ expectObservable }) => {
      const orchestrator = ConversationOrchestrator.create({
        participants: [debater('a', 1)],
        turnPolicy: TurnPolicy.custom('broken', () => ['mallory']),
        termination: TerminationCondition.maxMessages(5),
      });
      const end$ = orchestrator.conversation$('t', StreamingChannel.create<PostedMessage>()).pipe(map((e) => e.type === 'finished' && e.decision.type === 'failed' && e.decision.error instanceof UnknownParticipantError));
      expectObservable(end$).toBe('(t|)', { t: true });
    });
  });

  it('ends as failed when the whole conversation passes its timeout', () => {
    testScheduler().run(({ expectObservable }) => {
      const orchestrator = ConversationOrchestrator.create({
        participants: [debater('a', 10), debater('b', 100)],
        termination: TerminationCondition.maxMessages(10),
        timeout: 50,
      });
      const end$ = orchestrator.conversation$('t', StreamingChannel.create<PostedMessage>()).pipe(map((e) => (e.type === 'message' ? 'm' : `${e.decision.type}:${e.decision.reason}`)));
      expectObservable(end$).toBe('10ms m 39ms (f|)', { m: 'm', f: 'failed:agent b failed' });
    });
  });

  it('copies neither transcript nor results per turn, with textMention and maxMessages checked after each one', () => {
    const events: ConversationEvent[] = [];
    const orchestrator = ConversationOrchestrator.create({
      participants: [scriptedAgent('a', 'go on'), scriptedAgent('b', 'go on')],
      termination: TerminationCondition.or(TerminationCondition.textMention('STOP'), TerminationCondition.maxMessages(1_500)),
    });
    const channel = StreamingChannel.create<PostedMessage>({ id: 'long' });
    const copies = countLargeArrayCopies(1_000, () => {
      orchestrator.conversation$('t', channel).subscribe((event) => events.push(event));
    });
    expect(copies).toBe(0);
    const last = events.at(-1) as ConversationEvent;
    expect([last.type, last.state.messages.length, last.results.length, events[4]?.results.length]).toEqual(['finished', 1_500, 1_500, 5]);
  });
});
