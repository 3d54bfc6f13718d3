import { renderSnapshot } from '../../server/agent/observation';
import { ToolError } from '../../server/agent/result/errors';
import { executeTool } from '../../server/agent/tools';
import { el, observe, openPage, type Rig, startRig, stopRig, toolContext } from './observation-rig';

/**
 * The state a model needs (a combobox's current value, the format and value of date/time inputs, invalid with the
 * message a person sees, expanded/collapsed, the selected tab, boxes that scroll on their own), and text chosen
 * the way a person reads: what is on screen and next to controls first, with a note saying what was cut and which
 * index extract reads it by.
 */
const FORM = `<!doctype html><html><head><title>Booking</title></head><body>
<h1>Book a trip</h1>
<form aria-label="Trip" onsubmit="return false">
<label for="from">From</label><select id="from"><option>Oslo</option><option selected>Bergen</option></select>
<div role="combobox" id="cls" aria-labelledby="cls-label" aria-expanded="false" tabindex="0"><span id="cls-label">Class</span> <span>Economy</span></div>
<span id="seat-label">Seat</span><button type="button" aria-haspopup="listbox" aria-labelledby="seat-label" aria-expanded="false">Window</button>
<label for="dep">Departure</label><input type="date" id="dep" value="2025-07-18">
<label for="at">Time</label><input type="time" id="at">
<label for="mon">Card expiry</label><input type="month" id="mon" value="2027-03">
<label for="dob">Birthday</label><input id="dob" placeholder="MM/DD/YYYY">
<label for="mail">Email</label><input type="email" id="mail" value="ada@" aria-invalid="true" aria-describedby="mail-err"><p id="mail-err">Enter a whole email address</p>
<label for="zip">Postcode</label><input id="zip" required pattern="[0-9]{4}">
<label for="pw">Password</label><input id="pw" aria-invalid="true" aria-errormessage="pw-err"><span id="pw-err">At least 12 characters</span>
</form>
<details><summary>Fare rules</summary><p>Refundable until departure.</p></details>
<button type="button" aria-expanded="true" aria-controls="extras">Extras</button><div id="extras">Bag included</div>
<div role="tablist" aria-label="Views"><button role="tab" aria-selected="true">Outbound</button><button role="tab" aria-selected="false">Return</button></div>
<div aria-label="Stops" role="region" style="height:60px;overflow:auto"><p>Stop 1</p><p>Stop 2</p><p>Stop 3</p><p>Stop 4</p><p>Stop 5</p></div>
</body></html>`;

const para = (n: number, words: string) => `<p>${Array.from({ length: n }, (_, i) => `${words} ${i + 1}.`).join(' ')}</p>`;
const ARTICLE = `<!doctype html><html><head><title>Article</title></head><body>
<main><article aria-label="Story">
<h1>The long story</h1>
<p>(\u2026 5 more characters of page text not shown: extract without index reads the page, page by page)</p>
${para(40, 'On screen sentence')}
${Array.from({ length: 12 }, (_, i) => para(30, `Body paragraph ${i + 1} sentence`)).join('\n')}
<p>Price: $99</p><button type="button">Buy the book</button>
</article>
<section aria-label="Comments"><h2>Comments</h2>
${Array.from({ length: 10 }, (_, i) => para(25, `Comment ${i + 1} says`)).join('\n')}
</section></main></body></html>`;

let rig: Rig;
beforeAll(async () => {
  rig = await startRig();
  rig.serve('/form', FORM);
  rig.serve('/article', ARTICLE);
}, 60_000);
afterAll(() => stopRig(rig));

