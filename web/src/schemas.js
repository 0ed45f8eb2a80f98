// The payload validators, from the report format's JSON Schemas
// (schema/card.schema.json, box.schema.json), per kind:
//   full   the schema as written: every member, types, nothing unknown
//   shape  members and types only: no member required and any value may
//          be null, as a strict reader decodes a payload before it checks
//          the signature (appraise decodes into its types, rejecting
//          unknown members and wrong types, and only later requires the
//          payload to re-encode to the bytes that were signed)
import { Validator } from "@cfworker/json-schema";
import { schemas } from "virtual:schemas";

function payloadSchema(s, kind) {
  return { $ref: `#/$defs/${kind === "card" ? "CardPayload" : "BoxPayload"}`, $defs: s.$defs };
}

function shapeOf(schema) {
  const s = structuredClone(schema);
  for (const def of Object.values(s.$defs)) {
    delete def.required;
    relax(def);
  }
  return s;
}

function relax(node) {
  if (node === null || typeof node !== "object") return;
  if (typeof node.type === "string") node.type = [node.type, "null"];
  for (const v of Object.values(node)) relax(v);
}

function validator(schema) {
  const v = new Validator(schema, "2020-12", true);
  return (value) => {
    const r = v.validate(value);
    return r.valid ? "" : describe(r.errors);
  };
}

// describe says in words what the innermost schema failure is.
function describe(errors) {
  const e = errors[errors.length - 1];
  const at = e.instanceLocation.replace(/^#/, "") || "/";
  if (e.keyword === "false") {
    // A member that no property and no additionalProperties allows.
    const cut = at.lastIndexOf("/");
    return `unknown object member name ${JSON.stringify(decodeURIComponent(at.slice(cut + 1)))} within "${at.slice(0, cut) || "/"}"`;
  }
  const extra = /^Property "(.*)" does not match additional properties schema/.exec(e.error);
  if (e.keyword === "additionalProperties" || extra) return `unknown object member name ${JSON.stringify(extra ? extra[1] : "")} within "${at}"`;
  const missing = /^Instance does not have required property "(.*)"/.exec(e.error);
  if (missing) return `missing member ${JSON.stringify(missing[1])} within "${at}"`;
  return `${at}: ${e.error}`;
}

export const validators = Object.fromEntries(
  ["card", "box"].map((kind) => [kind, { full: validator(payloadSchema(schemas[kind], kind)), shape: validator(shapeOf(payloadSchema(schemas[kind], kind))) }]),
);
