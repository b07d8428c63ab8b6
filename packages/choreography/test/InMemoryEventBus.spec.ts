import { ConfigError } from '@rxagents/core';
import { type ChoreographyEvent, InMemoryEventBus } from '@rxagents/choreography';

describe('InMemoryEventBus', () => {
  it('delivers events published after subscription, in order, to every subscriber', () => {
    const bus = new InMemoryEventBus();
    bus.publish({ name: 'lost' });
    const first: string[] = [];
    const second: string[] = [];
    bus.events$.subscribe((event) => first.push(event.name));
    bus.events$.subscribe((event) => second.push(event.name));
    bus.publish({ name: 'a' });
    bus.publish({ name: 'b', output: 'x' });
    expect(first).toEqual(['a', 'b']);
    expect(second).toEqual(['a', 'b']);
  });

  it('trampolines: an event published from a subscriber is delivered after the current one, to everyone', () => {
    const bus = new InMemoryEventBus();
    const log: string[] = [];
    bus.events$.subscribe((event) => {
      log.push(`1:${event.name}`);
      if (event.name === 'a') bus.publish({ name: 'b' });
    });
    bus.events$.subscribe((event) => log.push(`2:${event.name}`));
    bus.publish({ name: 'a' });
    expect(log).toEqual(['1:a', '2:a', '1:b', '2:b']);
  });

  it('handles 100,000 re-entrant publishes without growing the stack', () => {
    const bus = new InMemoryEventBus();
    let count = 0;
    bus.events$.subscribe((event: ChoreographyEvent) => {
      count += 1;
      if (count < 100_000) bus.publish({ name: event.name });
    });
    bus.publish({ name: 'tick' });
    expect(count).toBe(100_000);
  });

  it('close completes subscribers, drops queued events, ignores later publishes, and completes late subscribers', () => {
    const bus = new InMemoryEventBus();
    const seen: string[] = [];
    let completed = 0;
    bus.events$.subscribe({
      next: (event) => {
        seen.push(event.name);
        bus.publish({ name: 'queued' });
        bus.close();
      },
      complete: () => (completed += 1),
    });
    bus.publish({ name: 'a' });
    bus.publish({ name: 'after' });
    bus.close();
    bus.events$.subscribe({ complete: () => (completed += 1) });
    expect(seen).toEqual(['a']);
    expect(completed).toBe(2);
    expect(bus.closed).toBe(true);
  });

  it.each([
    [null, 'value must be an event object { name, output?, input?, interactionId?, agentId? }, got null'],
    [{ name: 42 }, 'name must be a non-blank string, got 42'],
    [{ name: ' ' }, 'name must be a non-blank string, got " "'],
    [{ name: 'researched', output: { text: 'x' } }, 'output must be a string when present, got {"text":"x"}'],
    [{ name: 'researched', agentId: 7 }, 'agentId must be a string when present, got 7'],
  ])('refuses to publish the malformed event %p with a ConfigError, and delivers nothing', (event, message) => {
    const bus = new InMemoryEventBus();
    const heard: unknown[] = [];
    bus.events$.subscribe((delivered) => heard.push(delivered));
    expect(() => bus.publish(event as never)).toThrow(ConfigError);
    expect(() => bus.publish(event as never)).toThrow(`InMemoryEventBus.publish event: ${message}`);
    expect(heard).toEqual([]);
  });

  it('stops delivering to an unsubscribed subscriber', () => {
    const bus = new InMemoryEventBus();
    const seen: string[] = [];
    const subscription = bus.events$.subscribe((event) => seen.push(event.name));
    bus.publish({ name: 'a' });
    subscription.unsubscribe();
    bus.publish({ name: 'b' });
    expect(seen).toEqual(['a']);
  });
});
