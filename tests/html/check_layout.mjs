// node check_layout.mjs [--shots DIR] PAGE.html...
// Opens each HTML page in the system Chromium (playwright-core, no browser download) at 1,280,
// 1,600 and 1,920 px and fails where a reader would stumble: two text boxes overlap, a label
// is cut off by its chart or the window, the page scrolls sideways, an element spills out of
// its box, a chart names two bars or points alike, or a bar chart is all zeros. With --shots,
// a PNG of each page's charts at each width is written there, for review.
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { measurePage } from './measure_page.mjs';

const widths = [1280, 1600, 1920];
const args = process.argv.slice(2);
let shots = null;
const pages = [];
for (let i = 0; i < args.length; ++i) {
  if (args[i] === '--shots') shots = resolve(args[++i]);
  else pages.push(resolve(args[i]));
}
if (pages.length === 0) {
  console.error('usage: node check_layout.mjs [--shots DIR] PAGE.html...');
  process.exit(2);
}

// The flags the network-less CI needs: no sandbox as root, nothing fetched, a throw-away profile.
const profile = mkdtempSync(join(tmpdir(), 'limiter-chromium-'));
const flags = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.LIMITER_CHROMIUM || '/usr/bin/chromium',
  args: flags.filter((flag) => flag !== '--headless'),  // playwright adds it, with headless: true
  headless: true,
  viewport: { width: widths[0], height: 1000 },
});

let failures = 0;
let checks = 0;
try {
  const page = context.pages()[0] ?? await context.newPage();
  page.on('pageerror', (error) => { console.log(`FAIL: page error ${error.message}`); ++failures; });
  for (const file of pages) {
    for (const width of widths) {
      await page.setViewportSize({ width, height: 1000 });
      await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
      const result = await page.evaluate(measurePage);
      checks += result.checks;
      const where = `${basename(file)} at ${width} px`;
      for (const problem of result.problems) {
        console.log(`FAIL: ${where}: ${problem}`);
        ++failures;
      }
      if (result.problems.length === 0)
        console.log(`ok: ${where}: ${result.texts} text boxes, ${result.charts} charts, page ${result.pageWidth} px wide`);
      if (shots) {
        // The charts of a report; the top of a comparison or a job's ranks page.
        const charts = page.locator('div.charts');
        const height = await page.evaluate(() => document.documentElement.scrollHeight);
        const png = (await charts.count()) > 0
          ? await charts.first().screenshot({ type: 'png', animations: 'disabled' })
          : await page.screenshot({ type: 'png', fullPage: true, clip: { x: 0, y: 0, width, height: Math.min(height, 1400) } });
        writeFileSync(join(shots, `${basename(file, '.html')}_${width}.png`), png);
        if (width === widths.at(-1))  // the whole window at the widest: the page centred, nothing beside it
          writeFileSync(join(shots, `${basename(file, '.html')}_${width}_window.png`), await page.screenshot({ type: 'png' }));
      }
    }
  }
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
console.log(`${checks - failures} passed, ${failures} failed`);
process.exit(failures > 0 ? 1 : 0);
