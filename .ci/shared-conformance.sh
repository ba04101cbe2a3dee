#!/usr/bin/env bash
# The shared black-box conformance check (../shared/conformance/check.mjs), when it sits beside the
# project, against the built standalone server: two accounts, a memory store, the echo model, a port
# the system picks. The project's own test of the same contract is packages/express/src/http-contract.test.ts;
# this one runs only where shared/ is present, and is skipped (exit 0) elsewhere.
set -euo pipefail
cd "$(dirname "$0")/.."
check=../shared/conformance/check.mjs
if [ ! -f "$check" ]; then
  echo "no $check beside the project: skipped"
  exit 0
fi

# The standalone server as built by `pnpm build`.
server=(node packages/server/dist/bin.js serve)
[ -f "${server[1]}" ] || { echo "${server[1]} is missing: build first (pnpm build)" >&2; exit 1; }

key() { node -e 'process.stdout.write(require("node:crypto").randomBytes(24).toString("hex"))'; }
key_a=$(key)
key_b=$(key)
log=$(mktemp)
env -i PATH="$PATH" PORT=0 HOST=127.0.0.1 AGENTHOST_STORE=memory AGENTHOST_API_KEYS="alpha:$key_a,beta:$key_b" \
  "${server[@]}" >"$log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -f "$log"' EXIT

# The server prints "agenthost listening on http://127.0.0.1:<port>/api/v1" once it accepts requests.
base=
for _ in $(seq 1 120); do
  base=$(sed -n 's|^agenthost listening on \(http://[^ ]*\)/api/v1$|\1|p' "$log")
  [ -n "$base" ] && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.5
done
if [ -z "$base" ]; then
  echo "the server did not start:" >&2
  cat "$log" >&2
  exit 1
fi
echo "server at $base"
BASE_URL=$base KEY_A=$key_a KEY_B=$key_b MODEL=echo node "$check"
