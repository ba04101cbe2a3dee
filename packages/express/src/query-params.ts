/** A whole-number query parameter: absent, its value, or NaN (which no range holds) for anything else. */
export function queryInt(query: Record<string, unknown>, name: string): number | undefined {
  const raw = query[name];
  if (raw === undefined) return undefined;
  // The service reports a value that is not a whole number in range; NaN is never in range.
  return typeof raw === 'string' && /^\d{1,6}$/.test(raw) ? Number(raw) : Number.NaN;
}

/** A string query parameter: absent, its value, or `""` for a repeated or nested one. */
export function queryString(query: Record<string, unknown>, name: string): string | undefined {
  const raw = query[name];
  return typeof raw === 'string' ? raw : raw === undefined ? undefined : '';
}
