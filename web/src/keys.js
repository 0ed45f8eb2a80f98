// Keys as appraise writes them: standard base64 with padding for raw
// Ed25519 keys and signatures, a 16-hex-digit fingerprint, and the public
// key file that 'appraise keys export-public' prints.
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { parseStrict, decodeUTF8 } from "./strictjson.js";

const b64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

// decodeBase64 decodes standard base64 with padding, strictly: no
// whitespace, no missing padding, no stray bits in the last character
// (Go's base64.StdEncoding.Strict()). It returns null for anything else.
export function decodeBase64(s) {
  if (typeof s !== "string" || !b64.test(s)) return null;
  const bin = atob(s);
  const out = Uint8Array.from(bin, (c) => c.charCodeAt(0));
  return encodeBase64(out) === s ? out : null;
}

export function encodeBase64(bytes) {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

// fingerprint is the first 16 hex digits of the SHA-256 of a raw public
// key: a name for display, not a security boundary.
export function fingerprint(pub) {
  return bytesToHex(sha256(pub)).slice(0, 16);
}

const tenantPattern = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const wholeSecondsUTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

// parsePublicKeyFile reads what --trust reads: the JSON export form
// (format "appraise-public-key", version "1", tenant, pubkey, fingerprint,
// created_at) or a bare base64 key on one line. It returns
// { publicKey, tenant, fingerprint } or throws an Error saying why not.
export function parsePublicKeyFile(bytes) {
  const text = decodeUTF8(bytes).trim();
  if (!text.startsWith("{")) return { publicKey: parseKey(text), tenant: "", fingerprint: fingerprint(parseKey(text)) };
  const f = parseStrict(text);
  const fields = ["format", "version", "tenant", "pubkey", "fingerprint", "created_at"];
  for (const k of Object.keys(f)) {
    if (!fields.includes(k)) throw new Error(`public key file: unknown member ${JSON.stringify(k)}`);
  }
  if (f.format !== "appraise-public-key" || f.version !== "1") {
    throw new Error(`public key file: format ${JSON.stringify(f.format)} version ${JSON.stringify(f.version)}, want "appraise-public-key" version "1"`);
  }
  if (typeof f.tenant !== "string" || !tenantPattern.test(f.tenant)) throw new Error(`public key file: tenant ${JSON.stringify(f.tenant)} is not a tenant name`);
  const publicKey = parseKey(f.pubkey);
  const fp = fingerprint(publicKey);
  if (f.fingerprint !== fp) throw new Error(`public key file: fingerprint ${JSON.stringify(f.fingerprint)} does not match the key (${fp})`);
  if (typeof f.created_at !== "string" || !wholeSecondsUTC.test(f.created_at)) throw new Error("public key file: created_at is not RFC 3339 UTC with whole seconds");
  return { publicKey, tenant: f.tenant, fingerprint: fp };
}

function parseKey(s) {
  const k = decodeBase64(s);
  if (k === null || k.length !== 32) throw new Error("the public key is not a standard base64 Ed25519 key of 32 bytes");
  return k;
}

// kindOfJSON names what a JSON file is when it is not a report, "" when it
// has a report's shape (whether it verifies is verify's to say).
export function kindOfJSON(v) {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return "";
  if (v.format === "appraise-public-key") return "public-key";
  if (v.payload && v.payload.statement === "appraise-key-rotation") return "rotation";
  return "";
}
