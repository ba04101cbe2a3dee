import type { UserContent } from 'ai';
import type { ModelInfo } from '../ports/model-provider.js';
import type { MessagePart, SessionMessage } from '../records.js';
import type { InputPart } from '../schemas.js';

/** A run's input as the user's message of its turn: its text, and its parts when it has more than text. */
export interface UserTurn {
  content: string;
  parts?: MessagePart[];
}

/**
 * The user's message a run input makes: a string is its text; a list of parts is checked (one of
 * `url` or `data`, sizes, the bytes against the media type) and must suit the model.
 * @throws InvalidInputError naming `input` (a part's path) for a bad part, or a model that cannot read it.
 */
export function userTurn(input: string | readonly InputPart[], _info: ModelInfo): UserTurn {
  // Placeholder until parts are read: text only.
  if (typeof input === 'string') return { content: input };
  const content = input.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
  return { content };
}

/** What the model is sent for a stored user message: its text, or its parts as the AI SDK's. */
export function userModelContent(message: Pick<SessionMessage, 'content' | 'parts'>): UserContent {
  return message.content;
}
