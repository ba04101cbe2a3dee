/**
 * Test doubles for code that uses agenthost: mock models that answer without a network, loopback
 * fakes of the model providers' APIs (OpenAI and OpenAI-compatible, Anthropic Messages, Gemini), a
 * settable clock and readable ids. Import from `@agenthost/core/test`.
 */

export {
  type FakeAnthropicHandler,
  type FakeAnthropicRequest,
  type FakeAnthropicServer,
  startFakeAnthropicServer,
} from './testing/fake-anthropic-server.js';
export {
  type FakeGeminiApi,
  type FakeGeminiHandler,
  type FakeGeminiRequest,
  type FakeGeminiServer,
  startFakeGeminiServer,
} from './testing/fake-gemini-server.js';
export {
  type FakeOpenAIApi,
  type FakeOpenAIHandler,
  type FakeOpenAIMessage,
  type FakeOpenAIReply,
  type FakeOpenAIRequest,
  type FakeOpenAIServer,
  startFakeOpenAIServer,
} from './testing/fake-openai-server.js';
export {
  defaultFakeReply,
  type FakeAnswer,
  type FakeAnswerOptions,
  type FakeMedia,
  type FakeMessage,
  type FakeProviderHandler,
  type FakeProviderRequest,
  type FakeProviderServer,
  type FakeReply,
  type FakeToolCall,
} from './testing/fake-provider-server.js';
export {
  type MockFile,
  type MockModelOptions,
  type MockModelProvider,
  type MockPrompt,
  type MockReply,
  mockModels,
  readMockPrompt,
} from './testing/mock-models.js';
export { pollWhile } from './testing/poll-while.js';
export { agentHostError } from './testing/rejection.js';
export { runStoreView } from './testing/run-store-view.js';
export { sequentialIds, type TestClock, testClock } from './testing/test-clock.js';