describe('control state', () => {
  it('shows current values, date formats, errors as a person sees them, expanded, selected and scrollable', async () => {
    const { context, page } = await openPage(rig, '/form');
    try {
      // A person typed a bad postcode and left the field: the browser now shows it as invalid.
      await page.locator('#zip').fill('12');
      await page.locator('#zip').blur();
      const { s, text } = await observe(rig, page);
      const line = (role: string, name: string) => text.split('\n').find((l) => l.startsWith(`[${el(s, role, name).index}] `));
      expect(line('combobox', 'From')).toMatch(/combobox 'From' value='Bergen' options=\['Oslo', 'Bergen'\]$/);
      expect(line('combobox', 'Class')).toMatch(/combobox 'Class' value='Economy' collapsed$/);
      expect(line('button', 'Seat')).toMatch(/button 'Seat' value='Window' collapsed haspopup=listbox$/);
      expect(line('textbox', 'Departure')).toMatch(/textbox 'Departure' value='2025-07-18' format=yyyy-mm-dd$/);
      expect(line('textbox', 'Time')).toMatch(/textbox 'Time' value='' format=hh:mm$/);
      expect(line('textbox', 'Card expiry')).toMatch(/textbox 'Card expiry' value='2027-03' format=yyyy-mm$/);
      expect(line('textbox', 'Birthday')).toMatch(/textbox 'Birthday' value='' placeholder='MM\/DD\/YYYY'$/);
      expect(line('textbox', 'Email')).toMatch(/textbox 'Email' value='ada@' invalid error='Enter a whole email address'$/);
      expect(line('textbox', 'Postcode')).toMatch(
        /textbox 'Postcode' value='12' required invalid error='Please match the requested format\.'$/,
      );
      expect(line('textbox', 'Password')).toMatch(/textbox 'Password' value='' invalid error='At least 12 characters'$/);
      expect(line('button', 'Fare rules')).toMatch(/button 'Fare rules' collapsed$/);
      expect(line('button', 'Extras')).toMatch(/button 'Extras' expanded$/);
      expect(line('tab', 'Outbound')).toMatch(/tab 'Outbound' selected$/);
      expect(line('tab', 'Return')).toMatch(/tab 'Return'$/);
      expect(line('region', 'Stops')).toMatch(/region 'Stops' scrollable=more-below$/);
      expect(text).not.toContain('Refundable until departure');

      await page.locator('[aria-label=Stops]').evaluate((e) => e.scrollBy(0, 1000));
      expect(el((await observe(rig, page)).s, 'region', 'Stops').states.scroll).toBe('more-above');
    } finally {
      await context.close();
    }
  });
});

describe('text chosen as a person reads', () => {
  it('keeps what is on screen and next to controls, says what was cut, and extract pages through it by index', async () => {
    const { context, page } = await openPage(rig, '/article');
    try {
      const { s, text } = await observe(rig, page);
      expect(text.length).toBeLessThan(7_000);
      expect(text).toContain('# The long story\n(page text) (\u2026 5 more characters of page text not shown');
      expect(text).toContain('\nOn screen sentence 1.');
      expect(text).toContain('On screen sentence 40.');
      // The price next to the button stays although the paragraphs before it are cut.
      expect(text).toMatch(/Price: \$99\n\[\d+\] button 'Buy the book'/);
      expect(text).toContain('## Comments');
      // (Page text shaped like our note is marked as page text, above.)
      const notes = text.split('\n').filter((l) => l.startsWith('(\u2026 '));
      expect(notes).toHaveLength(2);
      const [story, comments] = notes.map((n) => /extract with index (\d+) reads them\)$/.exec(n));
      expect(notes[0]).toMatch(
        /^\(\u2026 [\d,]+ more characters of text in article 'Story' not shown: extract with index \d+ reads them\)$/,
      );
      expect(notes[1]).toMatch(/in region 'Comments' not shown/);
      expect(s.truncated.text).toBe(true);

      const storyIndex = Number(story![1]);
      const first = await executeTool('extract', { index: storyIndex }, toolContext(rig, page, s));
      expect(first.message).toMatch(/^The visible text, page 1 of [2-9] \(extract with page 2 reads on\):$/);
      expect(first.quoted).toMatch(/^The long story\n\(\u2026 5 more [^\n]+\nOn screen sentence 1\./);
      const second = await executeTool('extract', { index: storyIndex, page: 2 }, toolContext(rig, page, s));
      expect(second.quoted).toContain('Body paragraph');
      expect(second.quoted).not.toContain('On screen sentence 1.');
      const commentsText = await executeTool('extract', { index: Number(comments![1]) }, toolContext(rig, page, s));
      expect(commentsText.quoted).toMatch(/^Comments\nComment 1 says 1\./);
      await expect(executeTool('extract', { index: storyIndex, page: 40 }, toolContext(rig, page, s))).rejects.toThrow(
        /the text has \d page\(s\); there is no page 40/,
      );
      const whole = await executeTool('extract', {}, toolContext(rig, page, s));
      expect(whole.message).toMatch(/^The visible text, page 1 of \d+/);

      // The section went away: the model is told, the run goes on.
      await page.evaluate(() => document.querySelector('section')!.remove());
      const gone = executeTool('extract', { index: Number(comments![1]) }, toolContext(rig, page, s));
      await expect(gone).rejects.toThrow(ToolError);
      await expect(gone).rejects.toThrow(/is no longer on the page/);
    } finally {
      await context.close();
    }
  });

  it('shows all of a short page without notes', async () => {
    const { context, page } = await openPage(rig, '/form');
    try {
      const { s } = await observe(rig, page);
      expect(s.truncated.text).toBe(false);
      expect(renderSnapshot(s)).not.toContain('(\u2026');
    } finally {
      await context.close();
    }
  });
});
