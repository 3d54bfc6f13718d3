import { launchBrowser } from '../../server/browser/chromium';
jest.setTimeout(60_000);
it('setViewportSize and screen', async () => {
  const b = await launchBrowser({});
  const ctx = await b.newContext({ viewport: { width: 1280, height: 800 }, screen: { width: 1920, height: 1080 }, deviceScaleFactor: 1 });
  const page = await ctx.newPage();
  await page.goto('data:text/html,<p>x');
  const read = () => page.evaluate(() => [innerWidth, innerHeight, screen.width, screen.height]);
  console.log('before', JSON.stringify(await read()));
  await page.setViewportSize({ width: 1280, height: 800 });
  console.log('after', JSON.stringify(await read()));
  await b.close();
});
