// Figures in units a person reads: decimal prefixes for rates (1 GB/s =
// 1e9 bytes/s, as the reports count), binary ones for sizes, µs and ms for
// latencies.

function scaled(v, unit, digits = 3) {
  const steps = [[1e15, "P"], [1e12, "T"], [1e9, "G"], [1e6, "M"], [1e3, "k"]];
  for (const [f, p] of steps) {
    if (Math.abs(v) >= f) return `${sig(v / f, digits)} ${p}${unit}`;
  }
  return `${sig(v, digits)} ${unit}`;
}

// sig writes v with at least one decimal and about `digits` significant
// digits: 4.89, 48.9, 489.1.
function sig(v, digits) {
  const a = Math.abs(v);
  const dec = a >= 100 ? 1 : a >= 10 ? Math.max(1, digits - 2) : Math.max(1, digits - 1);
  return v.toFixed(dec);
}

export const bytesPerS = (v) => scaled(v, "B/s");

// isInteger says whether a type name is an integer type (its rate is in
// OP/s, not FLOP/s).
export const isIntegerType = (t) => /^u?int/.test(t ?? "");

export function opsPerS(v, type) {
  return scaled(v, isIntegerType(type) ? "OP/s" : "FLOP/s");
}

export function seconds(v) {
  if (v < 1e-3) return `${sig(v * 1e6, 3)} µs`;
  if (v < 1) return `${sig(v * 1e3, 3)} ms`;
  if (v < 120) return `${sig(v, 3)} s`;
  return `${Math.floor(v / 60)} min ${Math.round(v % 60)} s`;
}

export function bytes(v) {
  const units = [[2 ** 40, "TiB"], [2 ** 30, "GiB"], [2 ** 20, "MiB"], [2 ** 10, "KiB"]];
  for (const [f, u] of units) {
    if (v >= f) return `${sig(v / f, 3)} ${u}`;
  }
  return `${v} B`;
}

export const percent = (r, digits = 1) => `${(r * 100).toFixed(digits)} %`;
export const signedPercent = (r) => `${r >= 0 ? "+" : "−"}${Math.abs(r * 100).toFixed(1)} %`;
export const ratio = (r) => r.toFixed(3);
export const celsius = (v) => `${v.toFixed(1)} °C`;
export const watts = (v) => `${v.toFixed(0)} W`;
export const count = (n) => n.toLocaleString("en-US");

// stat writes a sample summary: "4.89 TB/s (4.85–4.90, 20 samples)".
export function stat(s, fmt) {
  return `${fmt(s.median)} (${fmt(s.min)} – ${fmt(s.max)}, ${s.samples} sample${s.samples === 1 ? "" : "s"})`;
}

// valueIn writes v in a named unit of the reports ("bytes/s", "ops/s").
export function valueIn(v, unit, type) {
  if (unit === "bytes/s") return bytesPerS(v);
  if (unit === "ops/s") return opsPerS(v, type);
  if (unit === "s") return seconds(v);
  return String(v);
}

// figureUnit guesses the unit of a figure from its name, as the figures
// lists name them ("memory.bandwidth.copy", "precision.fma.fp32").
export function figureUnit(name) {
  if (/bandwidth|interconnect|bytes_per_s|host_to_device|device_to_host/.test(name)) return "bytes/s";
  if (/^precision|ops_per_s|mixbench|fma|mad|dot4|gemm/.test(name)) return "ops/s";
  if (/_s$|latency|launch/.test(name)) return "s";
  return "";
}
