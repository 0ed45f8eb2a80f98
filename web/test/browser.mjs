// Drives Debian's chromium, headless, through playwright-core (which
// never downloads a browser here: executablePath names the system's), for
// the Go test cmd/appraise/view_browser_test.go:
//
//   node web/test/browser.mjs CASES.json RESULTS.json
//
// CASES.json is a list of { name, page, drop, screenshot }: page is an
// index.html that 'appraise view' wrote, or the bare page to drop the
// files of drop ([{ name, path }]) onto, by a drop event, through the
// file chooser and pasted. RESULTS.json receives, per case, the verdict's text and
// attributes, each file's row, the sections shown and every console
// error. CHROMIUM names the browser (default /usr/bin/chromium).
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const [casesPath, resultsPath] = process.argv.slice(2);
const cases = JSON.parse(readFileSync(casesPath, "utf8"));

// The flags keep chromium off the network, which this machine has not.
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"],
});

async function readPage(page) {
  await page.waitForFunction(() => /^(verified|NOT verified)/.test(document.getElementById("verdict").textContent));
  return page.evaluate(() => {
    const v = document.getElementById("verdict");
    return {
      verdict: v.textContent,
      ok: v.dataset.ok ?? "",
      reason: v.dataset.reason ?? "",
      pinned: document.getElementById("key-status").dataset.pinned ?? "",
      files: [...document.querySelectorAll("#outcomes tr[data-file]")].map((r) => ({ file: r.dataset.file, ok: r.dataset.ok === "true", reason: r.dataset.reason })),
      cards: [...document.querySelectorAll("article.card")].map((a) => ({
        file: a.dataset.file,
        sections: [...a.querySelectorAll("section[data-section]")].map((s) => s.dataset.section),
        plots: a.querySelectorAll("svg.plot").length,
        text: a.innerText,
      })),
      verdictMs: Number(document.documentElement.dataset.verdictMs),
    };
  });
}

// drop dispatches a drop event carrying the files, as a reader's drag
// from a file manager does.
async function drop(page, files) {
  const payload = files.map((f) => ({ name: f.name, data: readFileSync(f.path).toString("base64") }));
  await page.evaluate((fs) => {
    const dt = new DataTransfer();
    for (const f of fs) dt.items.add(new File([Uint8Array.from(atob(f.data), (c) => c.charCodeAt(0))], f.name, { type: "application/json" }));
    document.getElementById("drop").dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, payload);
}

const results = [];
for (const c of cases) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  // No step has a time limit of its own: on a busy 2-core machine filling
  // the text box with a report took over playwright's default 30 s. The
  // Go test that runs this script stops it at its own deadline.
  page.setDefaultTimeout(0);
  const errors = [];
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(pathToFileURL(c.page).href);
  const r = { name: c.name, errors };
  if (c.drop) {
    await page.waitForFunction(() => document.getElementById("verdict").textContent.startsWith("No report yet"));
    await drop(page, c.drop);
    Object.assign(r, await readPage(page));
    // The same files through the file chooser, on a fresh page.
    await page.reload();
    await page.waitForFunction(() => document.getElementById("verdict").textContent.startsWith("No report yet"));
    await page.setInputFiles("#files", c.drop.map((f) => f.path));
    const chosen = await readPage(page);
    r.chooser = { verdict: chosen.verdict, ok: chosen.ok, reason: chosen.reason };
    // And pasted, one file after the other, into the text box.
    await page.reload();
    await page.waitForFunction(() => document.getElementById("verdict").textContent.startsWith("No report yet"));
    for (const f of c.drop) {
      await page.fill("#paste", readFileSync(f.path, "utf8"));
      await page.click("#paste-add");
    }
    const pasted = await readPage(page);
    r.pasted = { verdict: pasted.verdict, ok: pasted.ok, reason: pasted.reason };
  } else {
    Object.assign(r, await readPage(page));
  }
  if (c.screenshot) await page.screenshot({ path: c.screenshot, fullPage: true });
  results.push(r);
  await page.close();
}
await browser.close();
writeFileSync(resultsPath, JSON.stringify(results, null, 2));
