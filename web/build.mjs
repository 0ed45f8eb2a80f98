// Builds the verifier page: web/src bundled by esbuild with the report
// schemas (schema/card.schema.json and box.schema.json, descriptions
// left out), inlined with the style into one self-contained HTML file,
// web/dist/verify.html, which the Go binary embeds (web/web.go).
//
//   node build.mjs           write web/dist/verify.html
//   node build.mjs --check   fail if web/dist/verify.html is not what
//                            this build writes (CI: the committed file
//                            is generated, and reproducible)
//
// Every tool is pinned to an exact version in package.json and
// package-lock.json; the output depends on nothing else.
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "dist", "verify.html");

function readSchema(kind) {
  const s = JSON.parse(readFileSync(join(here, "..", "schema", `${kind}.schema.json`), "utf8"));
  // Descriptions are for people reading the schema; the code needs none.
  strip(s);
  return s;
}

function strip(node) {
  if (node === null || typeof node !== "object") return;
  delete node.description;
  for (const v of Object.values(node)) strip(v);
}

// schemasModule is the source of an ES module exporting the report
// schemas, descriptions left out: { card, box }.
function schemasModule() {
  return `export const schemas = ${JSON.stringify({ card: readSchema("card"), box: readSchema("box") })};\n`;
}

const virtualSchemas = {
  name: "schemas",
  setup(build) {
    build.onResolve({ filter: /^virtual:schemas$/ }, () => ({ path: "schemas", namespace: "virtual" }));
    build.onLoad({ filter: /.*/, namespace: "virtual" }, () => ({ contents: schemasModule(), resolveDir: here, loader: "js" }));
  },
};

async function page() {
  const js = await esbuild.build({
    entryPoints: [join(here, "src", "main.js")],
    bundle: true,
    write: false,
    format: "iife",
    minify: true,
    target: ["chrome111", "firefox115", "safari16.4"],
    legalComments: "eof",
    charset: "utf8",
    plugins: [virtualSchemas],
  });
  const script = js.outputFiles[0].text;
  if (script.includes("</script")) throw new Error("bundle holds </script, which would end the inline script");
  const css = readFileSync(join(here, "src", "style.css"), "utf8");
  const template = readFileSync(join(here, "src", "page.html"), "utf8");
  const parts = template.split(/<!-- (STYLE|SCRIPT) -->/);
  if (parts.length !== 5) throw new Error("page.html must hold one <!-- STYLE --> and one <!-- SCRIPT --> marker");
  return parts[0] + `<style>\n${css}</style>` + parts[2] + `<script>\n${script}</script>` + parts[4];
}

const html = await page();
if (process.argv.includes("--check")) {
  let committed = "";
  try {
    committed = readFileSync(out, "utf8");
  } catch {
    // Missing: reported below like any difference.
  }
  if (committed !== html) {
    console.error("web/dist/verify.html is not what web/build.mjs writes from web/src and schema/: run scripts/web-bundle and commit the result");
    process.exit(1);
  }
  console.log(`web/dist/verify.html is up to date (${html.length} bytes)`);
} else {
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, html);
  console.log(`wrote web/dist/verify.html (${html.length} bytes)`);
}
