/**
 * The length of a JSON value's text, counted without building it and without recursion, or a number
 * past `stopAt` as soon as it is known to exceed it: so a hostile value costs at most `stopAt` steps.
 * Exact for values that came from JSON (strings count as `JSON.stringify` writes them).
 */
export function jsonLength(value: unknown, stopAt = Number.POSITIVE_INFINITY): number {
  let length = 0;
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') {
      length += typeof v === 'string' ? JSON.stringify(v).length : String(v ?? null).length;
    } else if (Array.isArray(v)) {
      length += 2 + Math.max(0, v.length - 1);
      if (length > stopAt) return length;
      for (const item of v) stack.push(item);
    } else {
      const keys = Object.keys(v);
      length += 2 + Math.max(0, keys.length - 1);
      for (const key of keys) {
        length += JSON.stringify(key).length + 1;
        if (length > stopAt) return length;
        stack.push((v as Record<string, unknown>)[key]);
      }
    }
    if (length > stopAt) return length;
  }
  return length;
}
