import { createElement, StrictMode, useMemo, useState, type ReactElement } from 'react';
import { createRoot } from 'react-dom/client';
import type { RunEventOf } from '@rxagents/core';
import { createRunViewStore, postAnswer, usePendingInterrupts, useRunView } from '@rxagents/react';

// The React 19 page of the browser tests. `?mode=text&events=<url>` shows a run's text as it streams;
// `?mode=questions&events=<url>&answers=<url>` shows its open questions and answers them; `&strict=1`
// renders under StrictMode. The Unmount button unmounts the whole tree.

const params = new URLSearchParams(location.search);
const events = params.get('events') ?? '';
const answers = params.get('answers') ?? '';

function Story({ url }: { url: string }): ReactElement {
  const { view, status } = useRunView(url);
  const text = view.nodes.filter((node) => node.kind === 'call').map((node) => node.text).join('');
  return createElement('p', { id: 'text', 'data-run': view.status, 'data-reading': status }, text);
}

function Question({ asked }: { asked: RunEventOf<'interrupt'> }): ReactElement {
  const [value, setValue] = useState('');
  const [refusal, setRefusal] = useState('');
  const send = async (answer: unknown): Promise<void> => {
    const result = await postAnswer({ url: answers, interruptId: asked.interruptId, answer });
    setRefusal(result.success ? '' : `${result.status} ${result.code}: ${result.issues.map((issue) => issue.rule).join('; ') || result.message}`);
  };
  const children =
    asked.kind === 'approval'
      ? [
          createElement('code', { key: 'args', className: 'args' }, `${asked.action ?? ''} ${JSON.stringify(asked.args)}`),
          createElement('button', { key: 'yes', type: 'button', className: 'approve', onClick: () => void send({ approved: true }) }, 'Approve'),
        ]
      : [
          createElement('input', { key: 'value', className: 'value', value, onChange: (event: { target: { value: string } }) => setValue(event.target.value) }),
          createElement('button', { key: 'send', type: 'button', className: 'send', onClick: () => void send(value) }, 'Send'),
        ];
  return createElement(
    'form',
    { className: 'question', 'data-kind': asked.kind, onSubmit: (event: { preventDefault(): void }) => event.preventDefault() },
    createElement('label', null, asked.question),
    ...children,
    createElement('output', { className: 'refusal' }, refusal),
  );
}

function Questions({ url }: { url: string }): ReactElement {
  // One store for both hooks: one connection shows the run and its questions.
  const store = useMemo(() => createRunViewStore(url), [url]);
  const { view } = useRunView(store);
  const { interrupts } = usePendingInterrupts(store);
  const output = view.nodes.find((node) => node.callId === view.rootId)?.text ?? '';
  return createElement(
    'section',
    { id: 'run', 'data-run': view.status },
    ...interrupts.map((asked) => createElement(Question, { key: asked.interruptId, asked })),
    createElement('p', { id: 'output' }, view.status === 'completed' ? output : ''),
  );
}

function App(): ReactElement {
  return params.get('mode') === 'questions' ? createElement(Questions, { url: events }) : createElement(Story, { url: events });
}

const root = createRoot(document.getElementById('root')!);
root.render(params.get('strict') === '1' ? createElement(StrictMode, null, createElement(App)) : createElement(App));
const unmount = document.createElement('button');
unmount.id = 'unmount';
unmount.textContent = 'Unmount';
unmount.addEventListener('click', () => {
  root.unmount();
  document.body.dataset['unmounted'] = 'yes';
});
document.body.append(unmount);
