import { infoOf } from '../discovery.js';
import { ProviderError } from '../errors/provider-error.js';
import type { ServiceSettings } from '../service-options.js';
import { readsParts } from './input-parts.js';
import type { PreparedRun } from './prepare.js';
import { observedModel } from './run-observer.js';

/**
 * Whether a fallback model is tried after `error`: a provider's failure (`provider_error`,
 * `provider_rate_limited`, `provider_timeout`), never the caller's abort, invalid input or a lost lease.
 */
export function fallsBack(error: unknown): boolean {
  return ProviderError.isInstance(error) && error.code.startsWith('provider_');
}

/**
 * The run on the agent's `fallback_models[index]`, or `undefined` when there is none, or the server
 * no longer offers it, or it cannot read the input's images or files (each was checked when the
 * agent was saved; the server's models may have changed since).
 */
export function fallbackRun(
  settings: Pick<ServiceSettings, 'models'>,
  run: PreparedRun,
  index: number,
): PreparedRun | undefined {
  const name = run.config.fallback_models[index];
  const model = name === undefined ? undefined : settings.models.languageModel(name);
  if (name === undefined || !model) return undefined;
  const info = infoOf(settings.models, name);
  return readsParts(info, run.user.parts) ? { ...run, model, info, modelName: name } : undefined;
}

/** The runs a call is tried on, in order: the agent's model, then each usable fallback model. */
export function* runsToTry(settings: Pick<ServiceSettings, 'models'>, run: PreparedRun): Generator<PreparedRun> {
  yield run;
  const count = run.config.fallback_models.length;
  for (let i = 0; i < count; i++) {
    const next = fallbackRun(settings, run, i);
    if (next) yield next;
  }
}

/** What answered: the run on the model that answered, and its answer. */
export interface Answered<T> {
  run: PreparedRun;
  answer: T;
  /** How long the answering model's call took, in ms. */
  providerMs: number;
}

/**
 * Calls `attempt` on the run's model, then on each fallback model in order while the one before
 * failed with a provider error ({@link fallsBack}) before any tool ran: a tool's effects cannot be
 * taken back, so a call that ran one is never tried again on another model. Each failed attempt that is followed by another
 * is told to the observer as that model's failure; the last failure is thrown, after `onFailure` is
 * told the run it was of and how long its call took, for the caller to report.
 */
export async function withFallback<T>(
  settings: Pick<ServiceSettings, 'models' | 'observer'>,
  run: PreparedRun,
  attempt: (run: PreparedRun) => Promise<T>,
  onFailure: (run: PreparedRun, providerMs: number) => void = () => {},
): Promise<Answered<T>> {
  const runs = runsToTry(settings, run);
  let current = runs.next().value as PreparedRun;
  for (;;) {
    const started = performance.now();
    let toolRan = false;
    try {
      const answer = await attempt({ ...current, onToolRun: () => (toolRan = true) });
      return { run: current, answer, providerMs: performance.now() - started };
    } catch (error) {
      const providerMs = performance.now() - started;
      const next = fallsBack(error) && !toolRan ? runs.next() : undefined;
      if (!next || next.done) {
        onFailure(current, providerMs);
        throw error;
      }
      settings.observer.failed(observedModel(current), error, providerMs);
      current = next.value;
    }
  }
}
