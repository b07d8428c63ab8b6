import { ConfigError } from '@rxagents/core';
import { CircuitBreakerOpenError, LivelockDetector, type LivelockReport, type LivelockViolation } from '@rxagents/choreography';
import { asyncScheduler, config } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';

const newScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

/** Runs `steps` at virtual times (ms) with a default-option detector, and returns every violation heard. */
function timeline(steps: readonly [number, (detector: LivelockDetector) => void][], detector = new LivelockDetector()): LivelockViolation[] {
  const heard: LivelockViolation[] = [];
  newScheduler().run(({ flush }) => {
    detector.addListener((violation) => heard.push(violation));
    for (const [at, step] of steps) asyncScheduler.schedule(() => step(detector), at);
    flush();
  });
  return heard;
}

const message = (text: string, agentId = 'a') => (detector: LivelockDetector) => detector.recordMessage(agentId, text);
const state = (value: string, agentId = 'a') => (detector: LivelockDetector) => detector.recordStateChange(agentId, value);
const action = (name: string, agentId = 'a') => (detector: LivelockDetector) => detector.recordAction(agentId, name);
const analyze = (detector: LivelockDetector) => void detector.analyze();

describe('LivelockDetector: REPEATED_MESSAGE (default: 5 times within 10 s)', () => {
  it('reports the 5th identical message when the 5 span exactly 10,000 ms', () => {
    const heard = timeline([0, 2500, 5000, 7500, 10_000].map((t) => [t, message('retry')]));
    expect(heard).toEqual([{ type: 'REPEATED_MESSAGE', agentId: 'a', detail: 'Message repeated 5 times within 10000 ms: "retry"', timestamp: 10_000 }]);
  });

  it('does not report 5 spanning 10,001 ms, but does when a 6th brings the last 5 within the window', () => {
    expect(timeline([0, 2500, 5000, 7500, 10_001].map((t) => [t, message('retry')]))).toEqual([]);
    expect(timeline([0, 2500, 5000, 7500, 10_001, 12_000].map((t) => [t, message('retry')])).map((v) => v.timestamp)).toEqual([12_000]);
  });

  it('counts per agent and per message; 4 repeats are fine', () => {
    const heard = timeline([
      [0, message('x')], [1, message('x')], [2, message('x')], [3, message('x')],
      [4, message('y')], [5, message('x', 'b')], [6, message('x', 'b')], [7, message('x', 'b')], [8, message('x', 'b')],
    ]);
    expect(heard).toEqual([]);
  });

  it('starts counting over after a report', () => {
    const heard = timeline(Array.from({ length: 10 }, (_, i) => [i, message('retry')] as [number, ReturnType<typeof message>]));
    expect(heard.map((v) => v.timestamp)).toEqual([4, 9]);
  });
});

describe('LivelockDetector: OSCILLATING_STATE (default: 4 alternations)', () => {
  it('reports at the 4th back-and-forth change, A→B→A→B→A', () => {
    const heard = timeline(['A', 'B', 'A', 'B', 'A'].map((s, i) => [i * 10, state(s)]));
    expect(heard).toEqual([{ type: 'OSCILLATING_STATE', agentId: 'a', detail: 'State alternated 4 times between "B" and "A"', timestamp: 40 }]);
  });

  it('does not report 3 alternations, a third state, or re-recording the same state', () => {
    expect(timeline(['A', 'B', 'A', 'B'].map((s, i) => [i, state(s)]))).toEqual([]);
    expect(timeline(['A', 'B', 'A', 'C', 'A', 'C'].map((s, i) => [i, state(s)]))).toEqual([]);
    expect(timeline(['A', 'B', 'B', 'A', 'A', 'B'].map((s, i) => [i, state(s)]))).toEqual([]);
  });
});

describe('LivelockDetector: PROGRESS_STALL (default: no new action for 30 s)', () => {
  it('analyze() reports a stall at exactly 30,000 ms without a new action, not at 29,999', () => {
    const heard = timeline([[0, action('search')], [29_999, analyze], [30_000, analyze], [40_000, analyze]]);
    expect(heard).toEqual([{ type: 'PROGRESS_STALL', agentId: 'a', detail: 'No new action for 30000 ms (limit 30000 ms)', timestamp: 30_000 }]);
  });

  it('repeating an old action is no progress; a new one is', () => {
    expect(timeline([[0, action('search')], [20_000, action('search')], [30_000, action('search')]]).map((v) => v.timestamp)).toEqual([30_000]);
    expect(timeline([[0, action('search')], [20_000, action('book')], [49_999, analyze], [50_000, message('hi')]]).map((v) => v.timestamp)).toEqual([50_000]);
  });

  it('reports a new stall after the agent made progress again', () => {
    const heard = timeline([[0, action('a1')], [30_000, analyze], [31_000, action('a2')], [61_000, analyze]]);
    expect(heard.map((v) => [v.type, v.timestamp])).toEqual([['PROGRESS_STALL', 30_000], ['PROGRESS_STALL', 61_000]]);
  });

  it('does not watch agents that never recorded an action', () => {
    expect(timeline([[0, message('hello', 'talker')], [60_000, analyze]])).toEqual([]);
  });
});

