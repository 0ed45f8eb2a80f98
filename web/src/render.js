// What a person sees of a verified report: each section of a card, or
// the run of a box, in units a person reads. Only verified reports are
// shown: the figures are signed data or nothing.
import { h, table, dl, section } from "./dom.js";
import * as f from "./format.js";
import { roofline, timeline } from "./plots.js";
import { crossCheckAgrees } from "./rules.js";

const num = (s) => h("td", { class: "num" }, s);

export function checkText(c) {
  const err = c.error_kind === "exact" ? "exact" : `${c.error_kind} error ${c.max_error.toPrecision(2)} ≤ ${c.tolerance.toPrecision(2)}`;
  return `${c.passed ? "passed" : "FAILED"}: ${c.reference} reference, ${err}, ${f.count(c.elements)} elements`;
}

function precisionName(p) {
  let types = p.input_type + (p.input_type_b ? `×${p.input_type_b}` : "");
  types += ` → ${p.accumulator_type}` + (p.output_type ? ` → ${p.output_type}` : "");
  if (p.operation !== "gemm" && !p.input_type_b && !p.output_type && p.accumulator_type === p.input_type) types = p.input_type;
  let name = `${p.operation} ${types}`;
  if (p.scaling) name += ` (${p.scaling})`;
  return name;
}

function shapeText(s) {
  if (!s) return "";
  const frag = `${s.m}×${s.n}×${s.k} ${s.scope}`;
  const problem = s.scope === "library" ? "" : `, problem ${s.problem_m}×${s.problem_n}×${s.problem_k}`;
  return frag + problem + (s.b_column_major ? ", B column-major" : "") + (s.tile ? `, tile ${s.tile}` : "");
}

function precisions(ps) {
  return table(
    ["figure", "rate (median)", "min – max, samples", "matrix engine", "shape", "probe", "check", "timing"],
    ps.map((p) => [
      h("td", {}, precisionName(p), h("div", { class: "sub" }, `counted ${p.op_counting}`)),
      num(f.opsPerS(p.ops_per_s.median, p.input_type)),
      num(`${f.opsPerS(p.ops_per_s.min, p.input_type)} – ${f.opsPerS(p.ops_per_s.max, p.input_type)}, ${p.ops_per_s.samples}`),
      p.matrix_engine ? "yes" : "no",
      shapeText(p.shape),
      h("td", {}, p.probe, p.kernel ? h("div", { class: "sub" }, p.kernel) : null),
      checkText(p.check),
      p.timing,
    ]),
    "figures",
  );
}

function bandwidths(bs) {
  if (!bs) return "";
  return table(
    ["kernel", "bandwidth (median)", "min – max, samples", "array", "bytes/element", "probe", "check", "timing"],
    bs.map((b) => [
      b.kernel,
      num(f.bytesPerS(b.bytes_per_s.median)),
      num(`${f.bytesPerS(b.bytes_per_s.min)} – ${f.bytesPerS(b.bytes_per_s.max)}, ${b.bytes_per_s.samples}`),
      num(f.bytes(b.array_bytes)),
      num(String(b.bytes_per_element) + (b.elements_per_invocation ? `, ${b.elements_per_invocation} per invocation` : "")),
      b.probe,
      checkText(b.check),
      b.timing,
    ]),
    "figures",
  );
}

function memory(m) {
  const parts = [dl([
    ["physical", m.physical_bytes !== undefined ? f.bytes(m.physical_bytes) : undefined],
    ["usable", m.usable_bytes !== undefined ? f.bytes(m.usable_bytes) + (m.usable_limited_by ? ` (limited by: ${m.usable_limited_by})` : "") : undefined],
  ])];
  if (m.bandwidth) parts.push(bandwidths(m.bandwidth));
  const i = m.integrity;
  if (i) {
    parts.push(h("h4", {}, "integrity"), dl([
      ["errors", i.errors === 0 ? "0 (every word read back right)" : `${f.count(i.errors)} words read back wrong`],
      ["tested", `${f.bytes(i.bytes_tested)}${i.usable_fraction ? ` (${f.percent(i.usable_fraction)} of usable)` : ""}, ${i.passes} pass${i.passes === 1 ? "" : "es"} at ${f.bytesPerS(i.bytes_per_s)}`],
      ["patterns", i.patterns.join(", ")],
      ["probe", i.probe],
    ]));
  }
  return section("memory", "Memory", ...parts);
}

