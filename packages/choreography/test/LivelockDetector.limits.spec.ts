import { ConfigError, MAX_COUNT, MAX_DELAY_MS } from '@rxagents/core';
import { LivelockDetector, type LivelockViolation } from '@rxagents/choreography';
import { VirtualTimeScheduler } from 'rxjs';

describe('LivelockDetector: identity of repeated messages', () => {
  it('does not confuse agent "a\\0b" saying "c" with agent "a" saying "b\\0c"', () => {
    const detector = new LivelockDetector({ repeatedMessageThreshold: 2, scheduler: new VirtualTimeScheduler() });
    const heard: LivelockViolation[] = [];
    detector.addListener((violation) => heard.push(violation));
    detector.recordMessage('a\u0000b', 'c');
    detector.recordMessage('a', 'b\u0000c');
    detector.recordMessage('a:1', 'x');
    detector.recordMessage('a', ':1x');
    expect(heard).toEqual([]);
    detector.recordMessage('a', 'b\u0000c');
    expect(heard.map((v) => v.agentId)).toEqual(['a']);
  });
});

describe('LivelockDetector: memory bounded by the message window', () => {
  it('forgets messages older than the window as new ones arrive: 200,000 distinct messages, 1 ms apart, keep at most a window of them', () => {
    const clock = new VirtualTimeScheduler();
    const detector = new LivelockDetector({ messageWindowMs: 1_000, scheduler: clock });
    let largest = 0;
    for (let i = 0; i < 200_000; i += 1) {
      clock.frame = i;
      detector.recordMessage(`agent-${i % 7}`, `message ${i}`);
      largest = Math.max(largest, detector.trackedMessages);
    }
    // A message recorded at t is remembered while now - t <= 1,000 ms: at most 1,001 of them.
    expect(largest).toBe(1_001);
    clock.frame = 300_000;
    detector.recordMessage('late', 'one');
    expect(detector.trackedMessages).toBe(1);
  });

  it('still reports repeats within the window after pruning others', () => {
    const clock = new VirtualTimeScheduler();
    const detector = new LivelockDetector({ repeatedMessageThreshold: 3, messageWindowMs: 100, scheduler: clock });
    const heard: number[] = [];
    detector.addListener((v) => heard.push(v.timestamp));
    for (const [t, text] of [[0, 'old'], [50, 'r'], [120, 'noise'], [140, 'r'], [150, 'r'], [300, 'old'], [301, 'old']] as const) {
      clock.frame = t;
      detector.recordMessage('a', text);
    }
    expect(heard).toEqual([150]);
  });

  it('works with a repetition threshold at the bound (2^31-1), with no RangeError', () => {
    const detector = new LivelockDetector({ repeatedMessageThreshold: MAX_COUNT, scheduler: new VirtualTimeScheduler() });
    for (let i = 0; i < 1_000; i += 1) detector.recordMessage('a', `m${i % 10}`);
    expect(detector.analyze().violations).toEqual([]);
  });
});

describe('LivelockDetector: bounded options', () => {
  it.each([
    [{ repeatedMessageThreshold: 2 ** 32 }, `repeatedMessageThreshold must be a positive integer of at most ${MAX_COUNT}`],
    [{ oscillationThreshold: 2 ** 32 }, `oscillationThreshold must be a positive integer of at most ${MAX_COUNT}`],
    [{ circuitBreakerThreshold: 2 ** 32 }, `circuitBreakerThreshold must be a positive integer of at most ${MAX_COUNT}`],
    [{ progressTimeoutMs: 2 ** 31 }, `progressTimeoutMs must be a number of milliseconds greater than 0 and at most ${MAX_DELAY_MS}`],
    [{ messageWindowMs: 30 * 24 * 3_600_000 }, `messageWindowMs must be a number of milliseconds greater than 0 and at most ${MAX_DELAY_MS}`],
  ])('refuses %p with a ConfigError', (options, message) => {
    expect(() => new LivelockDetector(options)).toThrow(ConfigError);
    expect(() => new LivelockDetector(options)).toThrow(message);
  });

  it('accepts Infinity for progressTimeoutMs (never stalls) and messageWindowMs (repeats count however far apart)', () => {
    const clock = new VirtualTimeScheduler();
    const detector = new LivelockDetector({ progressTimeoutMs: Infinity, messageWindowMs: Infinity, repeatedMessageThreshold: 2, scheduler: clock });
    detector.recordAction('a', 'search');
    detector.recordMessage('a', 'retry');
    clock.frame = MAX_DELAY_MS * 10;
    detector.recordMessage('a', 'retry');
    expect(detector.stallDeadline('a')).toBe(Infinity);
    expect(detector.analyze().violations.map((v) => v.type)).toEqual(['REPEATED_MESSAGE']);
  });
});

