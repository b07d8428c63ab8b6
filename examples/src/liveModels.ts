import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { Agent } from '@rxagents/core';
import type { ToolCallingModel } from '@rxagents/handoff';
import { aiSdkAgent, aiSdkToolCallingModel } from '@rxagents/ai-sdk';
import type { LanguageModel } from 'ai';

// Real models for the demo, opt-in: with OPENAI_BASE_URL set (and OPENAI_API_KEY, RXAGENTS_MODEL), the
// scenes that call these helpers talk to an OpenAI-compatible server; without it they stay offline.

const DEFAULT_MODEL = 'gpt-4o-mini';

/** True when `OPENAI_BASE_URL` is set, so the demo should use real models. */
export function liveModelsConfigured(): boolean {
  return (process.env.OPENAI_BASE_URL ?? '').trim() !== '';
}

/** The configured chat model, or `undefined` when live models are not configured. */
function liveLanguageModel(): LanguageModel | undefined {
  if (!liveModelsConfigured()) return undefined;
  const apiKey = process.env.OPENAI_API_KEY;
  const provider = createOpenAICompatible({
    name: 'openai-compatible',
    baseURL: (process.env.OPENAI_BASE_URL ?? '').trim(),
    ...(apiKey === undefined || apiKey === '' ? {} : { apiKey }),
    // OpenAI only reports token usage in a stream when asked to; other servers ignore the flag.
    includeUsage: true,
  });
  return provider((process.env.RXAGENTS_MODEL ?? '').trim() || DEFAULT_MODEL);
}

/**
 * The fallback agent's live twin: an `aiSdkAgent` with the same id, name, role and goal over the
 * configured model when `OPENAI_BASE_URL` is set, else the fallback itself.
 */
export function liveAgent(fallback: Agent, details: { system?: string } = {}): Agent {
  const model = liveLanguageModel();
  if (model === undefined) return fallback;
  const name = fallback.name ?? fallback.id;
  const system =
    details.system ??
    [`You are ${name}${fallback.role === undefined ? '' : `, ${fallback.role}`}.`, fallback.goal ?? '', 'Answer in at most three sentences.']
      .filter((line) => line !== '')
      .join(' ');
  return aiSdkAgent({
    id: fallback.id,
    ...(fallback.name === undefined ? {} : { name: fallback.name }),
    ...(fallback.role === undefined ? {} : { role: fallback.role }),
    ...(fallback.goal === undefined ? {} : { goal: fallback.goal }),
    model,
    system,
  });
}

/** A tool-calling model over the configured model for routing agents, or `undefined` when offline. */
export function liveToolCallingModel(): ToolCallingModel | undefined {
  const model = liveLanguageModel();
  return model === undefined ? undefined : aiSdkToolCallingModel({ model });
}
