import { TestScheduler } from 'rxjs/testing';
import { from, Observable, of, throwError } from 'rxjs';
import { AgentError, AgentTimeoutError, defineAgent, invoke, type ChatOptions } from '@rxagents/core';

describe('invoke', () => {
  it('streams chunks from an Observable', async () => {
    const agent = defineAgent('a', () => of('x', 'y'));
    const chunks: string[] = [];
    await new Promise<void>((done) => invoke(agent, 'hi').subscribe({ next: (c) => chunks.push(c), complete: done }));
    expect(chunks).toEqual(['x', 'y']);
  });
});