describe('LivelockDetector: circuit breaker (default: 3 violations)', () => {
  it('trips at the 3rd violation: recording throws CircuitBreakerOpenError until reset()', () => {
    const detector = LivelockDetector.builder().repeatedMessageThreshold(1).build();
    const events: string[] = [];
    detector.addListener({
      onViolation: (v) => events.push(`violation ${v.type}`),
      onCircuitBreakerOpen: (violations) => events.push(`open ${violations.length}`),
      onReset: () => events.push('reset'),
    });
    detector.recordMessage('a', 'one');
    detector.recordMessage('a', 'two');
    expect(detector.circuitBreakerOpen).toBe(false);
    detector.recordMessage('a', 'three');
    expect(detector.circuitBreakerOpen).toBe(true);
    expect(() => detector.recordMessage('a', 'four')).toThrow(CircuitBreakerOpenError);
    expect(() => detector.recordStateChange('a', 'x')).toThrow('Livelock circuit breaker is open after 3 violations; call reset() to record again');
    expect(() => detector.recordAction('a', 'x')).toThrow(CircuitBreakerOpenError);
    expect(detector.analyze()).toEqual({ livelockDetected: true, violations: expect.any(Array), circuitBreakerOpen: true });
    expect(detector.analyze().violations).toHaveLength(3);
    detector.reset();
    expect(detector.analyze()).toEqual({ livelockDetected: false, violations: [], circuitBreakerOpen: false });
    expect(() => detector.recordMessage('a', 'five')).not.toThrow();
    expect(events).toEqual(['violation REPEATED_MESSAGE', 'violation REPEATED_MESSAGE', 'violation REPEATED_MESSAGE', 'open 3', 'reset', 'violation REPEATED_MESSAGE']);
  });

  it('a listener that throws breaks neither recording nor the other listeners; the logger hears it', () => {
    const logger = { warn: jest.fn() };
    const detector = new LivelockDetector({ repeatedMessageThreshold: 1, logger });
    const heard: string[] = [];
    detector.addListener(() => {
      throw new Error('listener bug');
    });
    detector.addListener((v) => heard.push(v.detail));
    expect(() => detector.recordMessage('a', 'x')).not.toThrow();
    expect(heard).toEqual(['Message repeated 1 times within 10000 ms: "x"']);
    expect(logger.warn).toHaveBeenCalledWith('LivelockDetector: a listener threw; recording continues.', expect.objectContaining({ message: 'listener bug' }));
    expect(detector.analyze().violations).toHaveLength(1);
  });

  it('analyze() never throws, even when a listener and the logger throw: every stalled agent is reported, the logger\'s error goes to RxJS\'s unhandled-error reporting', () => {
    const loggerDown = new Error('logger down');
    const logger = {
      warn: () => {
        throw loggerDown;
      },
    };
    const unhandled: unknown[] = [];
    const previous = config.onUnhandledError;
    config.onUnhandledError = (error) => unhandled.push(error);
    try {
      let report: LivelockReport | undefined;
      newScheduler().run(({ flush }) => {
        const detector = new LivelockDetector({ progressTimeoutMs: 10, logger });
        detector.addListener(() => {
          throw new Error('listener bug');
        });
        detector.recordAction('a', 'search');
        detector.recordAction('b', 'search');
        asyncScheduler.schedule(() => (report = detector.analyze()), 10);
        flush();
      });
      expect(report?.violations.map((violation) => `${violation.type} ${violation.agentId}`)).toEqual(['PROGRESS_STALL a', 'PROGRESS_STALL b']);
      expect(unhandled).toEqual([loggerDown]);
    } finally {
      config.onUnhandledError = previous;
    }
  });

  it.each([
    ['recordMessage', (detector: LivelockDetector) => detector.recordMessage('a', undefined as never), 'LivelockDetector.recordMessage: message must be a string, got undefined'],
    ['recordMessage', (detector: LivelockDetector) => detector.recordMessage(undefined as never, 'x'), 'LivelockDetector.recordMessage: agentId must be a string, got undefined'],
    ['recordStateChange', (detector: LivelockDetector) => detector.recordStateChange('a', 3 as never), 'LivelockDetector.recordStateChange: state must be a string, got 3'],
    ['recordAction', (detector: LivelockDetector) => detector.recordAction(7 as never, 'search'), 'LivelockDetector.recordAction: agentId must be a string, got 7'],
  ])('%s refuses an argument that is not a string with a ConfigError, as detectLivelock does, instead of counting it as something else', (_name, record, message) => {
    const detector = new LivelockDetector({ repeatedMessageThreshold: 1 });
    expect(() => record(detector)).toThrow(ConfigError);
    expect(() => record(detector)).toThrow(message);
    expect(detector.analyze()).toEqual({ livelockDetected: false, violations: [], circuitBreakerOpen: false });
  });

  it('a record that reports a stall to a throwing listener and logger still records what it was given, then throws the logger\'s error', () => {
    const loggerDown = new Error('logger down');
    const logger = {
      warn: () => {
        throw loggerDown;
      },
    };
    const heard: string[] = [];
    const thrown: unknown[] = [];
    newScheduler().run(({ flush }) => {
      const detector = new LivelockDetector({ progressTimeoutMs: 10, repeatedMessageThreshold: 2, logger });
      detector.addListener(() => {
        throw new Error('listener bug');
      });
      detector.addListener((violation) => heard.push(violation.type));
      const record = (step: () => void) => () => {
        try {
          step();
        } catch (error) {
          thrown.push(error);
        }
      };
      detector.recordAction('a', 'search');
      // At 10 the stall is reported on this record; the message is still counted, so the next one repeats it.
      asyncScheduler.schedule(record(() => detector.recordMessage('a', 'retry')), 10);
      asyncScheduler.schedule(record(() => detector.recordMessage('a', 'retry')), 11);
      flush();
    });
    expect(heard).toEqual(['PROGRESS_STALL', 'REPEATED_MESSAGE']);
    expect(thrown).toEqual([loggerDown, loggerDown]);
  });

  it('a removed listener hears nothing more', () => {
    const detector = new LivelockDetector({ repeatedMessageThreshold: 1 });
    const heard: LivelockViolation[] = [];
    const remove = detector.addListener((v) => heard.push(v));
    detector.recordMessage('a', 'x');
    remove();
    detector.recordMessage('a', 'y');
    expect(heard).toHaveLength(1);
  });
});

