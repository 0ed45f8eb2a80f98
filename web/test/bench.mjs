// Page weight and time to verdict of the verifier page, in Debian's
// chromium, headless (a benchmark, not a test):
//
//   appraise view --out /tmp/view docs/example     # a 30 KB card and its box
//   node web/test/bench.mjs /tmp/view/index.html [LOADS]
//
// It loads the page LOADS times (default 20) in a fresh tab each time and
// prints the page's size (as written and gzipped) and the medians of:
// navigation start to verdict shown, and the verification plus rendering
// alone (the page's own performance.now() marks).
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const [page, loads = "20"] = process.argv.slice(2);
const html = readFileSync(page);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
});
const at = [], verify = [];
for (let i = 0; i < Number(loads); i++) {
  const p = await browser.newPage();
  await p.goto(pathToFileURL(page).href);
  await p.waitForFunction(() => document.documentElement.dataset.verdictAtMs);
  const d = await p.evaluate(() => ({ at: Number(document.documentElement.dataset.verdictAtMs), verify: Number(document.documentElement.dataset.verdictMs), text: document.getElementById("verdict").textContent }));
  if (i === 0) console.error(d.text);
  at.push(d.at);
  verify.push(d.verify);
  await p.close();
}
await browser.close();
const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
console.log(JSON.stringify({
  page_bytes: html.length,
  page_gzip_bytes: gzipSync(html, { level: 9 }).length,
  loads: Number(loads),
  navigation_to_verdict_ms_median: median(at),
  verify_and_render_ms_median: median(verify),
}));
