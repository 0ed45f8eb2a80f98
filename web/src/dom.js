// h builds an element: h("td", { class: "num" }, "4.8 TB/s", child...).
// Strings become text nodes, never markup: a report's text is data.
export function h(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    e.append(typeof c === "string" || typeof c === "number" ? String(c) : c);
  }
  return e;
}

// table builds a table from a header row and rows of cells.
export function table(head, rows, cls) {
  return h("table", { class: cls },
    h("thead", {}, h("tr", {}, head.map((c) => h("th", {}, c)))),
    h("tbody", {}, rows.map((r) => h("tr", {}, r.map((c) => (c instanceof Node && c.tagName === "TD" ? c : h("td", {}, c)))))));
}

// dl builds a definition list from [term, value] pairs, leaving out
// pairs whose value is undefined.
export function dl(pairs) {
  return h("dl", {}, pairs.filter(([, v]) => v !== undefined && v !== "").flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
}

export function section(id, title, ...body) {
  return h("section", { class: "part", "data-section": id }, h("h3", {}, title), ...body);
}