// transferTable is a table of named transfers; the column of other paths
// shows only for older cards, which name them.
function transferTable(named) {
  const other = named.some(([, t]) => t.other_path);
  const rows = named.map(([name, t]) => [
    name,
    num(f.bytesPerS(t.bytes_per_s.median)),
    num(`${f.bytesPerS(t.bytes_per_s.min)} – ${f.bytesPerS(t.bytes_per_s.max)}, ${t.bytes_per_s.samples}`),
    num(f.bytes(t.transfer_bytes)),
    h("td", {}, t.path, h("div", { class: "sub" }, t.probe)),
    ...(other ? [t.other_path ? `${f.bytesPerS(t.other_path.bytes_per_s.median)} via ${t.other_path.path} (${t.other_path.probe})` : ""] : []),
    checkText(t.check),
  ]);
  const head = ["link", "rate (median)", "min – max, samples", "transfer", "path, probe", ...(other ? ["other path (not kept)"] : []), "check"];
  return table(head, rows, "figures");
}

function interconnect(ic) {
  const named = [];
  if (ic.host_to_device) named.push(["host → device", ic.host_to_device]);
  if (ic.device_to_host) named.push(["device → host", ic.device_to_host]);
  for (const p of ic.peers ?? []) {
    named.push([`→ ${p.peer}, one way`, p.one_way]);
    if (p.both_ways) named.push([`→ ${p.peer}, both ways at once`, p.both_ways]);
  }
  const parts = [transferTable(named)];
  const lat = (ic.peers ?? []).filter((p) => p.latency_s);
  if (lat.length) parts.push(dl(lat.map((p) => [`latency to ${p.peer} (4 KiB)`, f.stat(p.latency_s, f.seconds)])));
  return section("interconnect", "Interconnect", ...parts);
}

function launch(l) {
  const other = (l.other_paths ?? []).map((o) => [`other path: ${o.figure}`, `${f.seconds(o.latency_s.median)} via ${o.path} (${o.probe})`]);
  return section("launch", "Launch overhead", dl([
    ["empty dispatch, round trip", f.stat(l.empty_dispatch_s, f.seconds)],
    ["1 MiB upload", f.stat(l.upload_1mib_s, f.seconds)],
    ["dispatch path", l.dispatch_path],
    ["upload path", l.upload_path],
    ["probe", [l.probe, l.upload_probe].filter(Boolean).join(", ")],
    ["check", checkText(l.check)],
    ["timing", l.timing],
    ...other,
  ]));
}

function thermal(t) {
  const type = /u?int/.test(t.workload) ? "int" : "fp";
  const parts = [dl([
    ["throttled", t.throttled ? `yes${t.time_to_throttle_s !== undefined ? `, after ${f.seconds(t.time_to_throttle_s)}` : ""}` : "no"],
    ["sustained ÷ cold", `${f.ratio(t.throttled_fraction)} (${f.opsPerS(t.sustained_ops_per_s, type)} ÷ ${f.opsPerS(t.cold_ops_per_s, type)})`],
    ["sustained power", t.sustained_power_w !== undefined ? f.watts(t.sustained_power_w) : undefined],
    ["peak temperature", t.peak_temperature_c !== undefined ? f.celsius(t.peak_temperature_c) : undefined],
    ["soak", `${f.seconds(t.soak_s)} of ${t.workload}, ${t.points} timed pieces`],
    ["telemetry", t.telemetry],
    ["probe", t.probe],
  ])];
  if (t.timeline?.length) parts.push(h("figure", {}, timeline(t, type)));
  return section("thermal", "Thermal", ...parts);
}