describe('LivelockDetector options', () => {
  it('uses the documented defaults and the builder overrides them', () => {
    const quick = LivelockDetector.builder().repeatedMessageThreshold(2).messageWindowMs(100).oscillationThreshold(2).progressTimeoutMs(50).circuitBreakerThreshold(10).build();
    const heard = timeline([[0, message('m')], [100, message('m')], [101, state('A')], [102, state('B')], [103, state('A')], [104, action('x')], [154, analyze]], quick);
    expect(heard.map((v) => [v.type, v.timestamp])).toEqual([['REPEATED_MESSAGE', 100], ['OSCILLATING_STATE', 103], ['PROGRESS_STALL', 154]]);
  });

  it.each([
    [{ repeatedMessageThreshold: 0 }, 'repeatedMessageThreshold must be a positive integer, got 0'],
    [{ messageWindowMs: -1 }, 'messageWindowMs must be a number of milliseconds greater than 0 and at most 2147483647 (about 24.8 days), or Infinity for no timeout, got -1'],
    [{ oscillationThreshold: 1.5 }, 'oscillationThreshold must be a positive integer, got 1.5'],
    [{ progressTimeoutMs: 0 }, 'progressTimeoutMs must be a number of milliseconds greater than 0 and at most 2147483647 (about 24.8 days), or Infinity for no timeout, got 0'],
    [{ circuitBreakerThreshold: -3 }, 'circuitBreakerThreshold must be a positive integer, got -3'],
    [{ scheduler: 'now' }, 'scheduler must be an RxJS scheduler'],
    [{ windowMs: 5 }, 'windowMs is not a known option'],
  ])('rejects %p', (options, message) => {
    expect(() => new LivelockDetector(options as never)).toThrow(ConfigError);
    expect(() => new LivelockDetector(options as never)).toThrow(message);
  });

  it('the builder validates at build()', () => {
    expect(() => LivelockDetector.builder().circuitBreakerThreshold(0).build()).toThrow('LivelockDetector options: circuitBreakerThreshold must be a positive integer, got 0');
  });
});
