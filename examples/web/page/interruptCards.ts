import type { RunEventOf, RunView } from '@rxagents/core';

type Interrupt = RunEventOf<'interrupt'>;

/** Sends an answer to a question of the run the page watches; resolves with the server's response. */
export type SendAnswer = (interruptId: string, answer: unknown) => Promise<Response>;

/**
 * The questions of the run still open: its interrupt nodes that are running, one per interrupt id (a
 * question asked again after a restart keeps its id; the latest node asking it wins).
 */
export function openInterrupts(view: RunView): Interrupt[] {
  const open = new Map<string, Interrupt>();
  for (const node of view.nodes) {
    if (node.kind === 'interrupt' && node.status === 'running' && node.interrupt !== undefined) open.set(node.interrupt.interruptId, node.interrupt);
  }
  return [...open.values()];
}

function el(tag: string, attributes: Record<string, string> = {}, ...children: Array<Node | string>): HTMLElement {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  element.append(...children);
  return element;
}

/** What a refused answer shows: the rules the server says it broke, or its message. */
async function refusal(response: Response): Promise<string> {
  if (response.status === 404) return 'This question is not open on the server right now (it may be restarting): try again in a moment.';
  const body = (await response.json().catch(() => undefined)) as { error?: { message?: unknown; issues?: unknown } } | undefined;
  const issues = body?.error?.issues;
  if (Array.isArray(issues) && issues.length > 0) {
    return (issues as Array<{ path?: unknown; rule?: unknown }>).map((issue) => (typeof issue.path === 'string' && issue.path !== '' ? `${issue.path}: ${String(issue.rule)}` : String(issue.rule))).join('; ');
  }
  const message = body?.error?.message;
  return typeof message === 'string' ? message : `The server refused the answer (${response.status})`;
}

/**
 * What a text field's value is sent as: a number when the question's JSON Schema asks for one and the
 * text is one, else the text (the server checks it against the schema either way).
 */
function typedAnswer(text: string, schema: Interrupt['schema']): unknown {
  const type = (schema as { type?: unknown } | null)?.type;
  const trimmed = text.trim();
  return (type === 'number' || type === 'integer') && /^-?\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : text;
}

/**
 * The cards of the open questions in `container`, one per interrupt id: an approval card (the action,
 * its arguments as JSON, an optional reason, Approve / Reject) or an input box (the question and a text
 * field). A card stays in place while its question is open, so what a person typed is kept across
 * renders; it goes once the run says the question closed.
 */
export class InterruptCards {
  readonly #cards = new Map<string, HTMLFormElement>();

  constructor(
    private readonly container: HTMLElement,
    private readonly send: SendAnswer,
  ) {}

  /** Shows exactly the cards of `open`. */
  update(open: readonly Interrupt[]): void {
    const ids = new Set(open.map((asked) => asked.interruptId));
    for (const [id, card] of this.#cards) {
      if (ids.has(id)) continue;
      card.remove();
      this.#cards.delete(id);
    }
    for (const asked of open) {
      let card = this.#cards.get(asked.interruptId);
      if (card === undefined) {
        card = asked.kind === 'approval' ? this.#approvalCard(asked) : this.#inputCard(asked);
        this.#cards.set(asked.interruptId, card);
        this.container.append(card);
      }
      // The node asking it: a new one when the question was asked again after a restart.
      card.dataset['callId'] = asked.callId;
    }
    this.container.hidden = this.#cards.size === 0;
  }

  /** Forgets every card (another run is watched). */
  clear(): void {
    this.update([]);
  }

  #approvalCard(asked: Interrupt): HTMLFormElement {
    const reason = el('input', { class: 'reason', type: 'text', 'aria-label': 'reason', placeholder: 'Reason (optional)', autocomplete: 'off' }) as HTMLInputElement;
    const approve = el('button', { type: 'submit', class: 'approve', value: 'approve' }, 'Approve');
    const reject = el('button', { type: 'submit', class: 'reject', value: 'reject' }, 'Reject');
    const card = this.#card(asked, [
      el('header', {}, 'Approval needed: ', el('code', { class: 'action' }, asked.action ?? '')),
      el('p', { class: 'question' }, asked.question),
      el('pre', { class: 'args' }, JSON.stringify(asked.args ?? null, null, 2)),
      el('div', { class: 'row' }, reason, approve, reject),
    ]);
    card.addEventListener('submit', (submitted) => {
      submitted.preventDefault();
      const approved = (submitted.submitter as HTMLButtonElement | null)?.value !== 'reject';
      const text = reason.value.trim();
      void this.#answer(card, asked, { approved, ...(text === '' ? {} : { reason: text }) });
    });
    return card;
  }

  #inputCard(asked: Interrupt): HTMLFormElement {
    const field = el('input', { class: 'answer', type: 'text', 'aria-label': 'answer', autocomplete: 'off' }) as HTMLInputElement;
    const card = this.#card(asked, [el('label', { class: 'question' }, asked.question), el('div', { class: 'row' }, field, el('button', { type: 'submit' }, 'Answer'))]);
    card.addEventListener('submit', (submitted) => {
      submitted.preventDefault();
      void this.#answer(card, asked, typedAnswer(field.value, asked.schema));
    });
    return card;
  }

  #card(asked: Interrupt, children: HTMLElement[]): HTMLFormElement {
    const card = el('form', { class: 'interrupt', 'data-kind': asked.kind, 'data-interrupt-id': asked.interruptId, 'data-state': 'open' }, ...children) as HTMLFormElement;
    card.append(el('p', { class: 'error', role: 'alert', hidden: '' }));
    return card;
  }

  /** Sends the answer; a refusal shows why and the card stays open for another try. */
  async #answer(card: HTMLFormElement, asked: Interrupt, answer: unknown): Promise<void> {
    const buttons = [...card.querySelectorAll('button')];
    const error = card.querySelector<HTMLElement>('.error');
    for (const button of buttons) button.disabled = true;
    card.dataset['state'] = 'sending';
    let message: string | undefined;
    try {
      const response = await this.send(asked.interruptId, answer);
      if (!response.ok) message = await refusal(response);
    } catch {
      message = 'The server could not be reached: try again in a moment.';
    }
    // Answered: the card waits for the run to say the question closed.
    card.dataset['state'] = message === undefined ? 'answered' : 'refused';
    if (message !== undefined) for (const button of buttons) button.disabled = false;
    if (error !== null) {
      error.hidden = message === undefined;
      error.textContent = message ?? '';
    }
  }
}
