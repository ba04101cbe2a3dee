// What every case of the run-route benchmark is asked: the same agent instruction and the same turns.

/** The instruction of the benchmark's agent, in every case. */
export const INSTRUCTION = 'You are a helpful support agent. Answer briefly.';

/** The input of a conversation's turn `turn` (0-based). */
export const turnInput = (turn) => `question ${turn + 1}: how do I reset my password?`;
