import { AgentHostError } from '../errors/agenthost-error.js';
import type { ModelInfo, ModelProvider } from '../ports/model-provider.js';
import type { TokenUsage } from '../records.js';

/** What a finished run reports to an observer (for metrics): never its input or output. */
export interface RunObservation {
  model: string;
  /** `ok`, or the error code the run failed with (`provider_error`, `conflict`, ...). */
  outcome: string;
  tokens?: { prompt: number; completion: number };
  /** How long the model call took, in ms (absent when the run failed before calling the model). */
  providerMs?: number;
}

/** The model of a run as the observer is told it: its info, and the name the agent gave. */
export interface ObservedModel {
  info: ModelInfo;
  configured: string;
}

/** The model of a prepared run (the agent's, or the fallback model it is tried on) as its observer is told it. */
export function observedModel(run: { info: ModelInfo; modelName: string }): ObservedModel {
  return { info: run.info, configured: run.modelName };
}

/** Tells the service's observer about runs that reached their model call. */
export interface RunObserver {
  succeeded(model: ObservedModel, tokens: TokenUsage, providerMs: number): void;
  failed(model: ObservedModel, error: unknown, providerMs: number): void;
}

/** An observer over `onRunFinished`, whose failures never fail a run. */
export function runObserver(models: ModelProvider, onRunFinished?: (observation: RunObservation) => void): RunObserver {
  let listed: Set<string> | undefined;
  /**
   * The model as metrics name it: its full name when the server lists it, else `<provider>/other`,
   * since an endpoint that takes any model id would give clients labels without bound.
   */
  const metricModel = ({ info, configured }: ObservedModel): string => {
    listed ??= new Set(models.listModels());
    return listed.has(info.name) || listed.has(configured) ? info.name : `${info.provider}/other`;
  };
  const observe = (observation: RunObservation) => {
    try {
      onRunFinished?.(observation);
    } catch {
      // An observer's failure must not fail a run.
    }
  };
  return {
    succeeded: (model, tokens, providerMs) => observe({ model: metricModel(model), outcome: 'ok', tokens, providerMs }),
    failed: (model, error, providerMs) =>
      observe({
        model: metricModel(model),
        outcome: AgentHostError.isInstance(error) ? error.code : 'aborted',
        providerMs,
      }),
  };
}
