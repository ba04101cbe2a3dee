import { type Tool, tool } from 'ai';
import type { FactoryFunctionMap, MathNode } from 'mathjs/number';
import { z } from 'zod';

/** The longest expression the calculator accepts, in characters. */
export const MAX_EXPRESSION_LENGTH = 500;

/** The deepest nesting of parentheses the calculator accepts. */
export const MAX_EXPRESSION_NESTING = 50;

/** What the calculator tool receives from the model. */
export interface CalculatorInput {
  /** An arithmetic expression such as `2 * (3 + 4) ^ 2 / sqrt(16)`. */
  expression: string;
}

/** What the calculator tool returns to the model. */
export interface CalculatorOutput {
  /** The expression as received. */
  expression: string;
  /** Its value, a finite number rounded to 15 significant digits. */
  result: number;
}

type NumberFunction = (...args: number[]) => unknown;

/** The restricted mathjs instance, reduced to what the calculator may use. */
interface Arithmetic {
  parse(expression: string): MathNode;
  operators: ReadonlyMap<string, NumberFunction>;
  functions: ReadonlyMap<string, NumberFunction>;
  constants: ReadonlyMap<string, number>;
}

const FUNCTION_NAMES = [
  'sqrt',
  'abs',
  'round',
  'floor',
  'ceil',
  'min',
  'max',
  'log',
  'log10',
  'exp',
  'sin',
  'cos',
  'tan',
] as const;
const CONSTANT_NAMES = ['pi', 'e'] as const;

let arithmetic: Promise<Arithmetic> | undefined;

/** Loads mathjs on first use: importing it takes a few hundred milliseconds that other tools need not pay. */
function loadArithmetic(): Promise<Arithmetic> {
  arithmetic ??= import('mathjs/number').then((m) => {
    // Number-only build with just the factories the allowed syntax needs: no matrices, units, strings,
    // BigNumbers, `evaluate`, `import` or `createUnit` exist in this instance at all.
    const math = m.create({
      parseDependencies: m.parseDependencies,
      addDependencies: m.addDependencies,
      subtractDependencies: m.subtractDependencies,
      multiplyDependencies: m.multiplyDependencies,
      divideDependencies: m.divideDependencies,
      powDependencies: m.powDependencies,
      modDependencies: m.modDependencies,
      unaryMinusDependencies: m.unaryMinusDependencies,
      unaryPlusDependencies: m.unaryPlusDependencies,
      sqrtDependencies: m.sqrtDependencies,
      absDependencies: m.absDependencies,
      roundDependencies: m.roundDependencies,
      floorDependencies: m.floorDependencies,
      ceilDependencies: m.ceilDependencies,
      minDependencies: m.minDependencies,
      maxDependencies: m.maxDependencies,
      logDependencies: m.logDependencies,
      log10Dependencies: m.log10Dependencies,
      expDependencies: m.expDependencies,
      sinDependencies: m.sinDependencies,
      cosDependencies: m.cosDependencies,
      tanDependencies: m.tanDependencies,
      piDependencies: m.piDependencies,
      eDependencies: m.eDependencies,
      // The typings declare each dependency map as possibly undefined; the number build exports all of them.
    } as FactoryFunctionMap);
    // The parser still recognises the whole mathjs grammar, so the tree is evaluated against these
    // allow-lists rather than compiled: a name or node type that is not listed can never run.
    return {
      parse: (expression) => math.parse(expression),
      operators: new Map<string, NumberFunction>([
        ['add', math.add],
        ['subtract', math.subtract],
        ['multiply', math.multiply],
        ['divide', math.divide],
        ['pow', math.pow],
        ['mod', math.mod],
        ['unaryMinus', math.unaryMinus],
        ['unaryPlus', math.unaryPlus],
      ]),
      functions: new Map<string, NumberFunction>(FUNCTION_NAMES.map((name) => [name, math[name] as NumberFunction])),
      constants: new Map<string, number>(CONSTANT_NAMES.map((name) => [name, math[name]])),
    };
  });
  return arithmetic;
}

/** Thrown for input the calculator refuses; its message is meant for the model. */
class CalculatorError extends Error {
  override name = 'CalculatorError';
}

function evaluateNode(node: MathNode, math: Arithmetic): number {
  switch (node.type) {
    case 'ConstantNode': {
      const { value } = node as MathNode & { value: unknown };
      if (typeof value !== 'number') {
        throw new CalculatorError(
          value === undefined ? 'The expression is empty' : `Only numbers are allowed, not ${JSON.stringify(value)}`,
        );
      }
      if (!Number.isFinite(value)) throw new CalculatorError('Only finite numbers are allowed');
      return value;
    }
    case 'ParenthesisNode':
      return evaluateNode((node as MathNode & { content: MathNode }).content, math);
    case 'SymbolNode': {
      const { name } = node as MathNode & { name: string };
      const value = math.constants.get(name);
      if (value === undefined)
        throw new CalculatorError(`Unknown or disallowed name "${name}". Constants: ${CONSTANT_NAMES.join(', ')}`);
      return value;
    }
    case 'OperatorNode': {
      const { fn, op, args } = node as MathNode & { fn: string; op: string; args: MathNode[] };
      const operator = math.operators.get(fn);
      if (!operator)
        throw new CalculatorError(`The operator "${op}" is not allowed. Operators: + - * / ^ % and parentheses`);
      return call(operator, args, `"${op}"`, math);
    }
    case 'FunctionNode': {
      const { fn, args } = node as MathNode & { fn: MathNode; args: MathNode[] };
      const name = fn.type === 'SymbolNode' ? (fn as MathNode & { name: string }).name : undefined;
      const implementation = name === undefined ? undefined : math.functions.get(name);
      if (!implementation) {
        const what = name === undefined ? 'This kind of function call' : `The function "${name}"`;
        throw new CalculatorError(`${what} is not allowed. Functions: ${FUNCTION_NAMES.join(', ')}`);
      }
      return call(implementation, args, `${name}()`, math);
    }
    default:
      throw new CalculatorError(
        `${describeNode(node.type)} are not allowed; use numbers, + - * / ^ %, parentheses, functions and constants`,
      );
  }
}

