import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { MAX_REDACT_LENGTH, REDACTED, redactSecrets, TRUNCATED } from './redact-secrets.js';

describe('redactSecrets: examples', () => {
  test.each([
    ['Incorrect API key provided: sk-live-abcdef0123456789abcdef', 'Incorrect API key provided: [redacted]'],
    [
      'anthropic sk-ant-api03-AbCdEfGh_ijkl-0123 and openrouter sk-or-v1-0123456789abcdef',
      'anthropic [redacted] and openrouter [redacted]',
    ],
    ['groq gsk_0123456789abcdefABCDEF, google AIzaSyA-abcdefgh_12345678', 'groq [redacted], google [redacted]'],
    ['issued key ah_AbCdEf0123456789_-xyzw was revoked', 'issued key [redacted] was revoked'],
    ['tavily tvly-dev-0123456789abcdef, github ghp_0123456789abcdefABCDEF', 'tavily [redacted], github [redacted]'],
    ['Authorization: Bearer abc.DEF-ghi_jkl~mno+pq/rs==', 'Authorization: Bearer [redacted]'],
    ['basic dXNlcjpwYXNzd29yZA==', 'basic [redacted]'],
    ['jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlLXNpZw rejected', 'jwt [redacted] rejected'],
    [
      'GET https://generativelanguage.googleapis.com/v1beta/models?key=AIzaSyA0123456789&alt=sse failed',
      'GET https://generativelanguage.googleapis.com/v1beta/models?key=[redacted]&alt=sse failed',
    ],
    ['/v1/search?api_key=abc&access_token=xyz&page=2', '/v1/search?api_key=[redacted]&access_token=[redacted]&page=2'],
    ['{"api_key": "plain", "client_secret":"s3"}', '{"api_key": "[redacted]", "client_secret":"[redacted]"}'],
    ['x-api-key: anything, password=hunter2', 'x-api-key: [redacted], password=[redacted]'],
    [
      'connect to postgres://agenthost:s3cr3t-pw@db.internal:5432/app refused',
      'connect to postgres://[redacted]@db.internal:5432/app refused',
    ],
    ['redis://:hunter2pw@cache:6379 is down', 'redis://[redacted]@cache:6379 is down'],
    ['token 9f8e7d6c5b4a39281706f5e4d3c2b1a0 and AKIA0123456789ABCDEF', 'token [redacted] and [redacted]'],
  ])('%s', (text, expected) => {
    expect(redactSecrets(text)).toBe(expected);
  });

  test.each([
    'The model provider failed to answer',
    'connect ECONNREFUSED 127.0.0.1:6379',
    'request 123e4567-e89b-12d3-a456-426614174000 failed',
    'max_tokens: 4096 is more than the model allows',
    'at AgentService.run (/srv/app/packages/core/src/agent-service.ts:365:15)',
    'UND_ERR_CONNECT_TIMEOUT: other side closed; status 503 Service Unavailable',
    'Cannot connect to API: fetch failed',
  ])('keeps ordinary text: %s', (text) => {
    expect(redactSecrets(text)).toBe(text);
  });
});

describe('redactSecrets: known secrets and limits', () => {
  test('redacts known secrets, as given and percent- or JSON-encoded, however they look', () => {
    const secrets = ['key-runs-0123456789abcdef', 'p@ss word!x', 'quo"te\\d'];
    const text = 'keys key-runs-0123456789abcdef, p@ss word!x, p%40ss%20word!x and {"k":"quo\\"te\\\\d"}';
    expect(redactSecrets(text, { secrets })).toBe('keys [redacted], [redacted], [redacted] and {"k":"[redacted]"}');
  });

  test('ignores known secrets shorter than 4 characters, which would redact ordinary words', () => {
    expect(redactSecrets('a cab for abc', { secrets: ['abc', '', 'a'] })).toBe('a cab for abc');
  });

  test('reads at most maxLength characters; a word cut by the limit is dropped whole', () => {
    const text = `${'word '.repeat(10)}sk-live-abcdef0123456789abcdef and more`;
    expect(redactSecrets(text, { maxLength: 60 })).toBe(`${'word '.repeat(10)}${TRUNCATED}`);
    expect(redactSecrets('x'.repeat(MAX_REDACT_LENGTH * 3))).toBe(TRUNCATED);
    expect(redactSecrets('short', { maxLength: 5 })).toBe('short');
  });

  test('a known secret across the limit leaves no prefix behind, even with spaces in it', () => {
    const secret = 'my long secret value';
    const text = `${'a '.repeat(20)}${secret} tail`;
    const out = redactSecrets(text, { secrets: [secret], maxLength: 45 });
    expect(out).toBe(`${'a '.repeat(20)}${TRUNCATED}`);
  });

  test('takes linear time on inputs built to make regular expressions backtrack', () => {
    const hostile = [
      'a-'.repeat(500_000),
      'key'.repeat(300_000),
      `key${' '.repeat(900_000)}`,
      'sk-'.repeat(300_000),
      `${'eyJ'}${'a'.repeat(400_000)}.`.repeat(2),
      '://a:'.repeat(200_000),
      'Bearer '.repeat(100_000),
      'a1'.repeat(500_000),
    ];
    for (const text of hostile) {
      const started = performance.now();
      redactSecrets(text, { maxLength: 1_000_000 });
      // Generous for a loaded machine; a quadratic pass over a megabyte takes minutes.
      expect(performance.now() - started).toBeLessThan(2_000);
    }
  });
});

