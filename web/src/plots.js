// The card's two plots, drawn as SVG in the page from the signed data:
// the roofline (log-log: measured points over the model min(peak,
// bandwidth × intensity)) and the thermal timeline (throughput,
// temperature and power against time, one panel each).
import { bytesPerS, opsPerS, celsius, watts } from "./format.js";

const NS = "http://www.w3.org/2000/svg";

function el(name, attrs = {}, text) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

function svg(width, height, label) {
  return el("svg", { viewBox: `0 0 ${width} ${height}`, width, height, role: "img", "aria-label": label, class: "plot" });
}

// logTicks are the powers of ten within [lo, hi].
function logTicks(lo, hi) {
  const out = [];
  for (let e = Math.ceil(Math.log10(lo)); e <= Math.floor(Math.log10(hi)); e++) out.push(10 ** e);
  return out;
}

function linearTicks(lo, hi, n = 5) {
  const step0 = (hi - lo) / n;
  const mag = 10 ** Math.floor(Math.log10(step0));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= step0);
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + 1e-9 * step; v += step) out.push(v);
  return out;
}

// roofline draws one precision's sweep.
export function roofline(r, type) {
  const W = 560, H = 320, L = 78, R = 16, T = 28, B = 44;
  const s = svg(W, H, `roofline of ${r.precision}`);
  const xs = r.points.map((p) => p.intensity_ops_per_byte);
  const ys = r.points.flatMap((p) => [p.ops_per_s, p.model_ops_per_s]);
  const ridge = r.peak_ops_per_s / r.bandwidth_bytes_per_s;
  const x0 = Math.min(...xs, ridge) / 2, x1 = Math.max(...xs, ridge) * 2;
  const y0 = Math.min(...ys, r.bandwidth_bytes_per_s * x0) / 1.5, y1 = Math.max(...ys, r.peak_ops_per_s) * 1.6;
  const X = (v) => L + ((Math.log10(v) - Math.log10(x0)) / (Math.log10(x1) - Math.log10(x0))) * (W - L - R);
  const Y = (v) => H - B - ((Math.log10(v) - Math.log10(y0)) / (Math.log10(y1) - Math.log10(y0))) * (H - T - B);
  s.append(el("text", { x: L, y: 16, class: "title" }, `roofline ${r.precision}: ratio ${r.ratio.toFixed(3)}, at the ridge ${r.ridge_ratio.toFixed(3)}`));
  for (const t of logTicks(x0, x1)) {
    s.append(el("line", { x1: X(t), x2: X(t), y1: T, y2: H - B, class: "grid" }));
    s.append(el("text", { x: X(t), y: H - B + 16, class: "tick", "text-anchor": "middle" }, t >= 1 ? String(t) : t.toPrecision(1)));
  }
  for (const t of logTicks(y0, y1)) {
    s.append(el("line", { x1: L, x2: W - R, y1: Y(t), y2: Y(t), class: "grid" }));
    s.append(el("text", { x: L - 6, y: Y(t) + 4, class: "tick", "text-anchor": "end" }, opsPerS(t, type).replace(".0 ", " ")));
  }
  s.append(el("text", { x: (L + W - R) / 2, y: H - 8, class: "axis", "text-anchor": "middle" }, "arithmetic intensity (operations per byte of device memory)"));
  // The model: bandwidth slope up to the ridge, the peak after it.
  const model = [x0, ridge, x1].map((x) => `${X(x)},${Y(Math.min(r.peak_ops_per_s, r.bandwidth_bytes_per_s * x))}`).join(" ");
  s.append(el("polyline", { points: model, class: "model" }));
  s.append(el("text", { x: X(x0) + 6, y: Y(r.bandwidth_bytes_per_s * x0 * 1.3) - 4, class: "note" }, `${bytesPerS(r.bandwidth_bytes_per_s)}`));
  s.append(el("text", { x: W - R - 4, y: Y(r.peak_ops_per_s) - 6, class: "note", "text-anchor": "end" }, `peak ${opsPerS(r.peak_ops_per_s, type)}`));
  const line = r.points.map((p) => `${X(p.intensity_ops_per_byte)},${Y(p.ops_per_s)}`).join(" ");
  s.append(el("polyline", { points: line, class: "measured" }));
  for (const p of r.points) {
    const c = el("circle", { cx: X(p.intensity_ops_per_byte), cy: Y(p.ops_per_s), r: 3.5, class: "point" });
    c.append(el("title", {}, `${p.intensity_ops_per_byte} ops/byte: ${opsPerS(p.ops_per_s, type)} (model ${opsPerS(p.model_ops_per_s, type)})`));
    s.append(c);
  }
  return s;
}

// timeline draws the soak's steps: one panel per series the card has.
export function timeline(t, type) {
  const series = [{ key: "ops_per_s", label: "throughput", fmt: (v) => opsPerS(v, type), cls: "measured" }];
  if (t.timeline.some((p) => p.temperature_c !== undefined)) series.push({ key: "temperature_c", label: "temperature", fmt: celsius, cls: "temp" });
  if (t.timeline.some((p) => p.power_w !== undefined)) series.push({ key: "power_w", label: "board power", fmt: watts, cls: "power" });
  const W = 560, PH = 120, L = 84, R = 16, T = 28, B = 34;
  const H = T + series.length * PH + B;
  const s = svg(W, H, `thermal timeline of ${t.workload}`);
  s.append(el("text", { x: L, y: 16, class: "title" }, `thermal timeline: ${t.workload}, ${t.soak_s.toFixed(0)} s soak`));
  const xmax = Math.max(...t.timeline.map((p) => p.at_s));
  const X = (v) => L + (v / xmax) * (W - L - R);
  series.forEach((sr, i) => {
    const top = T + i * PH + 16, bottom = T + (i + 1) * PH - 14;
    const pts = t.timeline.filter((p) => p[sr.key] !== undefined);
    const vs = pts.map((p) => p[sr.key]);
    let lo = Math.min(...vs), hi = Math.max(...vs);
    if (sr.key === "ops_per_s") lo = 0;
    if (hi === lo) hi = lo + 1;
    const pad = (hi - lo) * 0.08;
    const Y = (v) => bottom - ((v - lo) / (hi + pad - lo)) * (bottom - top);
    for (const tk of linearTicks(lo, hi + pad, 3)) {
      s.append(el("line", { x1: L, x2: W - R, y1: Y(tk), y2: Y(tk), class: "grid" }));
      s.append(el("text", { x: L - 6, y: Y(tk) + 4, class: "tick", "text-anchor": "end" }, tk === 0 ? "0" : sr.fmt(tk)));
    }
    s.append(el("text", { x: L, y: top - 4, class: "axis" }, sr.label));
    s.append(el("polyline", { points: pts.map((p) => `${X(p.at_s)},${Y(p[sr.key])}`).join(" "), class: sr.cls }));
  });
  const axisY = T + series.length * PH - 14;
  for (const tk of linearTicks(0, xmax, 6)) {
    s.append(el("text", { x: X(tk), y: axisY + 14, class: "tick", "text-anchor": "middle" }, `${tk} s`));
  }
  s.append(el("text", { x: (L + W - R) / 2, y: H - 6, class: "axis", "text-anchor": "middle" }, "time since the load began"));
  return s;
}
