/** What {@link redactSecrets} puts in place of a secret. */
export const REDACTED = '[redacted]';

/** What {@link redactSecrets} appends where it cut a text at its length limit. */
export const TRUNCATED = '[truncated]';

/** How many characters of a text {@link redactSecrets} reads unless told otherwise. */
export const MAX_REDACT_LENGTH = 8_192;

/** Known secrets shorter than this are ignored: they would redact ordinary words, and are no credentials. */
const MIN_SECRET_LENGTH = 4;

/** Options of {@link redactSecrets}. */
export interface RedactOptions {
  /**
   * Exact values to redact wherever they appear, also percent- and JSON-encoded: configured API keys,
   * provider keys, tokens. Values shorter than 4 characters are ignored.
   */
  secrets?: readonly string[];
  /** How many characters to read; the rest is dropped and marked {@link TRUNCATED} (default {@link MAX_REDACT_LENGTH}). */
  maxLength?: number;
}

// Every pattern below is either anchored on a literal or starts only where a run of token characters
// starts (the look-behind), and none has nested or overlapping repetition: each pass is linear.

/** The credential after an authorization scheme: `Bearer <token>`, `Basic <base64>`. */
const AUTH_SCHEME = /(?<![A-Za-z0-9_-])(bearer|basic)(\s{1,3})[A-Za-z0-9._~+/=-]+/gi;
/** A JSON Web Token: three base64url parts, the first a JSON object (`eyJ` is `{"` encoded). */
const JWT = /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g;
/** `user:password@` in a URL. */
const URL_CREDENTIALS = /:\/\/[^\s/@:]*:[^\s/@]*@/g;
/**
 * A value given to a name that says it is secret: `key=...`, `api_key=...`, `"client_secret": "..."`,
 * `x-api-key: ...`. A scheme whose credential is already redacted is left to read `Bearer [redacted]`.
 */
const ASSIGNED =
  /(?<![A-Za-z0-9_-])([A-Za-z0-9_-]*(?:key|token|secret|password|passwd|pwd|signature|sig|credentials?|auth|authorization))(["']?[=:]\s{0,3}["']?)(?!(?:bearer|basic)\s{1,3}\[redacted\])[^\s"'&,;<>(){}[\]]+/gi;
/** A whole run of token characters, for {@link looksSecret} to judge. */
const RUN = /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{8,}/g;
/** How well-known keys start: OpenAI, Anthropic, OpenRouter, Stripe, Groq, xAI, Google, agenthost, GitHub, GitLab, Slack, Hugging Face, Tavily, Replicate, Perplexity, AWS. */
const KEY_PREFIX =
  /^(?:sk-|sk_|rk_|gsk_|xai-|AIza|ah_|gh[pousr]_|github_pat_|glpat-|xox[abprs]-|hf_|tvly-|r8_|pplx-|AKIA|ASIA|eyJ)/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const mixed = (s: string) => /[A-Za-z]/.test(s) && /[0-9]/.test(s);

/** A key by its prefix, or a long mix of letters and digits (request ids, UUIDs, are not). */
function looksSecret(run: string): boolean {
  const prefix = KEY_PREFIX.exec(run);
  if (prefix && run.length - prefix[0].length >= 8) return true;
  if (run.length >= 32 && mixed(run) && !UUID.test(run)) return true;
  return run.split(/[-_]/).some((part) => part.length >= 20 && mixed(part));
}

function encoded(secret: string): string[] {
  try {
    return [encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)];
  } catch {
    // A lone surrogate cannot be percent-encoded; such text cannot appear in a URL either.
    return [JSON.stringify(secret).slice(1, -1)];
  }
}

/** The secrets and their encodings, longest first, so that a secret inside another goes with it. */
function knownSecrets(secrets: readonly string[]): string[] {
  const all = new Set<string>();
  for (const secret of secrets) {
    if (typeof secret !== 'string' || secret.length < MIN_SECRET_LENGTH) continue;
    for (const form of [secret, ...encoded(secret)]) all.add(form);
  }
  return [...all].sort((a, b) => b.length - a.length);
}

const isSpace = (c: string | undefined) => c === undefined || /\s/.test(c);

/**
 * Where to cut a text longer than `max`: not inside a word (a key's tell may lie past the cut), nor
 * inside a known secret (which may hold spaces). Moving left can land in another one, hence the loop.
 */
function cutPoint(text: string, max: number, secrets: readonly string[]): number {
  let at = max;
  for (;;) {
    while (at > 0 && !isSpace(text[at - 1]) && !isSpace(text[at])) at--;
    let moved = at;
    for (const secret of secrets) {
      const from = Math.max(0, moved - secret.length + 1);
      const found = text.slice(from, moved + secret.length - 1).indexOf(secret);
      if (found !== -1 && from + found < moved) moved = from + found;
    }
    if (moved === at) return at;
    at = moved;
  }
}

/**
 * Replaces secret-looking values in a text meant for a log: the `secrets` given (exactly, and percent-
 * or JSON-encoded), bearer and basic credentials, JWTs, well-known key formats (`sk-...`, `sk-ant-...`,
 * `sk-or-...`, `gsk_...`, `AIza...`, `ah_...`, `tvly-...`, `ghp_...`, ...), long runs mixing letters and
 * digits (20 or more, or 32 or more with `-` and `_`), `key=`/`api_key=`/`token=`/`password=`-style
 * values and URL credentials. Each becomes {@link REDACTED}.
 *
 * Reads at most `maxLength` characters, cut before any word or known secret that crosses the limit, and
 * marks the cut with {@link TRUNCATED}; the work is linear in what it reads. It errs towards redacting:
 * a long hexadecimal id is redacted too.
 *
 * @example
 * redactSecrets('Incorrect API key provided: sk-live-abc123def456ghi789') // 'Incorrect API key provided: [redacted]'
 * @throws RangeError when `maxLength` is not a positive integer.
 */
export function redactSecrets(text: string, options: RedactOptions = {}): string {
  const max = options.maxLength ?? MAX_REDACT_LENGTH;
  if (!Number.isSafeInteger(max) || max < 1)
    throw new RangeError('redactSecrets: maxLength must be a positive integer');
  const secrets = knownSecrets(options.secrets ?? []);
  const cut = text.length > max;
  let out = cut ? text.slice(0, cutPoint(text, max, secrets)) : text;
  for (const secret of secrets) out = out.split(secret).join(REDACTED);
  out = out
    .replace(AUTH_SCHEME, `$1$2${REDACTED}`)
    .replace(JWT, REDACTED)
    .replace(URL_CREDENTIALS, `://${REDACTED}@`)
    .replace(ASSIGNED, `$1$2${REDACTED}`)
    .replace(RUN, (run) => (looksSecret(run) ? REDACTED : run));
  return cut ? out + TRUNCATED : out;
}
