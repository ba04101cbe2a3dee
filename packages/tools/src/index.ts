export { type BuiltinToolsOptions, builtinTools } from './builtin-tools.js';
export {
  type CalculatorInput,
  type CalculatorOutput,
  calculatorTool,
  MAX_EXPRESSION_LENGTH,
  MAX_EXPRESSION_NESTING,
} from './calculator.js';
export { combineTools } from './combine-tools.js';
export { type DatetimeInput, type DatetimeOutput, type DatetimeToolOptions, datetimeTool } from './datetime.js';
export {
  type McpHttpServerConfig,
  type McpServerConfig,
  type McpStdioServerConfig,
  type McpToolProvider,
  type McpToolsOptions,
  mcpTools,
} from './mcp-tools.js';
export {
  MAX_RESULT_CONTENT_LENGTH,
  type WebSearchInput,
  type WebSearchOutput,
  type WebSearchResult,
  type WebSearchToolOptions,
  webSearchTool,
} from './web-search.js';
