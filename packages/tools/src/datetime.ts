import { type Tool, tool } from 'ai';
import { z } from 'zod';

/** Options of {@link datetimeTool}. */
export interface DatetimeToolOptions {
  /** The clock (default: the system clock). Tests pass a fixed one. */
  now?: () => Date;
}

/** What the datetime tool receives from the model. */
export interface DatetimeInput {
  /** An IANA time zone name such as `Europe/Berlin` (default `UTC`). */
  time_zone?: string | undefined;
}

/** What the datetime tool returns to the model: the same instant, as seen in `time_zone`. */
export interface DatetimeOutput {
  /** The zone as asked for, in its canonical capitalisation, e.g. `Europe/Berlin`. */
  time_zone: string;
  /** ISO 8601 with the zone's offset, e.g. `2026-11-22T11:00:00.000+01:00`. */
  iso: string;
  /** `YYYY-MM-DD`. */
  date: string;
  /** `HH:MM:SS`, 24-hour. */
  time: string;
  /** The English weekday name, e.g. `Sunday`. */
  weekday: string;
  /** The offset from UTC, e.g. `+01:00`, `-05:00`, `+05:30`, `+00:00`. */
  utc_offset: string;
}

const HOW_TO_NAME_A_ZONE =
  'Use an IANA time zone name such as "UTC", "Europe/Berlin", "America/New_York" or "Asia/Tokyo" (Area/City, as in the tz database).';

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  try {
    return new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      weekday: 'long',
      timeZoneName: 'longOffset',
    });
  } catch {
    throw new Error(`Unknown time zone "${timeZone}". ${HOW_TO_NAME_A_ZONE}`);
  }
}

/** The date and time of `instant` in `timeZone` (an IANA name); throws for an unknown zone. */
function describeInstant(instant: Date, timeZone: string): DatetimeOutput {
  const formatter = formatterFor(timeZone);
  const parts: Record<string, string> = {};
  for (const part of formatter.formatToParts(instant)) parts[part.type] = part.value;
  // longOffset gives "GMT+01:00", or plain "GMT" when the offset is zero.
  const offset = (parts.timeZoneName ?? 'GMT').replace(/^GMT/, '') || '+00:00';
  const date = `${parts.year}-${parts.month}-${parts.day}`;
  const time = `${parts.hour}:${parts.minute}:${parts.second}`;
  const millis = String(instant.getUTCMilliseconds()).padStart(3, '0');
  // Intl canonicalises capitalisation ("europe/berlin") but, depending on its ICU data, may also turn
  // a current name into a legacy alias (Asia/Kolkata into Asia/Calcutta); keep the name asked for then.
  const resolved = formatter.resolvedOptions().timeZone;
  return {
    time_zone: resolved.toLowerCase() === timeZone.toLowerCase() ? resolved : timeZone,
    iso: `${date}T${time}.${millis}${offset}`,
    date,
    time,
    weekday: parts.weekday ?? '',
    utc_offset: offset,
  };
}

/**
 * The `datetime` tool: the current date, time, weekday and UTC offset in an IANA time zone
 * (default UTC), through `Intl`, so daylight saving time follows the runtime's time zone data.
 * An unknown zone is an error that tells the model how to name one.
 *
 * @example staticTools({ clock: { datetime: datetimeTool() } })
 */
export function datetimeTool(options: DatetimeToolOptions = {}): Tool<DatetimeInput, DatetimeOutput> {
  const now = options.now ?? (() => new Date());
  return tool({
    description: 'Returns the current date, time, weekday and UTC offset in an IANA time zone (default UTC).',
    inputSchema: z.object({
      time_zone: z
        .string()
        .max(100)
        .optional()
        .describe('IANA time zone name, e.g. "Europe/Berlin" or "America/New_York"; default "UTC"'),
    }),
    execute: async ({ time_zone }) => describeInstant(now(), time_zone ?? 'UTC'),
  });
}
