import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isValidCron, isValidTimeZone, nextRunAt } from '../../src/shared/cron-schedule.ts';

describe('pipeline schedule timing', () => {
  it('computes the next run in the schedule time zone', () => {
    const after = new Date('2024-03-10T00:00:00Z');
    assert.equal(nextRunAt('0 1 * * *', 'UTC', after)?.toISOString(), '2024-03-10T01:00:00.000Z');
    // 04:00 in Tokyo (UTC+9) is 19:00 UTC the day before.
    assert.equal(nextRunAt('0 4 * * *', 'Asia/Tokyo', after)?.toISOString(), '2024-03-10T19:00:00.000Z');
    // New York moves to daylight time on 2024-03-10: 09:00 EDT is 13:00 UTC, the day before 14:00 UTC.
    assert.equal(nextRunAt('0 9 * * *', 'America/New_York', new Date('2024-03-09T12:00:00Z'))?.toISOString(), '2024-03-09T14:00:00.000Z');
    assert.equal(nextRunAt('0 9 * * *', 'America/New_York', new Date('2024-03-09T15:00:00Z'))?.toISOString(), '2024-03-10T13:00:00.000Z');
    assert.equal(nextRunAt('@daily', 'UTC', after)?.toISOString(), '2024-03-11T00:00:00.000Z');
    assert.equal(nextRunAt('*/15 * * * *', 'UTC', new Date('2024-03-10T00:07:00Z'))?.toISOString(), '2024-03-10T00:15:00.000Z');
  });

  it('answers strictly after the given time', () => {
    assert.equal(nextRunAt('0 1 * * *', 'UTC', new Date('2024-03-10T01:00:00Z'))?.toISOString(), '2024-03-11T01:00:00.000Z');
  });

  it('answers null for expressions that never fire again and for invalid input', () => {
    const after = new Date('2024-03-10T00:00:00Z');
    assert.equal(nextRunAt('0 0 30 2 *', 'UTC', after), null);
    assert.equal(nextRunAt('not a cron', 'UTC', after), null);
    assert.equal(nextRunAt('0 1 * * *', 'Mars/Olympus_Mons', after), null);
  });

  it('accepts five-field expressions only', () => {
    for (const cron of ['0 1 * * *', '*/5 * * * 1-5', '0 0 1 JAN *', '@weekly']) assert.equal(isValidCron(cron), true, cron);
    for (const cron of ['', 'bad', '0 1 * * * *', '61 * * * *', '0 25 * * *', '0 1 * *', '0 1 * * *\n0 2 * * *']) assert.equal(isValidCron(cron), false, cron);
  });

  it('accepts IANA time zone names only', () => {
    for (const zone of ['UTC', 'Europe/Berlin', 'America/Argentina/Buenos_Aires']) assert.equal(isValidTimeZone(zone), true, zone);
    for (const zone of ['', ' UTC', 'Mars/Olympus_Mons', 'Europe/Nowhere', 'GMT+25']) assert.equal(isValidTimeZone(zone), false, zone);
  });
});
