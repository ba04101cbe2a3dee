/**
 * Test doubles for code that uses agenthost: loopback fakes of the model providers' APIs (OpenAI and
 * OpenAI-compatible, Anthropic Messages, Gemini), a settable clock and readable ids. Import from
 * `@agenthost/core/test`.
 */
export {
  defaultFakeReply,
  type FakeAnswer,
  type FakeAnswerOptions,
  type FakeMessage,
  type FakeProviderHandler,
  type FakeProviderRequest,
  type FakeProviderServer,
  type FakeReply,
  type FakeToolCall,
} from './testing/fake-provider-server.js';
export {
  startFakeOpenAIServer,
  type FakeOpenAIApi,
  type FakeOpenAIHandler,
  type FakeOpenAIMessage,
  type FakeOpenAIReply,
  type FakeOpenAIRequest,
  type FakeOpenAIServer,
} from './testing/fake-openai-server.js';
export { startFakeAnthropicServer, type FakeAnthropicHandler, type FakeAnthropicRequest, type FakeAnthropicServer } from './testing/fake-anthropic-server.js';
export { startFakeGeminiServer, type FakeGeminiApi, type FakeGeminiHandler, type FakeGeminiRequest, type FakeGeminiServer } from './testing/fake-gemini-server.js';
export { agentHostError } from './testing/rejection.js';
export { pollWhile } from './testing/poll-while.js';
export { sequentialIds, testClock, type TestClock } from './testing/test-clock.js';
