import { takeSnapshot } from '../../server/agent/observation';
import { ToolError } from '../../server/agent/result/errors';
import { html, indexOf, type Run, useRig } from './tools-rig';

/**
 * Typing dates and times the way a person writes them into native date/time inputs and into text fields that
 * state their format; the field is read back, and a value it did not take is an error the model sees. The
 * parameter rules (placeholders, injected parameters) apply as for any text field.
 */
jest.setTimeout(60_000);

const rig = useRig();

const FORM = html(
  'Booking',
  `<main><h1>Book a trip</h1><form aria-label="Booking" onsubmit="return false">
  <p><label>Start date <input type="date" id="start"></label></p>
  <p><label>Meeting time <input type="time" id="time"></label></p>
  <p><label>Departure <input type="datetime-local" id="departure"></label></p>
  <p><label>Billing month <input type="month" id="month"></label></p>
  <p><label>Sprint week <input type="week" id="week"></label></p>
  <p><label>Deadline <input type="date" id="deadline" min="2025-01-01" max="2025-12-31"></label></p>
  <p><label>Birthday <input type="text" id="birthday" placeholder="DD/MM/YYYY"></label></p>
  <p><label>Strict field <input type="text" id="strict"></label></p>
  <p><label>Check-in <input type="text" id="checkin" aria-describedby="checkin-hint"></label> <small id="checkin-hint">Format: MM/DD/YYYY</small></p>
</form></main>`,
  // A strict widget that throws away whatever is typed, and a date picker that clears what is not a full MM/DD/YYYY.
  `document.getElementById('strict').addEventListener('input', function (e) { e.target.value = ''; });
   document.getElementById('checkin').addEventListener('change', function (e) {
     if (!/^\\d{2}\\/\\d{2}\\/\\d{4}$/.test(e.target.value)) setTimeout(function () { e.target.value = ''; }, 0);
   });
   document.getElementById('checkin').addEventListener('input', function (e) {
     if (!/^\\d{2}\\/\\d{2}\\/\\d{4}$/.test(e.target.value)) setTimeout(function () { e.target.value = ''; }, 0);
   });`,
);

let path: string;
beforeAll(() => {
  path = new URL(rig.site.page('/booking', FORM)).pathname;
});

const valueOf = (run: Run, id: string) => run.page.locator(`#${id}`).inputValue();

async function type(run: Run, name: string, text: string) {
  const s = await takeSnapshot(run.page);
  return rig.tool(run, 'type', { index: indexOf(s, 'textbox', name), text }, s);
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a ToolError');
    },
    (e: unknown) => {
      if (!(e instanceof ToolError)) throw e;
      return e;
    },
  );

describe('type into date and time fields', () => {
  it.each([
    ['Start date', '07/18/2025', '2025-07-18', 'start'],
    ['Start date', 'July 18, 2025', '2025-07-18', 'start'],
    ['Meeting time', '2:30 PM', '14:30', 'time'],
    ['Departure', '07/18/2025 2:30 PM', '2025-07-18T14:30', 'departure'],
    ['Billing month', 'July 2025', '2025-07', 'month'],
    ['Sprint week', '2025-07-18', '2025-W29', 'week'],
    ['Birthday', 'July 18 2025', '18/07/2025', 'birthday'],
    ['Check-in', '2025-07-18', '07/18/2025', 'checkin'],
  ])('%s: %j is typed as %j and read back', async (name, text, value, id) => {
    const run = await rig.open(path);
    const out = await type(run, name, text);
    expect(await valueOf(run, id)).toBe(value);
    expect(out.message).toContain(`(as '${value}'`);
  });

  it('a date the field cannot hold is an error, and the field stays empty', async () => {
    const run = await rig.open(path);
    const err = await failure(type(run, 'Start date', '31/31/2025'));
    expect(err.message).toBe(
      "'31/31/2025' cannot go into this date field: it is not a date (write e.g. 2025-07-18 or 07/18/2025 or July 18, 2025)",
    );
    expect(await valueOf(run, 'start')).toBe('');
  });

  it('a date outside what the field allows is an error with the message a person sees', async () => {
    const run = await rig.open(path);
    const err = await failure(type(run, 'Deadline', '2026-02-01'));
    expect(err.message).toMatch(/^textbox 'Deadline' holds '2026-02-01' but rejects it: Value must be 12\/31\/2025 or earlier/);
  });

  it('a field that throws the text away, or a picker that clears it, is an error, not "typed"', async () => {
    const run = await rig.open(path);
    expect((await failure(type(run, 'Strict field', 'hello'))).message).toBe(
      "textbox 'Strict field' is still empty after typing 'hello'; it did not take the text",
    );
    expect((await failure(type(run, 'Check-in', 'next Friday'))).message).toBe(
      "textbox 'Check-in' is still empty after typing 'next Friday'; it did not take the text",
    );
  });
});

describe('parameters in date fields', () => {
  it('fills a date parameter in the field format, and no message shows its value', async () => {
    const run = await rig.open(path, { parameters: { dob: '07/18/2025' } });
    const out = await type(run, 'Start date', '{{parameters.dob}}');
    expect(await valueOf(run, 'start')).toBe('2025-07-18');
    expect(out.message).toBe("typed '{{parameters.dob}}' into textbox 'Start date'");
    expect(out.record).toEqual({ text: '{{parameters.dob}}' });
  });

  it('a parameter that is not a date is refused by its placeholder, never by its value', async () => {
    const run = await rig.open(path, { parameters: { when: 'sometime soon' } });
    const err = await failure(type(run, 'Start date', '{{parameters.when}}'));
    expect(err.message).toContain("'{{parameters.when}}' cannot go into this date field");
    expect(err.message).not.toContain('soon');
  });

  it('a parameter a page asked for is still refused in a date field (blocked, taints the run)', async () => {
    const run = await rig.open(path, { parameters: { dob: '07/18/2025' } });
    run.ctx.integrity.markInjected('dob');
    const err = await failure(type(run, 'Start date', '{{parameters.dob}}'));
    expect(err.blocked).toBe(true);
    expect(await valueOf(run, 'start')).toBe('');
  });
});

describe('dates through the planner', () => {
  it('the model writes 07/18/2025 into a native date field; a bad date comes back as an error it can correct', async () => {
    const run = await rig.open(path, { action: 'Set the start date to July 18 2025', responseFormat: { start: 'string' } });
    rig.model.setScript((t) => {
      const o = t.observation!;
      if (t.history.length === 0) return { tool: 'type', args: { index: o.find('textbox', 'Start date'), text: '18th of Julember' } };
      if (/Your previous turn failed: .*cannot go into this date field/.test(t.lastUser))
        return { tool: 'type', args: { index: o.find('textbox', 'Start date'), text: '07/18/2025' } };
      return { tool: 'done', args: { success: true, data: { start: '2025-07-18' } } };
    });
    const result = await rig.plan(run);
    expect(result.outcome).toMatchObject({ status: 'completed' });
    expect(await valueOf(run, 'start')).toBe('2025-07-18');
    expect(run.trace.filter((s) => s.tool === 'type').map((s) => s.outcome)).toEqual(['error', 'ok']);
  });
});
