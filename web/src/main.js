// The verifier page: reads the reports embedded by 'appraise view', or
// dropped, chosen or pasted by the reader, verifies them (verify.js) and
// shows the verdict and every verified report (render.js). Nothing leaves
// the page: there is no network access.
import { h, table } from "./dom.js";
import { verifyReports } from "./verify.js";
import { parsePublicKeyFile, kindOfJSON, decodeBase64 } from "./keys.js";
import * as render from "./render.js";

const state = { inputs: [], pin: null, pinError: "", notes: [] };
const $ = (id) => document.getElementById(id);

function embedded() {
  const data = JSON.parse($("appraise-data").textContent);
  if (!data) return;
  for (const f of data.files ?? []) state.inputs.push({ name: f.name, dir: f.dir ?? null, listed: Boolean(f.listed), beside: Boolean(f.beside), bytes: decodeBase64(f.data) });
  if (data.trust) setPin(data.trust.name, decodeBase64(data.trust.data));
}

function setPin(name, bytes) {
  try {
    state.pin = { ...parsePublicKeyFile(bytes), name };
    state.pinError = "";
  } catch (e) {
    state.pin = null;
    state.pinError = `${name}: ${e.message}`;
  }
}

// add takes one file the reader gave: a public key pins, a rotation
// statement is noted (this page does not follow rotations), anything else
// is a report to verify, replacing one of the same name.
function add(name, bytes) {
  let kind = "";
  try {
    kind = kindOfJSON(JSON.parse(new TextDecoder().decode(bytes)));
  } catch {
    // Not JSON: a report that will fail as malformed.
  }
  if (kind === "public-key" || (bytes.length < 100 && /^\s*[A-Za-z0-9+/]{43}=\s*$/.test(new TextDecoder().decode(bytes)))) {
    setPin(name, bytes);
    return;
  }
  if (kind === "rotation") {
    state.notes.push(`${name} is a key-rotation statement: this page does not follow rotations; use appraise verify --rotations`);
    return;
  }
  state.inputs = state.inputs.filter((f) => f.name !== name);
  state.inputs.push({ name, bytes, dir: null, listed: false });
}

async function addFiles(files) {
  for (const file of files) add(file.name, new Uint8Array(await file.arrayBuffer()));
  update();
}

function verdict(outs) {
  const v = $("verdict");
  delete v.dataset.ok;
  delete v.dataset.reason;
  if (state.pinError) {
    v.dataset.ok = "false";
    v.dataset.reason = "usage";
    v.textContent = `NOT verified: the public key given cannot be read: ${state.pinError}`;
    return;
  }
  if (outs.length === 0) {
    v.textContent = "No report yet: drop a card and its box here, choose them, or paste one.";
    return;
  }
  const failed = outs.filter((o) => !o.ok);
  v.dataset.ok = String(failed.length === 0);
  if (failed.length > 0) {
    const more = failed.length > 1 ? ` (and ${failed.length - 1} more of ${outs.length} reports)` : "";
    v.dataset.reason = failed[0].reason;
    v.textContent = `NOT verified: ${failed[0].name}: ${failed[0].error}${more}`;
    return;
  }
  const cards = outs.filter((o) => o.kind === "card").length;
  const what = `${outs.length} report${outs.length === 1 ? "" : "s"} (${cards} card${cards === 1 ? "" : "s"}, ${outs.length - cards} box${outs.length - cards === 1 ? "" : "es"})`;
  const keys = [...new Set(outs.map((o) => `${o.fingerprint} (tenant "${o.tenant}")`))].join(", ");
  if (state.pin) {
    v.textContent = `verified: ${what}, signed by the pinned key ${keys}; every signature, format rule and box link checked.`;
  } else {
    v.dataset.pinned = "false";
    v.textContent = `verified, but the key is NOT PINNED: ${what} carry valid signatures by key ${keys}, which nothing here ties to the tenant; give the tenant's public key to pin it.`;
  }
}

function keyStatus(outs) {
  const k = $("key-status");
  const signers = [...new Set(outs.filter((o) => o.fingerprint).map((o) => o.fingerprint))];
  if (state.pin) {
    k.dataset.pinned = "true";
    k.textContent = `Pinned key: ${state.pin.fingerprint}${state.pin.tenant ? ` (tenant "${state.pin.tenant}")` : ""}, from ${state.pin.name}.`;
  } else {
    k.dataset.pinned = "false";
    k.textContent = `Not pinned: no public key given. ${signers.length ? `The reports name key ${signers.join(", ")}; ` : ""}a valid signature by a key nobody vouched for shows only that the file is unchanged since someone signed it.`;
  }
}

function outcomes(outs) {
  const rows = outs.map((o) => {
    const tr = h("tr", { "data-file": o.name, "data-ok": String(o.ok), "data-reason": o.reason ?? "" },
      h("td", {}, o.name), h("td", {}, o.kind), h("td", { class: o.ok ? "ok" : "fail" }, o.ok ? "ok" : `FAIL (${o.reason})`),
      h("td", {}, o.fingerprint ?? "-"), h("td", {}, o.trust ?? "-"), h("td", {}, o.ok ? (o.box ? `box ${o.box}` : "") : o.error));
    return tr;
  });
  const t = table(["file", "kind", "result", "key", "trust", "detail"], []);
  t.querySelector("tbody").append(...rows);
  $("outcomes").replaceChildren(outs.length ? t : "", ...state.notes.map((n) => h("p", { class: "note" }, n)));
}

function update() {
  const start = performance.now();
  const outs = verifyReports(state.inputs, state.pin);
  verdict(outs);
  keyStatus(outs);
  outcomes(outs);
  const shown = outs.filter((o) => o.ok).sort((a, b) => (a.kind === b.kind ? 0 : a.kind === "card" ? -1 : 1));
  $("reports").replaceChildren(...shown.map((o) => (o.kind === "card" ? render.card(o) : render.box(o))));
  const end = performance.now();
  // For benchmarks: how long this verification and rendering took, and
  // when it ended counted from the start of navigation.
  document.documentElement.dataset.verdictMs = (end - start).toFixed(1);
  document.documentElement.dataset.verdictAtMs = end.toFixed(1);
}

function wire() {
  const drop = $("drop");
  document.addEventListener("dragover", (e) => {
    e.preventDefault();
    drop.classList.add("over");
  });
  document.addEventListener("dragleave", () => drop.classList.remove("over"));
  document.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    addFiles([...(e.dataTransfer?.files ?? [])]);
  });
  $("files").addEventListener("change", (e) => addFiles([...e.target.files]));
  let pasted = 0;
  $("paste-add").addEventListener("click", () => {
    const text = $("paste").value.trim();
    if (!text) return;
    add(`pasted-${++pasted}.json`, new TextEncoder().encode(text));
    $("paste").value = "";
    update();
  });
  $("clear").addEventListener("click", () => {
    Object.assign(state, { inputs: [], pin: null, pinError: "", notes: [] });
    update();
  });
}

wire();
embedded();
update();
