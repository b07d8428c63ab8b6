import { ChoreographyEngine, type ChoreographyEvent, ChoreographySpec, type EventBus, InMemoryEventBus } from '@rxagents/choreography';
import { hangingAgent, scriptedAgent } from '@rxagents/testing';
import { config, Subject } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';

const newScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
const silent = { warn: () => undefined };

const loopSpec = () =>
  ChoreographySpec.builder('loop')
    .initialEvent('start')
    .interaction('draft', 'editor', 'writer', 'start', 'drafted', 'Write')
    .interaction('review', 'writer', 'editor', 'drafted', null, 'Review')
    .build();

/** A bus over a Subject whose publish or close can be made to throw. */
function customBus(fault: { publishOn?: string; close?: boolean }): EventBus & { closeCalls: number } {
  const subject = new Subject<ChoreographyEvent>();
  const bus = {
    closeCalls: 0,
    events$: subject.asObservable(),
    publish: (event: ChoreographyEvent) => {
      if (event.name === fault.publishOn) throw new Error(`cannot publish ${event.name}`);
      subject.next(event);
    },
    close: () => {
      bus.closeCalls += 1;
      subject.complete();
      if (fault.close === true) throw new Error('broker gone');
    },
  };
  return bus;
}

describe('ChoreographyEngine: a throwing logger, bus or hook ends the run visibly, with everything torn down', () => {
  it('a logger.warn that throws (on a cycle warning) errors the run with that error; steps$ and busEvents$ complete, the bus is closed, no agent runs', async () => {
    const bus = new InMemoryEventBus();
    const writer = scriptedAgent('writer', 'draft');
    const engine = ChoreographyEngine.builder()
      .spec(loopSpec())
      .agents({ writer, editor: scriptedAgent('editor', 'ok') })
      .bus(bus)
      .logger({
        warn: () => {
          throw new Error('log sink down');
        },
      })
      .build();
    const seen: string[] = [];
    engine.steps$.subscribe({ complete: () => seen.push('steps complete') });
    engine.busEvents$.subscribe({ complete: () => seen.push('events complete') });
    await expect(engine.execute()).rejects.toThrow('log sink down');
    expect(seen).toEqual(['steps complete', 'events complete']);
    expect(bus.closed).toBe(true);
    expect(writer.inputs).toEqual([]);
  });

  it('a bus whose publish throws for the initial event errors the run; steps$ completes and the bus is closed', () => {
    newScheduler().run(({ expectObservable, flush }) => {
      const bus = customBus({ publishOn: 'start' });
      const engine = ChoreographyEngine.builder().spec(loopSpec()).agents({ writer: scriptedAgent('w', 'x'), editor: scriptedAgent('e', 'y') }).bus(bus).logger(silent).build();
      expectObservable(engine.steps$).toBe('|');
      expectObservable(engine.execute$()).toBe('#', undefined, new Error('cannot publish start'));
      flush();
      expect(bus.closeCalls).toBe(1);
    });
  });

  it('a bus whose publish throws for an emitted event errors the run and aborts the agents still running', () => {
    newScheduler().run(({ expectObservable, flush }) => {
      const spec = ChoreographySpec.builder('fan')
        .initialEvent('start')
        .interaction('quick', 's', 'quick', 'start', 'done', 'Go')
        .interaction('slow', 's', 'slow', 'start', null, 'Go')
        .build();
      const slow = hangingAgent('slow');
      const bus = customBus({ publishOn: 'done' });
      const engine = ChoreographyEngine.builder().spec(spec).agents({ quick: scriptedAgent('quick', { reply: 'x', delay: 10 }), slow }).bus(bus).logger(silent).build();
      expectObservable(engine.steps$).toBe('10ms (a|)', { a: expect.objectContaining({ interactionId: 'quick', success: true }) });
      expectObservable(engine.execute$()).toBe('10ms #', undefined, new Error('cannot publish done'));
      flush();
      expect(slow.aborted).toBe(true);
      expect(bus.closeCalls).toBe(1);
    });
  });

  it('a bus whose close throws at the end of a run errors the run with that error, after steps$ completed', () => {
    newScheduler().run(({ expectObservable, flush }) => {
      const bus = customBus({ close: true });
      const spec = ChoreographySpec.builder('one').initialEvent('go').interaction('only', 's', 'a', 'go', null, 'Go').build();
      const engine = ChoreographyEngine.builder().spec(spec).agent('a', scriptedAgent('a', { reply: 'x', delay: 5 })).bus(bus).logger(silent).build();
      expectObservable(engine.steps$).toBe('5ms (a|)', { a: expect.objectContaining({ success: true }) });
      expectObservable(engine.execute$()).toBe('5ms #', undefined, new Error('broker gone'));
      flush();
      expect(bus.closeCalls).toBe(1);
    });
  });

  it('a bus whose close throws when the run is cancelled reports the error as unhandled, and steps$ still completes', () => {
    const unhandled: unknown[] = [];
    const previous = config.onUnhandledError;
    config.onUnhandledError = (error) => void unhandled.push(error);
    try {
      newScheduler().run(({ expectObservable, flush }) => {
        const bus = customBus({ close: true });
        const spec = ChoreographySpec.builder('one').initialEvent('go').interaction('only', 's', 'a', 'go', null, 'Go').build();
        const engine = ChoreographyEngine.builder().spec(spec).agent('a', hangingAgent('a')).bus(bus).logger(silent).build();
        expectObservable(engine.steps$).toBe('5ms |');
        expectObservable(engine.execute$(), '^ 4ms !').toBe('');
        flush();
        expect(bus.closeCalls).toBe(1);
      });
      expect(unhandled).toEqual([new Error('broker gone')]);
    } finally {
      config.onUnhandledError = previous;
    }
  });

  it('a bus whose events$ errors errors the run; steps$ completes', () => {
    newScheduler().run(({ cold, expectObservable, flush }) => {
      let closed = 0;
      const bus: EventBus = { events$: cold('3ms #', undefined, new Error('stream lost')), publish: () => undefined, close: () => void (closed += 1) };
      const spec = ChoreographySpec.builder('one').initialEvent('go').interaction('only', 's', 'a', 'go', null, 'Go').build();
      const engine = ChoreographyEngine.builder().spec(spec).agent('a', scriptedAgent('a', 'x')).bus(bus).logger(silent).build();
      expectObservable(engine.steps$).toBe('3ms |');
      expectObservable(engine.execute$()).toBe('3ms #', undefined, new Error('stream lost'));
      flush();
      expect(closed).toBe(1);
    });
  });
});
