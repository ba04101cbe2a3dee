/**
 * The nesting depth of a JSON value (a scalar is 0, `{}` is 1), found without recursion so that a
 * hostile value cannot exhaust the stack. Stops counting once past `stopAt`.
 */
export function jsonDepth(value: unknown, stopAt = Number.POSITIVE_INFINITY): number {
  if (value === null || typeof value !== 'object') return 0;
  let deepest = 0;
  // Only objects and arrays are stacked, with their depth beside them: scalars cost one look.
  const objects: object[] = [value];
  const depths: number[] = [1];
  while (objects.length) {
    const v = objects.pop()!;
    const d = depths.pop()!;
    if (d > deepest) deepest = d;
    if (deepest > stopAt) return deepest;
    const children = Array.isArray(v) ? v : Object.values(v);
    for (const child of children) {
      if (child !== null && typeof child === 'object') {
        objects.push(child);
        depths.push(d + 1);
      }
    }
  }
  return deepest;
}
