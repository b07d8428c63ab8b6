import { TestScheduler } from 'rxjs/testing';
import { lastValueFrom, of } from 'rxjs';
import { defineAgent, reply } from '@rxagents/core';

describe('reply', () => {
  it('emits the chunks joined, once', () => {
    new TestScheduler((a, e) => expect(a).toEqual(e)).run(({ cold, expectObservable }) => {
      const agent = defineAgent('w', () => cold('-a-b-c|', { a: 'Once ', b: 'upon ', c: 'a time' }));
      expectObservable(reply(agent, 'story')).toBe('------(r|)', { r: 'Once upon a time' });
    });
  });

  it("replies '' when the agent completes without a chunk", async () => {
    const agent = defineAgent('quiet', () => of<string>());
    await expect(lastValueFrom(reply(agent, 'hi'))).resolves.toBe('');
  });
});
