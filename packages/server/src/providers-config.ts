import { PROVIDER_NAME } from '@agenthost/core';
import { z } from 'zod';
import { commaList, httpUrl, jsonText, optional } from './env-schema.js';

/** How the server reaches one model provider. */
export interface ProviderEntry {
  apiKey?: string;
  baseURL?: string;
  /** The model ids to offer instead of the catalog's. */
  models?: string[];
  /** OpenAI only: its Responses API or Chat Completions. */
  api?: 'responses' | 'chat';
  /**
   * What the provider's models read in a run's input: `text`, and `image` and `file` when they read
   * them (default: all three for OpenAI, Anthropic and Google; text only for an OpenAI-compatible endpoint).
   */
  input?: ('text' | 'image' | 'file')[];
}

/** The providers the server offers models of, besides the offline echo model. */
export interface ProvidersConfig {
  openai?: ProviderEntry;
  anthropic?: ProviderEntry;
  google?: ProviderEntry;
  /** OpenAI-compatible endpoints by name (`ollama`, `openrouter`...). */
  compatible: Record<string, ProviderEntry & { baseURL: string }>;
}

const BUILT_IN = ['openai', 'anthropic', 'google'] as const;
type BuiltIn = (typeof BUILT_IN)[number];
const isBuiltIn = (name: string): name is BuiltIn => (BUILT_IN as readonly string[]).includes(name);

const entry = z.strictObject({
  baseURL: httpUrl.optional(),
  apiKey: z.string().min(1).optional(),
  models: z.array(z.string().min(1).max(200)).min(1, 'list at least one model, or leave models out').optional(),
  api: z.enum(['responses', 'chat'], { error: 'must be "responses" or "chat"' }).optional(),
  input: z
    .array(z.enum(['text', 'image', 'file'], { error: 'must be "text", "image" or "file"' }))
    .refine((kinds) => kinds.includes('text'), 'must include "text"')
    .optional(),
});

const providersJson = jsonText('{"ollama": {"baseURL": "http://127.0.0.1:11434/v1"}}').pipe(
  z.record(z.string(), entry).superRefine((providers, ctx) => {
    for (const [name, settings] of Object.entries(providers)) {
      if (!PROVIDER_NAME.test(name) || name === 'agenthost') {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: 'provider names are 1-32 of a-z, 0-9, "-", "_" (and not "agenthost")',
        });
      } else if (!isBuiltIn(name) && !settings.baseURL) {
        ctx.addIssue({
          code: 'custom',
          path: [name, 'baseURL'],
          message: 'an OpenAI-compatible endpoint needs its baseURL',
        });
      } else if (settings.api && name !== 'openai') {
        ctx.addIssue({ code: 'custom', path: [name, 'api'], message: 'api applies to openai only' });
      }
    }
  }),
);

const envSchema = z.object({
  OPENAI_API_KEY: optional(z.string()),
  OPENAI_BASE_URL: optional(httpUrl),
  OPENAI_API: optional(z.enum(['responses', 'chat'], { error: 'must be "responses" or "chat"' })),
  OPENAI_MODELS: commaList,
  ANTHROPIC_API_KEY: optional(z.string()),
  ANTHROPIC_BASE_URL: optional(httpUrl),
  ANTHROPIC_MODELS: commaList,
  GOOGLE_GENERATIVE_AI_API_KEY: optional(z.string()),
  GOOGLE_GENERATIVE_AI_BASE_URL: optional(httpUrl),
  GOOGLE_MODELS: commaList,
  AGENTHOST_PROVIDERS: optional(providersJson),
});

/** The names of the environment variables that configure model providers. */
export const PROVIDER_VARIABLES: readonly string[] = Object.keys(envSchema.shape);

/** A provider from its usual variables, when its key (or, for OpenAI, its base URL) is set. */
function fromEnv(
  apiKey: string | undefined,
  baseURL: string | undefined,
  models: string[] | undefined,
): ProviderEntry | undefined {
  if (!apiKey && !baseURL) return undefined;
  return { ...(apiKey && { apiKey }), ...(baseURL && { baseURL }), ...(models?.length && { models }) };
}

/** Anthropic and Google refuse every call without a key: a base URL alone is a mistake to name now. */
function keyless(providers: ProvidersConfig): string[] {
  const problems: string[] = [];
  if (providers.anthropic && !providers.anthropic.apiKey)
    problems.push('ANTHROPIC_BASE_URL: needs ANTHROPIC_API_KEY too (any value, when a gateway holds the key)');
  if (providers.google && !providers.google.apiKey)
    problems.push(
      'GOOGLE_GENERATIVE_AI_BASE_URL: needs GOOGLE_GENERATIVE_AI_API_KEY too (any value, when a gateway holds the key)',
    );
  return problems;
}

/**
 * Reads the model providers from the environment: each built-in provider switched on by its usual
 * variables (`OPENAI_API_KEY`/`OPENAI_BASE_URL`, `ANTHROPIC_API_KEY`/`ANTHROPIC_BASE_URL`,
 * `GOOGLE_GENERATIVE_AI_API_KEY`/`GOOGLE_GENERATIVE_AI_BASE_URL`, and `*_MODELS` to override the
 * offered list), and any number of OpenAI-compatible endpoints from `AGENTHOST_PROVIDERS` (JSON), which
 * can also set a built-in provider's fields.
 * @returns the providers, or one problem line per bad variable.
 */
export function readProviders(
  env: Record<string, string | undefined>,
): { providers: ProvidersConfig } | { problems: string[] } {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success)
    return { problems: parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`) };
  const e = parsed.data;
  const providers: ProvidersConfig = { compatible: {} };
  const openai = fromEnv(e.OPENAI_API_KEY, e.OPENAI_BASE_URL, e.OPENAI_MODELS);
  if (openai) providers.openai = { ...openai, ...(e.OPENAI_API && { api: e.OPENAI_API }) };
  const anthropic = fromEnv(e.ANTHROPIC_API_KEY, e.ANTHROPIC_BASE_URL, e.ANTHROPIC_MODELS);
  if (anthropic) providers.anthropic = anthropic;
  const google = fromEnv(e.GOOGLE_GENERATIVE_AI_API_KEY, e.GOOGLE_GENERATIVE_AI_BASE_URL, e.GOOGLE_MODELS);
  if (google) providers.google = google;
  for (const [name, settings] of Object.entries(e.AGENTHOST_PROVIDERS ?? {})) {
    if (isBuiltIn(name)) providers[name] = { ...providers[name], ...settings };
    else providers.compatible[name] = settings as ProviderEntry & { baseURL: string };
  }
  const problems = keyless(providers);
  return problems.length ? { problems } : { providers };
}
