export { calculatorTool, MAX_EXPRESSION_LENGTH, MAX_EXPRESSION_NESTING, type CalculatorInput, type CalculatorOutput } from './calculator.js';
export { datetimeTool, type DatetimeInput, type DatetimeOutput, type DatetimeToolOptions } from './datetime.js';
export {
  webSearchTool,
  MAX_RESULT_CONTENT_LENGTH,
  type WebSearchInput,
  type WebSearchOutput,
  type WebSearchResult,
  type WebSearchToolOptions,
} from './web-search.js';
export {
  mcpTools,
  type McpHttpServerConfig,
  type McpServerConfig,
  type McpStdioServerConfig,
  type McpToolProvider,
  type McpToolsOptions,
} from './mcp-tools.js';
export { builtinTools, type BuiltinToolsOptions } from './builtin-tools.js';
export { combineTools } from './combine-tools.js';
