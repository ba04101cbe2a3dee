/** Whether `value` is a plain JSON object (not `null`, not an array). */
export const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
