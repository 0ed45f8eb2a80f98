// The format's rules beyond its JSON Schema that this page checks on a
// report whose signature verified. They are a subset of appraise's
// validator (schema/validate.go, complete.go, consistency.go): the ones a
// reader of the card relies on, that every figure passed its check, that
// each absent section is explained, that cross-checks and consistency
// checks hold by their own rules. appraise verify applies every rule.

// cardRules returns the rule failures of a card payload, as
// "path: what is wrong" strings.
export function cardRules(p) {
  const out = [];
  common(p, out);
  if (!/^[0-9a-f]{64}$/.test(p.box_report)) out.push(`box_report: value ${p.box_report} fails rule "sha256hex"`);
  const c = p.capability;
  walk(c, "capability", out);
  omissions(optionalFields(c), c.not_measured, out);
  for (const x of c.cross_checks ?? []) {
    if (!crossCheckAgrees(x)) {
      const pct = (v) => (v * 100).toFixed(1);
      out.push(`capability.cross_checks: ${x.figure} disagrees with ${x.tool} ${x.tool_figure} by ${x.relative_delta >= 0 ? "+" : ""}${pct(x.relative_delta)}% (tolerance ${pct(x.tolerance)}%, ${x.rule || "within"})`);
    }
  }
  const su = c.environment.shared_use;
  if (su?.others_found && !su.allowed) out.push("capability.environment.shared_use: another user was found but the run was not allowed to share the device");
  for (const k of c.consistency ?? []) {
    const within = k.ratio >= k.min_ratio && k.ratio <= k.max_ratio;
    if (k.agrees !== within) out.push(`capability.consistency: ${k.figure} vs ${k.other_figure}: agrees is ${k.agrees} but the ratio is ${within ? "inside" : "outside"} its band`);
    if (!k.agrees && !c.identity.software) out.push(`capability.consistency: ${k.figure} disagrees with ${k.other_figure} on a device that is not a software adapter`);
  }
  return out;
}

// boxRules returns the rule failures of a box payload.
export function boxRules(b) {
  const out = [];
  common(b, out);
  walk(b, "", out);
  const opts = [["ambient_c", b.ambient_c !== undefined], ["host_baseline", b.host_baseline !== undefined]];
  if (b.host_baseline !== undefined) opts.push(["host_baseline.bandwidth", (b.host_baseline.bandwidth || []).length > 0]);
  if (b.driver_versions.length > 1) opts.push(["host_links", b.host_links !== undefined]);
  else if (b.host_links !== undefined) out.push("not_measured: host_links in a run of one device");
  omissions(opts, b.not_measured, out);
  return out;
}

function common(p, out) {
  if (p.report_version !== "1") out.push(`report_version: value ${p.report_version} fails rule "eq=1"`);
  if (!rfc3339UTC(p.probed_at)) out.push(`probed_at: value ${p.probed_at} fails rule "rfc3339utc"`);
}

// rfc3339UTC accepts what Go's RFC 3339 formatting in UTC writes: "Z",
// and fractional seconds only without trailing zeros.
function rfc3339UTC(s) {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d*[1-9])?Z$/.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]));
  return d.getUTCFullYear() === +m[1] && d.getUTCMonth() === +m[2] - 1 && d.getUTCDate() === +m[3] && +m[4] < 24 && +m[5] < 60 && +m[6] < 60;
}

// walk checks every reference check and every sample summary below v.
function walk(v, path, out) {
  if (Array.isArray(v)) {
    v.forEach((e, i) => walk(e, `${path}[${i}]`, out));
    return;
  }
  if (v === null || typeof v !== "object") return;
  for (const [k, x] of Object.entries(v)) {
    const at = path ? `${path}.${k}` : k;
    if (k === "check" && x && x.passed !== true) out.push(`${at}.passed: value ${x.passed} fails rule "eq=true"`);
    if (k === "check" && x && !(x.max_error <= x.tolerance)) out.push(`${at}.max_error: value ${x.max_error} is above the tolerance ${x.tolerance}`);
    if (isStat(x)) {
      if (!(x.samples >= 1)) out.push(`${at}.samples: value ${x.samples} fails rule "gte=1"`);
      if (!(x.min > 0 && x.min <= x.median && x.median <= x.max)) out.push(`${at}: min ${x.min}, median ${x.median}, max ${x.max} are not ordered and positive`);
    }
    walk(x, at, out);
  }
}

function isStat(x) {
  return x !== null && typeof x === "object" && "samples" in x && "median" in x && "min" in x && "max" in x;
}

// crossCheckAgrees is the cross-check's rule (schema.CrossCheck.Agrees).
export function crossCheckAgrees(c) {
  if (c.rule !== "at-least") return Math.abs(c.relative_delta) <= c.tolerance;
  if (c.relative_delta < -c.tolerance) return false;
  if (c.max_ratio !== undefined) return c.ours <= c.max_ratio * c.theirs;
  return c.relative_delta <= 1;
}

// optionalFields lists every optional part of a vector that applies, with
// whether it is present (schema.optionalFields).
function optionalFields(c) {
  const has = (x) => x !== undefined && x !== "" && !(Array.isArray(x) && x.length === 0);
  const opts = [
    ["precisions", has(c.precisions)], ["memory", has(c.memory)], ["interconnect", has(c.interconnect)],
    ["launch_overhead", has(c.launch_overhead)], ["thermal", has(c.thermal)], ["roofline", has(c.roofline)],
    ["cross_checks", has(c.cross_checks)], ["environment.ambient_c", has(c.environment.ambient_c)],
    ["identity.bus_address", has(c.identity.bus_address)], ["identity.vbios_hash", has(c.identity.vbios_hash)],
    ["identity.serial", has(c.identity.serial)], ["identity.uuid", has(c.identity.uuid)],
  ];
  const m = c.memory;
  if (m) opts.push(["memory.physical_bytes", has(m.physical_bytes)], ["memory.usable_bytes", has(m.usable_bytes)], ["memory.bandwidth", has(m.bandwidth)], ["memory.integrity", has(m.integrity)]);
  const t = c.thermal;
  if (t) opts.push(["thermal.time_to_throttle_s", has(t.time_to_throttle_s)], ["thermal.sustained_power_w", has(t.sustained_power_w)], ["thermal.peak_temperature_c", has(t.peak_temperature_c)]);
  const ic = c.interconnect;
  if (ic) opts.push(["interconnect.host_to_device", has(ic.host_to_device)], ["interconnect.device_to_host", has(ic.device_to_host)], ["interconnect.peers", has(ic.peers)]);
  return opts;
}

// omissions checks that each optional part is present or listed once in
// not_measured, never both (schema.checkOmissions).
function omissions(opts, omitted = [], out) {
  const listed = new Set();
  for (const o of omitted) {
    if (listed.has(o.field)) out.push(`not_measured: field "${o.field}" is listed twice`);
    listed.add(o.field);
  }
  const known = new Set();
  for (const [path, present] of opts) {
    known.add(path);
    if (present && listed.has(path)) out.push(`not_measured: "${path}" is present but also listed as not measured`);
    if (!present && !listed.has(path)) out.push(`not_measured: "${path}" is absent without a reason in not_measured`);
  }
  for (const o of omitted) {
    if (!known.has(o.field)) out.push(`not_measured: "${o.field}" is not an optional field here`);
  }
}
