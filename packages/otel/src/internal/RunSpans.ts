import { type Attributes, type Context, type Span, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import { MAX_TEXT_FIELD_LENGTH, type RunEvent, type RunEventOf, type SerializedError } from '@rxagents/core';
import type { RunTraceContexts } from '../RunTraceContexts';
import * as genAi from './genAi';
import { hrTimeOf } from './hrTimeOf';
import { operationSpan } from './operationSpan';

/** How the operator was set up, as {@link RunSpans} needs it. */
export interface RunSpansSetup {
  readonly tracer: Tracer;
  readonly captureContent: boolean;
  readonly clock: 'events' | 'tracer';
  readonly parent: Context;
  readonly contexts: RunTraceContexts | undefined;
}

/** A node of the run whose span is open: a run, an agent call or an interrupt. */
interface OpenNode {
  readonly span: Span;
  readonly runId: string;
  readonly callId: string;
  inputTokens: number | undefined;
  outputTokens: number | undefined;
  /** The call's text so far, when content is captured. */
  text: string[] | undefined;
  textLength: number;
}

/** Why the spans still open are ended by the operator rather than by the events. */
export type Cut = { readonly kind: 'complete' } | { readonly kind: 'unsubscribe' } | { readonly kind: 'error'; readonly error: unknown };

/**
 * The spans of the runs of one stream of events: a span per node (run, agent call, interrupt) from its start
 * event to its end event, span events for what happens inside a node, and the end of every span still open
 * when the stream stops.
 */
export class RunSpans {
  /** Open nodes by run id, then node id: a stream may carry the nodes of several runs. */
  private readonly nodes = new Map<string, Map<string, OpenNode>>();
  /** The `at` of the latest event: when a span still open at the stream's end ends on the events' clock. */
  private lastAt: number | undefined;

  constructor(private readonly setup: RunSpansSetup) {}

  apply(event: RunEvent): void {
    this.lastAt = event.at;
    switch (event.type) {
      case 'run-start':
        return this.start(event, `invoke_workflow ${event.name}`, {
          [genAi.GEN_AI_OPERATION_NAME]: 'invoke_workflow',
          [genAi.GEN_AI_WORKFLOW_NAME]: event.name,
        }, event.inputOmitted === true ? undefined : event.input);
      case 'call-start':
        return this.start(event, `invoke_agent ${event.agentId}`, {
          [genAi.GEN_AI_OPERATION_NAME]: 'invoke_agent',
          [genAi.GEN_AI_AGENT_ID]: event.agentId,
          [genAi.GEN_AI_AGENT_NAME]: event.agentId,
        }, event.inputOmitted === true ? undefined : event.input);
      case 'interrupt':
        return this.startInterrupt(event);
      case 'text-delta':
        return this.addText(event.runId, event.callId, event.delta);
      case 'run-end': {
        const node = this.take(event.runId, event.callId);
        if (node === undefined) return;
        if (event.success) this.output(node, event.output);
        else if (event.error !== undefined) this.fail(node.span, event.error, event.at);
        return this.end(node, event.at);
      }
      case 'call-end': {
        const node = this.take(event.runId, event.callId);
        if (node === undefined) return;
        this.output(node, this.textOf(node));
        return this.end(node, event.at);
      }
      case 'call-error':
      case 'interrupt-end':
        return this.endFailable(event);
      case 'usage':
        return this.usage(event);
      case 'metrics':
        return;
      case 'custom': {
        // A model call or a tool execution an agent reported (aiSdkAgent does): a span of its own under the call.
        const node = this.nodes.get(event.runId)?.get(event.callId);
        if (node !== undefined && operationSpan(this.setup.tracer, trace.setSpan(this.setup.parent, node.span), event, this.setup.clock, this.setup.captureContent)) return;
        return this.pointEvent(event);
      }
      default:
        return this.pointEvent(event);
    }
  }

  /** Ends every span still open, innermost first, as the stream stopped (see {@link Cut}). */
  endAll(cut: Cut): void {
    const open: OpenNode[] = [];
    for (const nodes of this.nodes.values()) for (const node of nodes.values()) open.push(node);
    this.nodes.clear();
    const at = this.lastAt ?? 0;
    for (let i = open.length - 1; i >= 0; i -= 1) {
      const node = open[i]!;
      if (cut.kind === 'unsubscribe') node.span.setAttribute('rxagents.cancelled', true);
      else if (cut.kind === 'complete') node.span.setAttribute('rxagents.unfinished', true);
      else {
        const error = cut.error instanceof Error ? { name: cut.error.name, message: cut.error.message } : { name: 'Error', message: String(cut.error) };
        this.fail(node.span, error, at);
      }
      this.end(node, at);
    }
  }

  private time(at: number): ReturnType<typeof hrTimeOf> | undefined {
    return this.setup.clock === 'events' ? hrTimeOf(at) : undefined;
  }

  private start(event: RunEvent, name: string, attributes: Attributes, input: string | undefined): void {
    const parent = event.parentCallId === null ? undefined : this.nodes.get(event.runId)?.get(event.parentCallId);
    const context = parent === undefined ? this.setup.parent : trace.setSpan(this.setup.parent, parent.span);
    attributes[genAi.GEN_AI_CONVERSATION_ID] = event.runId;
    attributes['rxagents.node.id'] = event.callId;
    if (this.setup.captureContent && input !== undefined) attributes[genAi.GEN_AI_INPUT_MESSAGES] = genAi.inputMessages(input);
    const span = this.setup.tracer.startSpan(name, { attributes, startTime: this.time(event.at) }, context);
    let nodes = this.nodes.get(event.runId);
    if (nodes === undefined) this.nodes.set(event.runId, (nodes = new Map()));
    nodes.set(event.callId, { span, runId: event.runId, callId: event.callId, inputTokens: undefined, outputTokens: undefined, text: this.setup.captureContent ? [] : undefined, textLength: 0 });
    this.setup.contexts?.opened(event.runId, event.callId, span.spanContext());
  }

  private startInterrupt(event: RunEventOf<'interrupt'>): void {
    const attributes: Attributes = { 'rxagents.interrupt.id': event.interruptId, 'rxagents.interrupt.kind': event.kind };
    if (event.action !== undefined) {
      attributes['rxagents.interrupt.action'] = event.action;
      attributes[genAi.GEN_AI_TOOL_NAME] = event.action;
    }
    if (this.setup.captureContent) {
      attributes['rxagents.interrupt.question'] = event.question;
      if (event.args !== undefined) attributes['rxagents.interrupt.args'] = JSON.stringify(event.args);
    }
    this.start(event, event.action === undefined ? `interrupt ${event.kind}` : `interrupt ${event.kind} ${event.action}`, attributes, undefined);
  }

  private endFailable(event: RunEventOf<'call-error'> | RunEventOf<'interrupt-end'>): void {
    const node = this.take(event.runId, event.callId);
    if (node === undefined) return;
    if (event.type === 'interrupt-end') {
      node.span.setAttribute('rxagents.interrupt.answered', event.answered);
      const approved = approvalOf(event.answer);
      if (approved !== undefined) node.span.setAttribute('rxagents.interrupt.approved', approved);
      if (this.setup.captureContent && event.answer !== undefined) node.span.setAttribute('rxagents.interrupt.answer', JSON.stringify(event.answer));
    }
    if (event.error !== undefined) this.fail(node.span, event.error, event.at);
    this.end(node, event.at);
  }

  /** A failure: status ERROR and `error.type`; a cancellation (`AbortError`) is no error, it says `rxagents.cancelled`. */
  private fail(span: Span, error: Pick<SerializedError, 'name' | 'message' | 'code'>, at: number): void {
    if (error.name === 'AbortError') {
      span.setAttribute('rxagents.cancelled', true);
      return;
    }
    span.setAttribute(genAi.ERROR_TYPE, error.name);
    if (error.code !== undefined) span.setAttribute('rxagents.error.code', error.code);
    span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
    span.recordException({ name: error.name, message: error.message }, this.time(at));
  }

  private usage(event: RunEventOf<'usage'>): void {
    const node = this.nodes.get(event.runId)?.get(event.callId);
    if (node === undefined) return;
    if (event.inputTokens !== undefined) node.span.setAttribute(genAi.GEN_AI_USAGE_INPUT_TOKENS, (node.inputTokens = (node.inputTokens ?? 0) + event.inputTokens));
    if (event.outputTokens !== undefined) node.span.setAttribute(genAi.GEN_AI_USAGE_OUTPUT_TOKENS, (node.outputTokens = (node.outputTokens ?? 0) + event.outputTokens));
  }

  private addText(runId: string, callId: string, delta: string): void {
    if (!this.setup.captureContent) return;
    const node = this.nodes.get(runId)?.get(callId);
    if (node?.text === undefined || node.textLength >= MAX_TEXT_FIELD_LENGTH) return;
    const piece = delta.slice(0, MAX_TEXT_FIELD_LENGTH - node.textLength);
    node.text.push(piece);
    node.textLength += piece.length;
  }

  private textOf(node: OpenNode): string | undefined {
    return node.text === undefined ? undefined : node.text.join('');
  }

  private output(node: OpenNode, text: string | undefined): void {
    if (this.setup.captureContent && text !== undefined) node.span.setAttribute(genAi.GEN_AI_OUTPUT_MESSAGES, genAi.outputMessages(text, 'stop'));
  }

  private pointEvent(event: Exclude<RunEvent, { type: 'run-start' | 'run-end' | 'call-start' | 'call-end' | 'call-error' | 'text-delta' | 'usage' | 'metrics' | 'interrupt' | 'interrupt-end' }>): void {
    const node = this.nodes.get(event.runId)?.get(event.callId);
    if (node === undefined) return;
    node.span.addEvent(event.type, this.pointAttributes(event), this.time(event.at));
  }

  private pointAttributes(event: Parameters<RunSpans['pointEvent']>[0]): Attributes {
    const content = this.setup.captureContent;
    switch (event.type) {
      case 'handoff':
        return { 'rxagents.handoff.from': event.from, 'rxagents.handoff.to': event.to, 'rxagents.handoff.task_id': event.taskId };
      case 'choreography-event':
        return event.source === null ? { 'rxagents.choreography.event': event.name } : { 'rxagents.choreography.event': event.name, 'rxagents.choreography.source': event.source };
      case 'step': {
        const attributes: Attributes = {
          'rxagents.step.interaction_id': event.interactionId,
          'rxagents.step.agent_id': event.agentId,
          'rxagents.step.success': event.success,
          'rxagents.step.duration_ms': event.durationMs,
        };
        if (event.error !== undefined) attributes[genAi.ERROR_TYPE] = event.error.name;
        return attributes;
      }
      case 'message':
        return content && event.contentOmitted !== true ? { 'rxagents.message.speaker': event.speaker, 'rxagents.message.content': event.content } : { 'rxagents.message.speaker': event.speaker };
      case 'round-end':
        return { 'rxagents.round': event.round };
      case 'termination':
        return { 'rxagents.termination.decision': event.decision, 'rxagents.termination.reason': event.reason };
      case 'custom':
        return content ? { 'rxagents.custom.name': event.name, 'rxagents.custom.data': JSON.stringify(event.data) } : { 'rxagents.custom.name': event.name };
    }
  }

  private take(runId: string, callId: string): OpenNode | undefined {
    const nodes = this.nodes.get(runId);
    const node = nodes?.get(callId);
    if (node === undefined) return undefined;
    nodes!.delete(callId);
    if (nodes!.size === 0) this.nodes.delete(runId);
    return node;
  }

  private end(node: OpenNode, at: number): void {
    this.setup.contexts?.closed(node.runId, node.callId);
    node.span.end(this.time(at));
  }
}

/** `approved` of an approval's answer (`{ approved: boolean, ... }`), when it is one. */
function approvalOf(answer: unknown): boolean | undefined {
  if (typeof answer !== 'object' || answer === null || !('approved' in answer)) return undefined;
  const approved: unknown = (answer as { approved: unknown }).approved;
  return typeof approved === 'boolean' ? approved : undefined;
}
