// The API key lives in this browser's localStorage only: it is sent nowhere but in the `x-api-key`
// header of requests to the server that served the page.
const STORAGE_KEY = 'agenthost.playground.apiKey';

/** The key saved earlier in this browser, or an empty string. */
export function loadKey(): string {
  try {
    return localStorage.getItem(STORAGE_KEY) ?? '';
  } catch {
    // Storage can be off (private windows, policies): the key then lasts as long as the page.
    return '';
  }
}

/** Saves the key in this browser, or forgets it when empty. */
export function saveKey(key: string): void {
  try {
    if (key) localStorage.setItem(STORAGE_KEY, key);
    else localStorage.removeItem(STORAGE_KEY);
  } catch {
    // See loadKey.
  }
}
