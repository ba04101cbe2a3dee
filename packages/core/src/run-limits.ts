/** Most tokens a model may answer with in one step, unless configured otherwise. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 4_096;
