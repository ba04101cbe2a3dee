import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, test } from 'vitest';
import { calculatorTool } from './calculator.js';

type GenerateResult = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>;

const usage: GenerateResult['usage'] = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 2, text: 2, reasoning: 0 },
};

function toolCall(expression: string): GenerateResult {
  return {
    content: [
      { type: 'tool-call', toolCallId: 'call-1', toolName: 'calculator', input: JSON.stringify({ expression }) },
    ],
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage,
    warnings: [],
  };
}

function text(value: string): GenerateResult {
  return {
    content: [{ type: 'text', text: value }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage,
    warnings: [],
  };
}

async function calculate(expression: string): Promise<unknown> {
  return calculatorTool().execute!({ expression }, { toolCallId: 'call-1', messages: [], context: {} });
}

async function failure(expression: string): Promise<string> {
  const outcome = await calculate(expression).then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome))
    throw new Error(`expected "${expression.slice(0, 40)}" to fail, got ${JSON.stringify(outcome.value)}`);
  expect(outcome.error).toBeInstanceOf(Error);
  return (outcome.error as Error).message;
}

describe('calculator through execute', () => {
  test.each([
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ['2 ^ 3 ^ 2', 512],
    ['-2 ^ 2', -4],
    ['(-2) ^ 2', 4],
    ['--3', 3],
    ['10 / 4', 2.5],
    ['17 % 5', 2],
    ['17 mod 5', 2],
    ['200 * 10%', 20],
    ['2 * -3', -6],
    ['0.1 + 0.2', 0.3],
    ['sqrt(16) + abs(-3)', 7],
    ['round(2.345, 2)', 2.35],
    ['floor(-2.5) + ceil(2.1)', 0],
    ['min(4, 2, 8) * max(1, 5)', 10],
    ['log(e) + log10(1000) + log(8, 2)', 7],
    ['exp(0)', 1],
    ['round(sin(pi / 2) + cos(0) + tan(0), 10)', 2],
    ['2pi', 6.28318530717959],
    ['1e3 / 8', 125],
    ['-0 * 5', 0],
  ])('%s = %s', async (expression, result) => {
    expect(await calculate(expression)).toStrictEqual({ expression, result });
  });

  test.each([
    ['1 +', 'Invalid expression: Unexpected end of expression (char 4)'],
    ['(1 + 2', 'Invalid expression: Parenthesis ) expected (char 7)'],
    ['', 'The expression is empty'],
    [
      'zeros(1000, 1000)',
      'The function "zeros" is not allowed. Functions: sqrt, abs, round, floor, ceil, min, max, log, log10, exp, sin, cos, tan',
    ],
    [
      'import({x: 1})',
      'The function "import" is not allowed. Functions: sqrt, abs, round, floor, ceil, min, max, log, log10, exp, sin, cos, tan',
    ],
    [
      'evaluate("1")',
      'The function "evaluate" is not allowed. Functions: sqrt, abs, round, floor, ceil, min, max, log, log10, exp, sin, cos, tan',
    ],
    [
      'createUnit("foo")',
      'The function "createUnit" is not allowed. Functions: sqrt, abs, round, floor, ceil, min, max, log, log10, exp, sin, cos, tan',
    ],
    ['constructor', 'Unknown or disallowed name "constructor". Constants: pi, e'],
    ['__proto__', 'Unknown or disallowed name "__proto__". Constants: pi, e'],
    [
      'constructor("return 1")',
      'The function "constructor" is not allowed. Functions: sqrt, abs, round, floor, ceil, min, max, log, log10, exp, sin, cos, tan',
    ],
    [
      'sqrt.constructor("x")',
      'This kind of function call is not allowed. Functions: sqrt, abs, round, floor, ceil, min, max, log, log10, exp, sin, cos, tan',
    ],
    [
      'pi.constructor',
      'Property access and indexing are not allowed; use numbers, + - * / ^ %, parentheses, functions and constants',
    ],
    ['[1, 2]', 'Matrices and arrays are not allowed; use numbers, + - * / ^ %, parentheses, functions and constants'],
    ['x = 2', 'Assignments are not allowed; use numbers, + - * / ^ %, parentheses, functions and constants'],
    [
      'f(x) = x',
      'Function definitions are not allowed; use numbers, + - * / ^ %, parentheses, functions and constants',
    ],
    ['1; 2', 'Multiple statements are not allowed; use numbers, + - * / ^ %, parentheses, functions and constants'],
    ['1 ? 2 : 3', 'Conditionals are not allowed; use numbers, + - * / ^ %, parentheses, functions and constants'],
    ['1:3', 'Ranges are not allowed; use numbers, + - * / ^ %, parentheses, functions and constants'],
    ['"abc"', 'Only numbers are allowed, not "abc"'],
    ['true + 1', 'Only numbers are allowed, not true'],
    ['5 cm', 'Unknown or disallowed name "cm". Constants: pi, e'],
    ['5!', 'The operator "!" is not allowed. Operators: + - * / ^ % and parentheses'],
    ['1 < 2', 'The operator "<" is not allowed. Operators: + - * / ^ % and parentheses'],
    ['Infinity - 1', 'Only finite numbers are allowed'],
    [
      '1 / 0',
      'The result is not a finite number (Infinity); check for division by zero, overflow or a function outside its domain',
    ],
    [
      'sqrt(-1)',
      'The result is not a finite number (NaN); check for division by zero, overflow or a function outside its domain',
    ],
    [
      '10 ^ 400',
      'The result is not a finite number (Infinity); check for division by zero, overflow or a function outside its domain',
    ],
    ['sqrt(1, 2)', 'Invalid use of sqrt(): Too many arguments (expected: 1, actual: 2)'],
    ['min()', 'Invalid use of min(): Too few arguments (expected: any, index: 0)'],
  ])('%s is refused', async (expression, message) => {
    expect(await failure(expression)).toStrictEqual(message);
  });

  test('long chains without parentheses are either evaluated or refused, never a crash', async () => {
    // How deep the parser can recurse depends on the thread's stack; the outcome must be one of these.
    const expression = `${'-'.repeat(499)}1`;
    const outcome = await calculate(expression).catch((error: Error) => error.message);
    expect([{ expression, result: -1 }, 'The expression is nested too deeply']).toContainEqual(outcome);
  });

  test('an input over 500 characters is refused before parsing', async () => {
    expect(await failure('1+'.repeat(5000))).toStrictEqual(
      'The expression is too long: 10000 characters, the limit is 500',
    );
  });

  test('50 levels of parentheses evaluate, 51 are refused before parsing', async () => {
    const nested = (levels: number) => `${'abs('.repeat(levels - 1)}(-1${')'.repeat(levels)}`;
    expect(await calculate(nested(50))).toStrictEqual({ expression: nested(50), result: 1 });
    expect(await failure(nested(51))).toStrictEqual(
      'The expression is nested too deeply: more than 50 levels of parentheses',
    );
  });
});

