#!/usr/bin/env node
// An independent verifier of appraise reports, written from the format's
// description alone (RFC 8785 canonical JSON + RFC 8032 Ed25519), sharing
// no code with appraise:
//
//   node scripts/verify-independent.mjs CARD BOX
//
// It canonicalises each payload, checks each signature against the key the
// report names, and checks that the card's box_report is the SHA-256 of the
// box's canonical payload. Exit 0 when all hold, 1 otherwise.
import { createHash, createPublicKey, verify } from "node:crypto";
import { readFileSync } from "node:fs";

// RFC 8785: object members sorted by UTF-16 code units (JavaScript's
// default string order), no whitespace, ES6 number and string forms
// (JSON.stringify's).
function canonical(v) {
  if (v === null || typeof v !== "object") return JSON.stringify(v);
  if (Array.isArray(v)) return "[" + v.map(canonical).join(",") + "]";
  return "{" + Object.keys(v).sort().map((k) => JSON.stringify(k) + ":" + canonical(v[k])).join(",") + "}";
}

// An Ed25519 public key as DER SubjectPublicKeyInfo: fixed prefix + 32 bytes.
function ed25519Key(b64) {
  const raw = Buffer.from(b64, "base64");
  if (raw.length !== 32) throw new Error("tenant_pubkey is not 32 bytes");
  const spki = Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), raw]);
  return createPublicKey({ key: spki, format: "der", type: "spki" });
}

function check(path) {
  const report = JSON.parse(readFileSync(path, "utf8"));
  const bytes = Buffer.from(canonical(report.payload), "utf8");
  const s = report.signature;
  if (s.alg !== "ed25519") throw new Error(`${path}: alg ${s.alg}`);
  if (!verify(null, bytes, ed25519Key(s.tenant_pubkey), Buffer.from(s.sig, "base64"))) {
    throw new Error(`${path}: signature does not verify`);
  }
  return { report, hash: createHash("sha256").update(bytes).digest("hex") };
}

try {
  const [cardPath, boxPath] = process.argv.slice(2);
  const card = check(cardPath);
  const box = check(boxPath);
  if (card.report.payload.box_report !== box.hash) throw new Error("card does not link this box");
  if (card.report.signature.tenant_pubkey !== box.report.signature.tenant_pubkey) throw new Error("card and box signed by different keys");
  console.log(`ok: ${cardPath} and ${boxPath} verify under ${card.report.signature.tenant_pubkey}`);
} catch (e) {
  console.error(`verify-independent: ${e.message}`);
  process.exit(1);
}
