import { backgroundRunResponseSchema, runListResponseSchema } from './response-schemas.js';
import { guarded, limit, type RouteDefinition } from './route-definition.js';

/**
 * Where the document sends a reader for how long runs and their events are kept: the host sets it
 * (a mounted router's host may have no such settings), so the document names no number.
 */
const RETENTION =
  "A finished run's events, and later the run itself, can be read for the server's configured retention (see docs/background-runs.md).";

/** The background runs' own operations (starting one is `run` or `chat` with `"background": true`). */
export const BACKGROUND_RUN_ROUTES: readonly RouteDefinition[] = [
  {
    method: 'get',
    path: '/agents/{agentId}/runs',
    operationId: 'listRuns',
    scope: 'agents:read',
    handler: 'listRuns',
    response: runListResponseSchema,
    statuses: guarded(404),
    tag: 'Runs',
    summary: "List an agent's background runs",
    description: `The caller's background runs of the agent, newest first, one page at a time, whatever their status. ${RETENTION}`,
    answers: 'One page of background runs.',
    parameters: [limit(20), 'Cursor'],
  },
  {
    method: 'get',
    path: '/runs/{runId}',
    operationId: 'getRun',
    scope: 'agents:read',
    handler: 'getRun',
    response: backgroundRunResponseSchema,
    statuses: guarded(404),
    tag: 'Runs',
    summary: 'Get a background run',
    description: `The run's status and, once finished, its \`result\` (the same a run answered as JSON returns) or its \`error\`. Any server sharing the store answers it. Another account's run is 404, as an unknown one. ${RETENTION}`,
    answers: 'The background run.',
  },
  {
    method: 'get',
    path: '/runs/{runId}/events',
    operationId: 'runEvents',
    scope: 'agents:read',
    handler: 'runEvents',
    streams: 'run-events',
    statuses: guarded(404),
    tag: 'Runs',
    summary: "Read a background run's events",
    description: `The run's events as server-sent events, from any server sharing the store, as they are written, ending after the run's last event (\`done\` or \`error\`). ${RETENTION} After the events expired, a finished run's stream has its last event only (rebuilt from the run). An account may have a bounded number of these streams open at once on one server (64 by default): one more is 429 \`rate_limited\`, as JSON.`,
    answers: "The run's events after `Last-Event-ID` (or `after`), as server-sent events.",
    parameters: [
      {
        name: 'Last-Event-ID',
        in: 'header',
        required: false,
        description:
          'The id of the last event the client has: the stream starts after it. Wins over `after`. Anything but a whole number from 0 up is a 400',
        schema: { type: 'string', pattern: '^\\d+$' },
      },
      {
        name: 'after',
        in: 'query',
        required: false,
        description:
          'The same as `Last-Event-ID`, for clients that cannot set headers (a browser `EventSource`); default 0: every event',
        schema: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
      },
    ],
  },
  {
    method: 'post',
    path: '/runs/{runId}/cancel',
    operationId: 'cancelRun',
    scope: 'agents:run',
    handler: 'cancelRun',
    response: backgroundRunResponseSchema,
    statuses: guarded(404),
    tag: 'Runs',
    summary: 'Cancel a background run',
    description:
      'Stops the run, from any server sharing the store: the server running it stops it within about a second, nothing of its turn is stored, and its last event is an `error` with code `cancelled` (409). Answers once it stopped (or after about two seconds, while it may still be `running`); a finished run is answered as it is. Takes no body.',
    answers: 'The run: `cancelled`, or as it finished.',
  },
];