describe('calculator through generateText', () => {
  async function run(expression: string) {
    const model = new MockLanguageModelV4({ doGenerate: [toolCall(expression), text('done')] });
    const result = await generateText({
      model,
      tools: { calculator: calculatorTool() },
      prompt: 'Compute it',
      stopWhen: stepCountIs(3),
    });
    return { text: result.text, calls: model.doGenerateCalls, lastMessage: model.doGenerateCalls[1]?.prompt.at(-1) };
  }

  test('the model gets the declared input schema and then the result', async () => {
    const { text: answer, calls, lastMessage } = await run('(2 + 3) * 4 ^ 2 / sqrt(16)');
    expect(answer).toStrictEqual('done');
    expect(calls).toHaveLength(2);
    expect(calls[0]!.tools?.map((t) => (t.type === 'function' ? [t.name, t.inputSchema] : [t.name]))).toStrictEqual([
      [
        'calculator',
        {
          $schema: 'http://json-schema.org/draft-07/schema#',
          type: 'object',
          properties: {
            expression: {
              type: 'string',
              maxLength: 500,
              description: 'The expression, for example "(2 + 3) * 4 ^ 2 / sqrt(16)"',
            },
          },
          required: ['expression'],
          additionalProperties: false,
        },
      ],
    ]);
    expect(lastMessage).toStrictEqual({
      role: 'tool',
      providerOptions: undefined,
      content: [
        {
          type: 'tool-result',
          toolCallId: 'call-1',
          toolName: 'calculator',
          providerOptions: undefined,
          output: { type: 'json', value: { expression: '(2 + 3) * 4 ^ 2 / sqrt(16)', result: 20 } },
        },
      ],
    });
  });

  test('a refused expression reaches the model as a tool error and the run goes on', async () => {
    const { text: answer, lastMessage } = await run('zeros(1000, 1000)');
    expect(answer).toStrictEqual('done');
    expect(lastMessage).toStrictEqual({
      role: 'tool',
      providerOptions: undefined,
      content: [
        {
          type: 'tool-result',
          toolCallId: 'call-1',
          toolName: 'calculator',
          providerOptions: undefined,
          output: {
            type: 'error-text',
            value:
              'CalculatorError: The function "zeros" is not allowed. Functions: sqrt, abs, round, floor, ceil, min, max, log, log10, exp, sin, cos, tan',
          },
        },
      ],
    });
  });
});
