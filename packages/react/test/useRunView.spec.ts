import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { ConfigError } from '@rxagents/core';
import { usePendingInterrupts, useRunView, type RunViewOptions } from '@rxagents/react';

// A server render, in Node without a DOM: the hooks show the state before any event and read nothing
// (effects, where reading starts, do not run on a server). The browser tests render them live.
function Story({ options }: { options?: RunViewOptions }) {
  const { view, status } = useRunView('https://example.com/runs/r/events', options);
  const { interrupts } = usePendingInterrupts('https://example.com/runs/r/events', options);
  return createElement('p', { 'data-reading': status, 'data-run': view.status }, `${view.nodes.length} nodes, ${interrupts.length} questions`);
}

describe('useRunView and usePendingInterrupts on a server', () => {
  it('render the connecting state with an empty view and fetch nothing', () => {
    const fetch = jest.fn<ReturnType<typeof globalThis.fetch>, Parameters<typeof globalThis.fetch>>();
    const html = renderToString(createElement(Story, { options: { fetch } }));
    expect(html).toBe('<p data-reading="connecting" data-run="idle">0 nodes, 0 questions</p>');
    expect(fetch).not.toHaveBeenCalled();
  });

  it('throw a ConfigError for a bad option during render, naming it', () => {
    const render = () => renderToString(createElement(Story, { options: { frameScheduler: 16 } as never }));
    expect(render).toThrow(ConfigError);
    expect(render).toThrow(/frameScheduler must be an RxJS scheduler/);
  });
});
