import { VirtualTimeScheduler } from 'rxjs';
import { ConfigError, MemoryRunStore } from '../src';
import { describeRunStore, readAll, start } from './support/runStoreContract';

describeRunStore('memory', async () => {
  const scheduler = new VirtualTimeScheduler();
  return {
    store: new MemoryRunStore({ scheduler }),
    advance: async (ms) => {
      scheduler.schedule(() => undefined, ms);
      scheduler.flush();
    },
  };
});

describe('MemoryRunStore', () => {
  it('refuses an unknown option with a ConfigError naming it', () => {
    expect(() => new MemoryRunStore({ clock: 1 } as never)).toThrow(ConfigError);
  });

  it('keeps the journal of a run apart from every other run', async () => {
    const store = new MemoryRunStore();
    await store.append('__proto__', [start('__proto__')]);
    await store.append('constructor', [start('constructor')]);
    expect((await readAll(store, '__proto__')).length).toBe(1);
    expect((await store.list()).length).toBe(2);
  });
});
