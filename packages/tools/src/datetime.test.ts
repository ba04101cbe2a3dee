import { describe, expect, test } from 'vitest';
import { datetimeTool } from './datetime.js';

function at(iso: string) {
  return datetimeTool({ now: () => new Date(iso) });
}

async function ask(iso: string, time_zone?: string): Promise<unknown> {
  return at(iso).execute!(time_zone === undefined ? {} : { time_zone }, {
    toolCallId: 'call-1',
    messages: [],
    context: {},
  });
}

describe('datetime', () => {
  test('defaults to UTC', async () => {
    expect(await ask('2026-11-22T10:00:00.000Z')).toStrictEqual({
      time_zone: 'UTC',
      iso: '2026-11-22T10:00:00.000+00:00',
      date: '2026-11-22',
      time: '10:00:00',
      weekday: 'Sunday',
      utc_offset: '+00:00',
    });
  });

  test('Europe/Berlin in winter is UTC+1', async () => {
    expect(await ask('2026-11-22T10:00:00.000Z', 'Europe/Berlin')).toStrictEqual({
      time_zone: 'Europe/Berlin',
      iso: '2026-11-22T11:00:00.000+01:00',
      date: '2026-11-22',
      time: '11:00:00',
      weekday: 'Sunday',
      utc_offset: '+01:00',
    });
  });

  test('Europe/Berlin in summer is UTC+2', async () => {
    expect(await ask('2026-07-01T10:00:00.000Z', 'Europe/Berlin')).toStrictEqual({
      time_zone: 'Europe/Berlin',
      iso: '2026-07-01T12:00:00.000+02:00',
      date: '2026-07-01',
      time: '12:00:00',
      weekday: 'Wednesday',
      utc_offset: '+02:00',
    });
  });

  test('the switch to summer time happens at 01:00 UTC on the last Sunday of March', async () => {
    expect([
      await ask('2026-03-29T00:59:59.999Z', 'Europe/Berlin'),
      await ask('2026-03-29T01:00:00.000Z', 'Europe/Berlin'),
    ]).toStrictEqual([
      {
        time_zone: 'Europe/Berlin',
        iso: '2026-03-29T01:59:59.999+01:00',
        date: '2026-03-29',
        time: '01:59:59',
        weekday: 'Sunday',
        utc_offset: '+01:00',
      },
      {
        time_zone: 'Europe/Berlin',
        iso: '2026-03-29T03:00:00.000+02:00',
        date: '2026-03-29',
        time: '03:00:00',
        weekday: 'Sunday',
        utc_offset: '+02:00',
      },
    ]);
  });

  test('negative and half-hour offsets, and the day before midnight', async () => {
    expect([
      await ask('2026-11-22T03:30:05.000Z', 'America/New_York'),
      await ask('2026-11-22T20:00:00.000Z', 'Asia/Kolkata'),
    ]).toStrictEqual([
      {
        time_zone: 'America/New_York',
        iso: '2026-11-21T22:30:05.000-05:00',
        date: '2026-11-21',
        time: '22:30:05',
        weekday: 'Saturday',
        utc_offset: '-05:00',
      },
      {
        time_zone: 'Asia/Kolkata',
        iso: '2026-11-23T01:30:00.000+05:30',
        date: '2026-11-23',
        time: '01:30:00',
        weekday: 'Monday',
        utc_offset: '+05:30',
      },
    ]);
  });

  test('a zone name in other capitalisation is answered in the canonical one', async () => {
    expect(await ask('2026-11-22T10:00:00.000Z', 'europe/BERLIN')).toStrictEqual({
      time_zone: 'Europe/Berlin',
      iso: '2026-11-22T11:00:00.000+01:00',
      date: '2026-11-22',
      time: '11:00:00',
      weekday: 'Sunday',
      utc_offset: '+01:00',
    });
  });

  test('midnight is 00, not 24', async () => {
    expect(await ask('2026-11-22T00:00:00.000Z')).toStrictEqual({
      time_zone: 'UTC',
      iso: '2026-11-22T00:00:00.000+00:00',
      date: '2026-11-22',
      time: '00:00:00',
      weekday: 'Sunday',
      utc_offset: '+00:00',
    });
  });

  test('the clock is read at each call', async () => {
    let now = new Date('2026-11-22T10:00:00.000Z');
    const datetime = datetimeTool({ now: () => now });
    const call = async () =>
      (await datetime.execute!({}, { toolCallId: 'call-1', messages: [], context: {} })) as { iso: string };
    const first = (await call()).iso;
    now = new Date('2026-11-22T10:00:01.500Z');
    expect([first, (await call()).iso]).toStrictEqual([
      '2026-11-22T10:00:00.000+00:00',
      '2026-11-22T10:00:01.500+00:00',
    ]);
  });

  test.each(['Mars/Olympus_Mons', 'Berlin', ''])(
    'the unknown zone %j is an error saying how to name one',
    async (zone) => {
      await expect(ask('2026-11-22T10:00:00.000Z', zone)).rejects.toStrictEqual(
        new Error(
          `Unknown time zone "${zone}". Use an IANA time zone name such as "UTC", "Europe/Berlin", "America/New_York" or "Asia/Tokyo" (Area/City, as in the tz database).`,
        ),
      );
    },
  );
});