describe('LivelockDetector: a logger that throws', () => {
  const throwingLogger = {
    warn: () => {
      throw new Error('log sink down');
    },
  };
  const throwingListener = () => {
    throw new Error('listener bug');
  };

  it('when a listener throws and the logger throws too, every listener still hears it, the breaker still trips, and the record call throws the logger error', () => {
    const detector = new LivelockDetector({ repeatedMessageThreshold: 1, circuitBreakerThreshold: 1, logger: throwingLogger, scheduler: new VirtualTimeScheduler() });
    const heard: string[] = [];
    detector.addListener(throwingListener);
    detector.addListener({ onViolation: (v) => heard.push(v.type), onCircuitBreakerOpen: (vs) => heard.push(`open ${vs.length}`) });
    expect(() => detector.recordMessage('a', 'x')).toThrow('log sink down');
    expect(heard).toEqual(['REPEATED_MESSAGE', 'open 1']);
    expect(detector.circuitBreakerOpen).toBe(true);
    expect(detector.analyze().violations).toHaveLength(1);
  });

  it('reset() forgets everything and tells every listener before it throws the logger error', () => {
    const detector = new LivelockDetector({ repeatedMessageThreshold: 1, circuitBreakerThreshold: 1, logger: throwingLogger, scheduler: new VirtualTimeScheduler() });
    expect(() => detector.recordMessage('a', 'x')).not.toThrow();
    const heard: string[] = [];
    detector.addListener({ onReset: throwingListener });
    detector.addListener({ onReset: () => heard.push('reset') });
    expect(() => detector.reset()).toThrow('log sink down');
    expect(heard).toEqual(['reset']);
    expect(detector.analyze()).toEqual({ livelockDetected: false, violations: [], circuitBreakerOpen: false });
  });
});

describe('LivelockDetector: memory of past actions', () => {
  it('remembers at most maxRememberedActions distinct actions per agent; an action forgotten and taken again counts as new', () => {
    const clock = new VirtualTimeScheduler();
    const detector = new LivelockDetector({ progressTimeoutMs: 100, maxRememberedActions: 2, scheduler: clock });
    const at = (t: number, action: string) => {
      clock.frame = t;
      detector.recordAction('a', action);
    };
    at(0, 'x');
    at(10, 'y');
    at(20, 'x'); // remembered: no progress, and x is now the most recent
    expect(detector.stallDeadline('a')).toBe(110);
    at(30, 'z'); // new; y, the least recent, is forgotten
    expect(detector.stallDeadline('a')).toBe(130);
    at(40, 'x'); // still remembered
    expect(detector.stallDeadline('a')).toBe(130);
    at(50, 'y'); // forgotten, so new again
    expect(detector.stallDeadline('a')).toBe(150);
  });

  it('defaults maxRememberedActions to 10,000 and bounds it', () => {
    const clock = new VirtualTimeScheduler();
    const detector = new LivelockDetector({ progressTimeoutMs: 100, scheduler: clock });
    for (let i = 0; i <= 10_000; i += 1) detector.recordAction('a', `step ${i}`);
    clock.frame = 50;
    detector.recordAction('a', 'step 1'); // the oldest of 10,001 was 'step 0'; 'step 1' is still remembered
    expect(detector.stallDeadline('a')).toBe(100);
    detector.recordAction('a', 'step 0');
    expect(detector.stallDeadline('a')).toBe(150);
    expect(() => new LivelockDetector({ maxRememberedActions: 2 ** 32 })).toThrow(ConfigError);
    expect(() => new LivelockDetector({ maxRememberedActions: 0 })).toThrow('maxRememberedActions must be a positive integer');
  });
});
