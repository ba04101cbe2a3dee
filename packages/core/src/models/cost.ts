import type { ModelInfo } from '../ports/model-provider.js';

/**
 * The estimated cost of a run in US dollars, from the model's list price: prompt and completion tokens
 * at the input and output price, nothing for discounts, cached input, batches or prices by prompt
 * length. `undefined` when the price is not known.
 */
export function estimatedCost(
  info: Pick<ModelInfo, 'price'> | undefined,
  tokens: { prompt: number; completion: number },
): number | undefined {
  if (!info?.price) return undefined;
  const dollars =
    (tokens.prompt * info.price.input_per_mtok + tokens.completion * info.price.output_per_mtok) / 1_000_000;
  // Rounded to billionths of a dollar, which drops floating-point noise and keeps a small run's cost.
  return Math.round(dollars * 1e9) / 1e9;
}
