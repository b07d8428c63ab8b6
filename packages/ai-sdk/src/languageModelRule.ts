import type { LanguageModel } from 'ai';
import { z } from 'zod';

/** @internal The zod rule for an AI SDK language model: a provider's model object or a model id string. */
export const languageModelRule = (): z.ZodType<LanguageModel> =>
  z.custom<LanguageModel>(
    (value) =>
      (typeof value === 'string' && value.length > 0) ||
      (typeof value === 'object' && value !== null && typeof (value as { doStream?: unknown }).doStream === 'function'),
    { error: 'must be an AI SDK language model (a provider model such as openai("gpt-4o-mini"), or a model id string)' },
  );