function rooflines(rs) {
  return section("roofline", "Roofline", ...rs.map((r) => {
    const type = /int/.test(r.precision) ? "int" : "fp";
    return h("figure", {}, roofline(r, type), h("figcaption", {}, `${r.probe}, ${r.timing}; check ${checkText(r.check)}`));
  }));
}

function figureValue(name, v) {
  const unit = f.figureUnit(name);
  return unit ? f.valueIn(v, unit, /\.u?int\d/.test(name) ? "int" : "fp") : String(v);
}

function crossChecks(cs) {
  return section("cross_checks", "Cross-checks with standard tools", table(
    ["our figure", "ours", "tool", "theirs", "ours vs theirs", "rule", "accepts", "verdict"],
    cs.map((c) => [
      c.figure,
      num(figureValue(c.figure, c.ours)),
      `${c.tool} ${c.tool_version}: ${c.tool_figure}`,
      num(figureValue(c.figure, c.theirs)),
      num(f.signedPercent(c.relative_delta)),
      c.rule || "within",
      c.rule === "at-least"
        ? h("td", {}, `ours ≥ theirs − ${f.percent(c.tolerance)}` + (c.max_ratio !== undefined ? `, ours ≤ ${c.max_ratio.toFixed(3)} × theirs` : ", ours ≤ 2 × theirs"),
          c.ceiling_reason ? h("div", { class: "sub" }, c.ceiling_reason) : null)
        : `|delta| ≤ ${f.percent(c.tolerance)}`,
      crossCheckAgrees(c) ? "agrees" : "DISAGREES",
    ]),
    "figures",
  ));
}

function consistency(ks) {
  return section("consistency", "Consistency of the card's own figures", table(
    ["rule", "figure", "other figure", "ratio", "accepted band", "verdict"],
    ks.map((k) => [
      k.rule,
      `${k.figure}: ${f.valueIn(k.value, k.unit)}`,
      `${k.other_figure}: ${f.valueIn(k.other_value, k.unit)}`,
      num(f.ratio(k.ratio)),
      num(`${f.ratio(k.min_ratio)} – ${f.ratio(k.max_ratio)}`),
      (k.agrees ? "agrees" : "DISAGREES") + (k.remeasured ? " (re-measured)" : ""),
    ]),
    "figures",
  ));
}

function identity(id) {
  return section("identity", "Identity (metadata: recorded, never used in scoring)", dl([
    ["name", id.name],
    ["vendor:device", `${id.vendor_id}:${id.device_id}`],
    ["subsystem", id.subsystem_vendor_id ? `${id.subsystem_vendor_id}:${id.subsystem_device_id ?? ""}` : undefined],
    ["bus address", id.bus_address],
    ["serial", id.serial],
    ["UUID", id.uuid],
    ["VBIOS hash", id.vbios_hash ? `${id.vbios_hash} (of the ${id.vbios_hash_source === "rom" ? "ROM" : "vendor's version string"})` : undefined],
    ["adapter type", id.adapter_type + (id.software ? " — a SOFTWARE adapter (the host's CPU), not a GPU" : "")],
  ]));
}

// sharedUse says whether anything else used the device during the run.
function sharedUse(s) {
  if (!s) return undefined;
  if (!s.checked) return `not checked: ${s.not_checked_reason}`;
  if (!s.others_found) return `none found (looked for by ${s.methods.join(", ")})`;
  const who = (s.processes ?? []).map((p) => `pid ${p.pid}${p.name ? " " + p.name : ""}` +
    `${p.used_memory_bytes !== undefined ? ", " + f.bytes(p.used_memory_bytes) : ""} (${p.source}, ${p.first_seen_s > 0 ? "from " + f.seconds(p.first_seen_s) + " in" : "before probing"})`);
  return `SHARED, signed with --allow-shared: ${who.length ? who.join("; ") : "the device was busy before probing, with no process visible to appraise"}`;
}

