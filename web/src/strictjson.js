// Strict JSON reading, as appraise reads a report before trusting any of
// it: the bytes must be UTF-8, and the text one JSON value with no
// duplicate member names, no lone surrogates, no number outside a
// double's range and nothing after it. Every failure is a ReportError of
// class "malformed".
import { parse } from "@humanwhocodes/momoa";
import { ReportError } from "./errors.js";

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

// decodeUTF8 turns bytes into text, refusing invalid UTF-8. A byte order
// mark is kept, so that the parser refuses it as appraise does.
export function decodeUTF8(bytes) {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new ReportError("malformed", "malformed report: invalid UTF-8");
  }
}

// parseStrict returns the value of a JSON text.
export function parseStrict(text) {
  if (text.trim() === "") throw new ReportError("malformed", "malformed report: empty file");
  let doc;
  try {
    doc = parse(text, { mode: "json", ranges: false, tokens: false });
  } catch (e) {
    throw new ReportError("malformed", `malformed report: ${e.message}`);
  }
  return build(doc.body, "");
}

// build converts one parsed node to its value, checking it on the way.
function build(node, path) {
  switch (node.type) {
    case "Object": {
      const out = {};
      const seen = new Set();
      for (const m of node.members) {
        const name = m.name.value;
        wellFormed(name, path);
        if (seen.has(name)) throw new ReportError("malformed", `malformed report: duplicate object member name ${JSON.stringify(name)} within "${path || "/"}"`);
        seen.add(name);
        // defineProperty, so that a member named __proto__ is a member.
        Object.defineProperty(out, name, { value: build(m.value, path + "/" + name), enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    case "Array":
      return node.elements.map((e, i) => build(e.value, `${path}/${i}`));
    case "String":
      wellFormed(node.value, path);
      return node.value;
    case "Number":
      if (!Number.isFinite(node.value)) throw new ReportError("malformed", `malformed report: number out of range within "${path}"`);
      return node.value;
    case "Boolean":
      return node.value;
    case "Null":
      return null;
  }
  throw new ReportError("malformed", `malformed report: unexpected ${node.type} within "${path}"`);
}

function wellFormed(s, path) {
  if (!s.isWellFormed()) throw new ReportError("malformed", `malformed report: invalid surrogate pair in string within "${path || "/"}"`);
}
