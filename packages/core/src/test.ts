/**
 * Test doubles for code that uses agenthost: a loopback OpenAI-compatible server, a settable clock and
 * readable ids. Import from `@agenthost/core/test`.
 */
export {
  defaultFakeReply,
  startFakeOpenAIServer,
  type FakeAnswerOptions,
  type FakeOpenAIApi,
  type FakeOpenAIHandler,
  type FakeOpenAIMessage,
  type FakeOpenAIReply,
  type FakeOpenAIRequest,
  type FakeOpenAIServer,
  type FakeToolCall,
} from './testing/fake-openai-server.js';
export { agentHostError } from './testing/rejection.js';
export { pollWhile } from './testing/poll-while.js';
export { sequentialIds, testClock, type TestClock } from './testing/test-clock.js';