function environment(e, probes) {
  const parts = [dl([
    ["driver", e.driver_version],
    ["backend", e.backend],
    ["ambient", e.ambient_c !== undefined ? `${f.celsius(e.ambient_c)} (${e.ambient_source})` : undefined],
    ["run duration", f.seconds(e.run_duration_s)],
    ["probe suite", e.probe_suite_version],
    ["mode", e.mode],
    ["host", `${e.os}/${e.arch}`],
    ["probes", probes.map((p) => `${p.name} v${p.version}`).join(", ")],
    ["other users", sharedUse(e.shared_use)],
  ])];
  if (e.libraries?.length) {
    parts.push(table(["library", "version", "probe", "file", "found by"], e.libraries.map((l) => [l.name, l.version, l.probe, l.path, l.source])));
  }
  return section("environment", "Probe environment", ...parts);
}

function omitted(c) {
  const parts = [];
  if (c.not_measured?.length) {
    parts.push(h("h4", {}, "not measured"), table(["field", "why"], c.not_measured.map((o) => [o.field, o.reason])));
  }
  if (c.skipped?.length) {
    parts.push(h("h4", {}, "skipped"), table(["probe", "item", "why"], c.skipped.map((s) => [s.probe, s.item, s.reason])));
  }
  return parts.length ? section("not_measured", "Not measured and skipped", ...parts) : null;
}

// card renders a verified card outcome.
export function card(o) {
  const p = o.report.payload;
  const c = p.capability;
  const id = c.identity;
  return h("article", { class: "report card", "data-file": o.name },
    h("h2", {}, id.name || "device", id.software ? h("span", { class: "badge warn" }, "software adapter") : null),
    h("p", { class: "meta" }, `${o.name} — card of ${id.bus_address || "a device without a bus address"}, probed ${p.probed_at}, ${c.environment.mode} mode; box ${p.box_report.slice(0, 12)}… (${o.box})`),
    identity(id),
    c.precisions ? section("precisions", "Precisions", precisions(c.precisions)) : null,
    c.memory ? memory(c.memory) : null,
    c.interconnect ? interconnect(c.interconnect) : null,
    c.launch_overhead ? launch(c.launch_overhead) : null,
    c.thermal ? thermal(c.thermal) : null,
    c.roofline ? rooflines(c.roofline) : null,
    c.cross_checks ? crossChecks(c.cross_checks) : null,
    c.consistency ? consistency(c.consistency) : null,
    omitted(c),
    environment(c.environment, c.probes),
  );
}

// box renders a verified box outcome: the run's host.
export function box(o) {
  const b = o.report.payload;
  const parts = [dl([
    ["host", `${b.host.hostname} (${b.host.os}/${b.host.arch}, ${b.host.logical_cpus} logical CPUs)`],
    ["CPU", b.host.cpu_model],
    ["board", b.host.dmi_string],
    ["devices present", b.present_devices.join(", ")],
    ["drivers", b.driver_versions.map((d) => `${d.bus_address}: ${d.driver_version}`).join("; ")],
    ["ambient", b.ambient_c !== undefined ? f.celsius(b.ambient_c) : undefined],
    ["probe suite", b.probe_suite_version],
  ])];
  const hb = b.host_baseline;
  if (hb) {
    parts.push(section("host_baseline", `Host CPU baseline (${hb.threads} threads, ${hb.isa})`, bandwidths(hb.bandwidth), precisions(hb.precisions)));
  }
  const hl = b.host_links;
  if (hl) {
    const named = hl.devices.flatMap((d) => [[`host → ${d.bus_address}`, d.host_to_device], [`${d.bus_address} → host`, d.device_to_host]]);
    parts.push(section("host_links", "Host links, every device at once", transferTable(named),
      dl([["host → devices, sum", f.bytesPerS(hl.host_to_device_bytes_per_s)], ["devices → host, sum", f.bytesPerS(hl.device_to_host_bytes_per_s)]])));
  }
  if (b.not_measured?.length) parts.push(section("not_measured", "Not measured", table(["field", "why"], b.not_measured.map((x) => [x.field, x.reason]))));
  return h("article", { class: "report box", "data-file": o.name },
    h("h2", {}, `Run on ${b.host.hostname}`),
    h("p", { class: "meta" }, `${o.name} — box report, probed ${b.probed_at}`),
    ...parts);
}