const TOKEN = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'.split('');
const alnum = (min: number, max: number) =>
  fc.array(fc.constantFrom(...TOKEN), { minLength: min, maxLength: max }).map((cs) => cs.join(''));
const base64url = (min: number, max: number) =>
  fc.array(fc.constantFrom(...TOKEN, '-', '_'), { minLength: min, maxLength: max }).map((cs) => cs.join(''));
/** Text around a secret: anything, ending (or starting) with a separator so that the secret stands alone. */
const before = fc.string({ maxLength: 300 }).map((s) => `${s} `);
const after = fc.string({ maxLength: 300 }).map((s) => ` ${s}`);
const MARKERS = `${REDACTED}${TRUNCATED}`;

describe('redactSecrets: properties', () => {
  test('a known secret never survives, wherever it is and however long the text', () => {
    const secret = fc
      .string({ minLength: 4, maxLength: 40, unit: 'grapheme' })
      .filter((s) => !/[[\]]/.test(s) && !MARKERS.includes(s));
    fc.assert(
      fc.property(
        fc.string({ maxLength: 2_000, unit: 'binary' }),
        secret,
        fc.string({ maxLength: 2_000, unit: 'binary' }),
        fc.integer({ min: 10, max: 3_000 }),
        (a, s, b, maxLength) => {
          expect(redactSecrets(a + s + b, { secrets: [s], maxLength })).not.toContain(s);
        },
      ),
    );
  });

  test('provider-style keys never survive', () => {
    const prefix = fc.constantFrom(
      'sk-',
      'sk-proj-',
      'sk-ant-api03-',
      'sk-or-v1-',
      'gsk_',
      'AIza',
      'ah_',
      'tvly-',
      'ghp_',
      'hf_',
      'xai-',
    );
    fc.assert(
      fc.property(before, prefix, base64url(8, 80), after, (a, p, rest, b) => {
        expect(redactSecrets(a + p + rest + b)).not.toContain(p + rest);
      }),
    );
  });

  test('bearer tokens, JWTs and key=value parameters never survive', () => {
    const bearer = fc.tuple(
      fc.constantFrom('Bearer ', 'bearer  ', 'Basic '),
      fc.stringMatching(/^[A-Za-z0-9._~+/-]{8,80}={0,2}$/),
    );
    const jwt = fc.tuple(base64url(4, 60), base64url(4, 200), base64url(0, 90)).map(([h, p, s]) => `eyJ${h}.${p}.${s}`);
    // A value of "bearer" or "basic" followed by a space reads as an authorization scheme instead.
    const value = fc.stringMatching(/^[^\s"'&,;<>(){}[\]]{1,60}$/).filter((v) => !/^(bearer|basic)$/i.test(v));
    const param = fc.tuple(
      fc.constantFrom('key=', 'api_key=', 'token=', 'x-goog-api-key=', 'access_token=', 'password='),
      value,
    );
    fc.assert(
      fc.property(before, bearer, jwt, param, after, (a, [scheme, token], j, [name, value], b) => {
        const out = redactSecrets(`${a}${scheme}${token} ${j} ?${name}${value}${b}`);
        expect(out).toContain(`${scheme}${REDACTED} ${REDACTED} ?${name}${REDACTED}`);
        expect(out).not.toContain(token);
        expect(out).not.toContain(j);
      }),
    );
  });
});

describe('redactSecrets: properties of what is kept', () => {
  test('long runs of letters and digits never survive', () => {
    const run = alnum(20, 80).filter((s) => /[A-Za-z]/.test(s) && /\d/.test(s));
    fc.assert(
      fc.property(before, run, after, (a, r, b) => {
        expect(redactSecrets(a + r + b)).not.toContain(r);
      }),
    );
  });

  test('prose of words, numbers and punctuation is kept as it is', () => {
    const lower = fc
      .array(fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'.split('')), { minLength: 1, maxLength: 12 })
      .map((cs) => cs.join(''));
    const word = fc.oneof(
      lower,
      fc.integer({ min: 0, max: 99_999 }).map(String),
      fc.constantFrom('-', ':', '=', '(', ')', '.', ',', 'the key', 'token'),
    );
    fc.assert(
      fc.property(fc.array(word, { maxLength: 60 }), (words) => {
        const text = words.join(' ');
        expect(redactSecrets(text)).toBe(text);
      }),
    );
  });

  test('redacting twice changes nothing more; output stays bounded', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 3_000, unit: 'binary' }),
        fc.array(
          fc.string({ minLength: 4, maxLength: 12 }).filter((s) => !/[[\]]/.test(s)),
          { maxLength: 3 },
        ),
        fc.integer({ min: 1, max: 4_000 }),
        (text, secrets, maxLength) => {
          const once = redactSecrets(text, { secrets, maxLength });
          expect(once.length).toBeLessThanOrEqual(3 * maxLength + TRUNCATED.length);
          if (once.length <= maxLength) expect(redactSecrets(once, { secrets, maxLength })).toBe(once);
        },
      ),
    );
  });
});
