import { scan, tap, type Observable, type Subscription } from 'rxjs';
import { emptyRunView, reduceRunView, runView, type RunEvent, type RunView } from '@rxagents/core';
import { fromEventStream, type EventStreamStatus } from '@rxagents/web/client';
import { InterruptCards, openInterrupts } from './interruptCards';
import { pendingQuestion, renderCalls, renderMetrics, renderTimeline, resultOf, statusOf, topicOf, type PageState } from './render';

// The demo page: starts a run on the server, watches its events (resuming after a reload from the last
// event it saw, or after the server restarted), renders them, and answers a person's turn and the
// run's questions (approvals, input). Everything on the page is drawn from the run's view, at most once
// per frame.

const SAVED_KEY = 'rxagents-demo-run';
/** The form's choices of the last Start, shown again after a reload (the run it started may still be going). */
const SETTINGS_KEY = 'rxagents-demo-settings';

interface Settings {
  readonly scene: string;
  readonly topic: string;
  readonly human: boolean;
  readonly speed: string;
}

interface SavedRun {
  readonly runId: string;
  readonly eventCount: number;
  readonly view: RunView;
}

const byId = <T extends HTMLElement>(id: string): T => {
  const element = document.getElementById(id);
  if (element === null) throw new Error(`the page has no #${id}`);
  return element as T;
};

const form = byId<HTMLFormElement>('start-form');
const stopButton = byId<HTMLButtonElement>('stop');
const ask = byId<HTMLFormElement>('ask');
const answerInput = byId<HTMLInputElement>('answer');

let runId: string | undefined;
let state: PageState = { view: emptyRunView, eventCount: 0, stopped: false };
let watching: Subscription | undefined;
let frame: number | undefined;
const answered = new Set<string>();
/** The open questions of the run: answered at the run's answer route, which takes only this run's own. */
const cards = new InterruptCards(byId('interrupts'), (interruptId, answer) =>
  fetch(`/api/runs/${encodeURIComponent(runId ?? '')}/answers`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ interruptId, answer }) }),
);

function render(): void {
  frame = undefined;
  const status = statusOf(state);
  const statusElement = byId('status');
  statusElement.textContent = status;
  statusElement.dataset['status'] = status;
  const events = byId('events');
  events.textContent = `${state.eventCount} events`;
  events.dataset['count'] = String(state.eventCount);
  byId('calls').replaceChildren(renderCalls(state.view));
  byId('timeline').replaceChildren(...renderTimeline(state.view));
  byId('metrics').replaceChildren(renderMetrics(state.view));
  byId('result').textContent = resultOf(state);
  const topic = topicOf(state.view);
  const topicElement = byId('run-topic');
  topicElement.hidden = topic === '';
  topicElement.textContent = topic === '' ? '' : `Topic: ${topic}`;
  stopButton.disabled = status !== 'running';
  const question = status === 'running' ? pendingQuestion(state.view, answered) : undefined;
  ask.hidden = question === undefined;
  ask.dataset['interruptId'] = question?.interruptId ?? '';
  byId('ask-prompt').textContent = question === undefined ? '' : `Your turn: ${question.prompt}`;
  cards.update(status === 'running' ? openInterrupts(state.view) : []);
}

function update(next: Partial<PageState>): void {
  state = { ...state, ...next };
  frame ??= requestAnimationFrame(render);
}

/** Watches a run from the start, or after `saved.eventCount` events with the view they made. */
function watch(id: string, saved?: SavedRun): void {
  watching?.unsubscribe();
  if (runId !== id) cards.clear();
  runId = id;
  document.body.dataset['runId'] = id;
  const after = saved?.eventCount ?? 0;
  const url = new URL(`/api/runs/${encodeURIComponent(id)}/events`, location.href);
  // Event ids are positions in the run: the last one this page saw is `eventCount - 1`.
  const request = new Request(url, { headers: after > 0 ? { 'last-event-id': String(after - 1) } : {} });
  let count = after;
  // A dropped stream reconnects (by default backing off up to 5 s, for 5 minutes), each time after the
  // last event seen: a server restarted meanwhile serves the rest from its store, and the questions
  // shown stay answerable. The bar says so while it does.
  const events$: Observable<RunEvent> = fromEventStream(request, { onStatus: showConnection }).pipe(tap(() => (count += 1)));
  const views$ = saved === undefined ? runView(events$) : events$.pipe(scan(reduceRunView, saved.view));
  state = { view: saved?.view ?? emptyRunView, eventCount: after, stopped: false };
  byId('resumed').textContent = after > 0 ? `resumed after event ${after - 1}` : '';
  byId('resumed').dataset['after'] = String(after);
  render();
  watching = views$.subscribe({
    next: (view) => update({ view, eventCount: count }),
    error: (error: unknown) => {
      const { name, message } = error as Error;
      update(name === 'AbortError' ? { stopped: true } : { failure: `${name}: ${message}` });
    },
  });
}

