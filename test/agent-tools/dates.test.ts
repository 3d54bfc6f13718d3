import { dateFormatIn, formatDate, sameInputValue, toInputValue } from '../../server/agent/tools/dates';

/** What a person writes into a date or time field → the value the field takes. */
describe('dates and times as people write them', () => {
  it.each([
    ['date', '07/18/2025', '2025-07-18'],
    ['date', '7/18/25', '2025-07-18'],
    ['date', '2025-07-18', '2025-07-18'],
    ['date', '2025/7/18', '2025-07-18'],
    ['date', 'July 18 2025', '2025-07-18'],
    ['date', 'Jul. 18, 2025', '2025-07-18'],
    ['date', 'Friday, July 18th, 2025', '2025-07-18'],
    ['date', '18 July 2025', '2025-07-18'],
    ['date', '18.07.2025', '2025-07-18'],
    ['date', '18/07/2025', '2025-07-18'],
    ['date', '03/04/2025', '2025-03-04'],
    ['date', '02/29/2024', '2024-02-29'],
    ['date', '1/2/85', '1985-01-02'],
    ['time', '14:30', '14:30'],
    ['time', '2:30 PM', '14:30'],
    ['time', '2:30pm', '14:30'],
    ['time', '2 pm', '14:00'],
    ['time', '12:05 AM', '00:05'],
    ['time', '12 p.m.', '12:00'],
    ['time', '09:15:30', '09:15:30'],
    ['time', 'noon', '12:00'],
    ['datetime-local', '2025-07-18T14:30', '2025-07-18T14:30'],
    ['datetime-local', '07/18/2025 2:30 PM', '2025-07-18T14:30'],
    ['datetime-local', 'July 18, 2025 at 14:30', '2025-07-18T14:30'],
    ['month', 'July 2025', '2025-07'],
    ['month', '2025-07', '2025-07'],
    ['month', '07/2025', '2025-07'],
    ['week', '2025-W29', '2025-W29'],
    ['week', 'week 29, 2025', '2025-W29'],
    ['week', '2025-07-18', '2025-W29'],
    ['week', '2021-01-01', '2020-W53'],
  ] as const)('%s %j → %j', (type, text, value) => {
    expect(toInputValue(type, text)).toEqual({ ok: true, value });
  });

  it.each([
    ['date', '02/30/2025'],
    ['date', '2025-13-01'],
    ['date', 'tomorrow'],
    ['date', ''],
    ['date', 'July 2025'],
    ['time', '25:00'],
    ['time', '13 pm'],
    ['time', '14'],
    ['datetime-local', '2025-07-18'],
    ['month', '13/2025'],
    ['week', '2025-W53'],
  ] as const)('%s %j is refused with an example of what the field takes', (type, text) => {
    const r = toInputValue(type, text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(/write e\.g\. \d{4}|write e\.g\. 14:30/);
  });

  it('compares values the way the field stores them', () => {
    expect(sameInputValue('time', '14:30:00', '14:30')).toBe(true);
    expect(sameInputValue('datetime-local', '2025-07-18T14:30:00', '2025-07-18T14:30')).toBe(true);
    expect(sameInputValue('date', '', '2025-07-18')).toBe(false);
  });

  it("reads a text field's stated format and writes dates in it; numbers written its way are read its way", () => {
    const dmy = dateFormatIn('Date of birth (DD/MM/YYYY)')!;
    expect(dmy).toMatchObject({ order: 'dmy', sep: '/' });
    expect(formatDate('July 18 2025', dmy)).toBe('18/07/2025');
    expect(formatDate('2025-07-18', dmy)).toBe('18/07/2025');
    expect(formatDate('07/08/2025', dmy)).toBe('07/08/2025'); // 7 August, as the field reads it
    const us = dateFormatIn('mm/dd/yyyy')!;
    expect(formatDate('18.07.2025', us)).toBe('07/18/2025');
    expect(formatDate('7/4/25', dateFormatIn('M/D/YY')!)).toBe('7/4/25');
    expect(formatDate('not a date', us)).toBeNull();
    expect(dateFormatIn('Your name')).toBeNull();
    expect(dateFormatIn('yyyy')).toBeNull();
  });
});
