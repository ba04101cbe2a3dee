import type { FinishReason, LanguageModelUsage } from 'ai';

/**
 * Why a streamed model step cannot be trusted, or `undefined` when it can. A step is trusted when its
 * stream ended with a finish the provider reported. A stream that just stopped (an HTML page, an
 * empty body, JSON that is not a stream, an answer cut off mid-way) ends with the AI SDK's default,
 * `interrupted` (or, from providers that cannot tell, `other` with no raw reason and no usage);
 * `error` means the provider broke the stream or said the answer failed. Either is a provider failure, as the same answer to a plain call
 * would be. (Usage tells a real finish from a stopped stream where the raw reason cannot: models of the
 * older spec report no raw reason at all.)
 */
export function unfinishedStep(step: {
  finishReason: FinishReason;
  rawFinishReason: string | undefined;
  usage: LanguageModelUsage;
}): Error | undefined {
  if (step.finishReason === 'error')
    return new Error(`The provider's stream ended in an error (raw finish reason: ${step.rawFinishReason ?? 'none'})`);
  if (step.finishReason === 'interrupted')
    return new Error("The provider's stream stopped before the answer was finished");
  const reported =
    step.rawFinishReason !== undefined || step.usage.inputTokens !== undefined || step.usage.outputTokens !== undefined;
  if (step.finishReason === 'other' && !reported)
    return new Error(
      "The provider's stream ended without reporting why it stopped; it was not a complete answer stream",
    );
  return undefined;
}