function showConnection(status: EventStreamStatus): void {
  const element = byId('connection');
  element.dataset['state'] = status.state;
  element.hidden = status.state === 'connected';
  element.textContent =
    status.state === 'reconnecting' ? `connection lost, trying again in ${Math.ceil(status.delayMs / 1000)} s (try ${status.attempt})` : status.state === 'gave-up' ? 'connection lost' : '';
}

function readSettings(): Settings {
  return {
    scene: byId<HTMLSelectElement>('scene').value,
    topic: byId<HTMLInputElement>('topic').value,
    human: byId<HTMLInputElement>('human').checked,
    speed: byId<HTMLSelectElement>('speed').value,
  };
}

/** Puts saved choices back in the form; a value the form no longer offers is left as it is. */
function applySettings(stored: string | null): void {
  if (stored === null) return;
  let settings: Partial<Settings>;
  try {
    settings = JSON.parse(stored) as Partial<Settings>;
  } catch {
    return;
  }
  const select = (id: string, value: unknown): void => {
    const element = byId<HTMLSelectElement>(id);
    if (typeof value === 'string' && [...element.options].some((option) => option.value === value)) element.value = value;
  };
  select('scene', settings.scene);
  select('speed', settings.speed);
  if (typeof settings.topic === 'string') byId<HTMLInputElement>('topic').value = settings.topic;
  if (typeof settings.human === 'boolean') byId<HTMLInputElement>('human').checked = settings.human;
}

form.addEventListener('submit', (submitted) => {
  submitted.preventDefault();
  sessionStorage.setItem(SETTINGS_KEY, JSON.stringify(readSettings()));
  const topic = byId<HTMLInputElement>('topic').value.trim();
  const body = {
    scene: byId<HTMLSelectElement>('scene').value,
    human: byId<HTMLInputElement>('human').checked,
    wordMs: Number(byId<HTMLSelectElement>('speed').value),
    ...(topic === '' ? {} : { topic }),
  };
  void fetch('/api/runs', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    .then(async (response) => {
      if (!response.ok) throw new Error(`starting the run failed: ${response.status} ${await response.text()}`);
      const { runId: started } = (await response.json()) as { runId: string };
      answered.clear();
      watch(started);
    })
    .catch((error: unknown) => update({ failure: String(error) }));
});

stopButton.addEventListener('click', () => {
  if (runId === undefined) return;
  stopButton.disabled = true;
  void fetch(`/api/runs/${encodeURIComponent(runId)}/cancel`, { method: 'POST' });
});

ask.addEventListener('submit', (submitted) => {
  submitted.preventDefault();
  // The question's id, answered under the run this page watches: the server takes it for that run only.
  const interruptId = ask.dataset['interruptId'] ?? '';
  const text = answerInput.value;
  if (runId === undefined || interruptId === '' || text.trim() === '') return;
  answered.add(interruptId);
  answerInput.value = '';
  ask.hidden = true;
  void fetch(`/api/runs/${encodeURIComponent(runId)}/answers`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ interruptId, answer: text }),
  }).then((response) => {
    if (!response.ok) {
      answered.delete(interruptId);
      update({});
    }
  });
});

// A reload keeps watching the same run: the view so far and the number of events it holds are saved
// as the page goes away, and the stream resumes after the last of them.
addEventListener('pagehide', () => {
  if (runId === undefined || statusOf(state) !== 'running') {
    sessionStorage.removeItem(SAVED_KEY);
    return;
  }
  const saved: SavedRun = { runId, eventCount: state.eventCount, view: state.view };
  sessionStorage.setItem(SAVED_KEY, JSON.stringify(saved));
});

applySettings(sessionStorage.getItem(SETTINGS_KEY));
const stored = sessionStorage.getItem(SAVED_KEY);
sessionStorage.removeItem(SAVED_KEY);
if (stored !== null) {
  const saved = JSON.parse(stored) as SavedRun;
  watch(saved.runId, saved);
} else {
  render();
}