function call(fn: NumberFunction, args: MathNode[], label: string, math: Arithmetic): number {
  const values = args.map((arg) => evaluateNode(arg, math));
  let result: unknown;
  try {
    result = fn(...values);
  } catch (error) {
    // typed-function explains wrong argument counts well ("Too many arguments in function sqrtNumber
    // (expected: 1, actual: 2)"); keep its words but not mathjs's internal function name.
    const message = (error instanceof Error ? error.message : String(error)).replace(/ in function \S+/, '');
    throw new CalculatorError(`Invalid use of ${label}: ${message}`);
  }
  if (typeof result !== 'number') throw new CalculatorError(`${label} did not produce a number`);
  return result;
}

const NODE_DESCRIPTIONS: Record<string, string> = {
  AccessorNode: 'Property access and indexing',
  ArrayNode: 'Matrices and arrays',
  AssignmentNode: 'Assignments',
  BlockNode: 'Multiple statements',
  ConditionalNode: 'Conditionals',
  FunctionAssignmentNode: 'Function definitions',
  IndexNode: 'Indexes',
  ObjectNode: 'Objects',
  RangeNode: 'Ranges',
  RelationalNode: 'Comparisons',
};

function describeNode(type: string): string {
  return Object.hasOwn(NODE_DESCRIPTIONS, type) ? NODE_DESCRIPTIONS[type]! : `Expressions of type ${type}`;
}

function nestingDepth(expression: string): number {
  let depth = 0;
  let deepest = 0;
  for (const char of expression) {
    if (char === '(' || char === '[' || char === '{') deepest = Math.max(deepest, ++depth);
    else if (char === ')' || char === ']' || char === '}') depth--;
  }
  return deepest;
}

const TOO_DEEP = 'The expression is nested too deeply';

function isStackOverflow(error: unknown): boolean {
  return error instanceof RangeError && /call stack/i.test(error.message);
}

async function evaluateExpression(expression: string): Promise<number> {
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    throw new CalculatorError(
      `The expression is too long: ${expression.length} characters, the limit is ${MAX_EXPRESSION_LENGTH}`,
    );
  }
  // Parser and evaluator recurse per level; bounding the depth keeps them well inside the stack of
  // whatever thread runs the tool.
  if (nestingDepth(expression) > MAX_EXPRESSION_NESTING) {
    throw new CalculatorError(`${TOO_DEEP}: more than ${MAX_EXPRESSION_NESTING} levels of parentheses`);
  }
  const math = await loadArithmetic();
  let tree: MathNode;
  let result: number;
  try {
    tree = math.parse(expression);
  } catch (error) {
    if (isStackOverflow(error)) throw new CalculatorError(TOO_DEEP);
    throw new CalculatorError(`Invalid expression: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    result = evaluateNode(tree, math);
  } catch (error) {
    // Long chains without parentheses ("------1") still recurse; refuse them instead of crashing.
    if (isStackOverflow(error)) throw new CalculatorError(TOO_DEEP);
    throw error;
  }
  if (!Number.isFinite(result)) {
    throw new CalculatorError(
      `The result is not a finite number (${String(result)}); check for division by zero, overflow or a function outside its domain`,
    );
  }
  // Binary floating point leaves noise such as 0.1 + 0.2 = 0.30000000000000004; 15 digits are exact.
  return Number(result.toPrecision(15)) + 0;
}

/**
 * The `calculator` tool: evaluates an arithmetic expression with `+ - * / ^ %`, unary minus,
 * parentheses, the functions sqrt, abs, round, floor, ceil, min, max, log, log10, exp, sin, cos, tan
 * and the constants pi and e. It never uses `eval` or `Function`; anything else (variables, matrices,
 * units, strings, assignments, other functions) is refused with an error the model can read.
 *
 * @example staticTools({ math: { calculator: calculatorTool() } })
 */
export function calculatorTool(): Tool<CalculatorInput, CalculatorOutput> {
  return tool({
    description:
      'Evaluates an arithmetic expression exactly and returns its numeric value. Supports + - * / ^ (power) % (modulo), ' +
      'parentheses, sqrt, abs, round, floor, ceil, min, max, log (natural, or log(x, base)), log10, exp, sin, cos, tan (radians) and the constants pi and e.',
    inputSchema: z.object({
      expression: z
        .string()
        .max(MAX_EXPRESSION_LENGTH)
        .describe('The expression, for example "(2 + 3) * 4 ^ 2 / sqrt(16)"'),
    }),
    execute: async ({ expression }) => ({ expression, result: await evaluateExpression(expression) }),
  });
}
