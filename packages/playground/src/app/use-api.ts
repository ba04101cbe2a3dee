import { useCallback, useEffect, useState } from 'react';
import { api } from './api';

/** What {@link useApiData} holds: the data once loaded, the last error, and a way to load again. */
export interface ApiData<T> {
  data: T | undefined;
  error: string | undefined;
  reload: () => void;
}

interface Loaded<T> {
  from: string;
  data?: T;
  error?: string;
}

/**
 * GETs `path` with `key` (nothing when either is empty), and again on `reload()`. A reload keeps the
 * data shown until the new answer arrives; data of another key or path is never shown.
 */
export function useApiData<T>(key: string, path: string | undefined): ApiData<T> {
  const [loaded, setLoaded] = useState<Loaded<T>>();
  const [round, setRound] = useState(0);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  const from = `${key}\n${path}`;
  useEffect(() => {
    if (!key || !path || round < 0) return;
    // A later request (another key, path or round) makes this one's answer stale.
    let current = true;
    api<T>(key, path).then(
      (data) => current && setLoaded({ from, data }),
      (failure: Error) => current && setLoaded({ from, error: failure.message }),
    );
    return () => {
      current = false;
    };
  }, [key, path, round, from]);
  const mine = key && path && loaded?.from === from ? loaded : undefined;
  return { data: mine?.data, error: mine?.error, reload };
}
