"""The report's inline style sheet and script (no external resource is ever referenced).

The script reads its data from ``<script type="application/json" id="rl-data">`` and
builds the per-query table and the explanations with ``textContent`` only, so ids taken
from the input files are always shown as text, never parsed as HTML.
"""

from __future__ import annotations

STYLE = """
:root { --fg: #1b1b1b; --muted: #5c5c5c; --line: #d0d0d0; --head: #f2f2f2; --hi: #fff6d6; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
       color: var(--fg); margin: 0 auto; padding: 1.5rem; max-width: 78rem; }
h1 { font-size: 1.5rem; margin: 0 0 .25rem; }
h2 { font-size: 1.15rem; margin: 2rem 0 .5rem; border-bottom: 1px solid var(--line); }
h3 { font-size: 1rem; margin: 1rem 0 .25rem; }
p.meta, .note { color: var(--muted); margin: .25rem 0; }
table { border-collapse: collapse; margin: .5rem 0; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid var(--line); padding: .2rem .5rem; text-align: right; }
th { background: var(--head); font-weight: 600; }
td.id, th.id { text-align: left; font-family: ui-monospace, Menlo, Consolas, monospace; }
sup { color: var(--muted); font-size: .75em; margin-left: .1em; }
.scroll { max-height: 32rem; overflow: auto; border: 1px solid var(--line); }
.scroll table { margin: 0; }
#rl-queries th { cursor: pointer; position: sticky; top: 0; user-select: none; }
#rl-queries th[aria-sort="ascending"]::after { content: " \\25B2"; }
#rl-queries th[aria-sort="descending"]::after { content: " \\25BC"; }
#rl-queries tbody tr { cursor: pointer; }
#rl-queries tbody tr:hover, #rl-queries tbody tr.selected { background: var(--hi); }
.controls { display: flex; gap: 1rem; align-items: center; flex-wrap: wrap; margin: .5rem 0; }
input[type=search] { padding: .25rem .5rem; min-width: 18rem; font: inherit; }
figure { margin: 1rem 0; }
figure svg { max-width: 100%; height: auto; }
figure.wide { grid-column: 1 / -1; }
figcaption { color: var(--muted); }
.plots { display: grid; grid-template-columns: repeat(auto-fit, minmax(26rem, 1fr)); gap: 1rem; }
.explain { border: 1px solid var(--line); padding: .5rem 1rem; margin: .5rem 0; }
.explain pre { white-space: pre-wrap; margin: .25rem 0; }
"""

SCRIPT = """
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("rl-data").textContent);
  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    if (cls) { node.className = cls; }
    return node;
  }
  function fmt(v) {
    if (v === null || v === undefined) { return ""; }
    if (typeof v === "number") {
      if (Number.isInteger(v)) { return String(v); }
      return v.toFixed(data.digits);
    }
    if (typeof v === "boolean") { return v ? "yes" : "no"; }
    return String(v);
  }
  var table = document.getElementById("rl-queries");
  var head = table.tHead.rows[0];
  var body = table.tBodies[0];
  var filter = document.getElementById("rl-filter");
  var count = document.getElementById("rl-count");
  var rows = data.queries.map(function (qid, i) {
    var tr = document.createElement("tr");
    tr.appendChild(el("td", qid, "id"));
    data.columns.forEach(function (col) {
      var v = col.values[i];
      tr.appendChild(el("td", typeof v === "number" ? v.toFixed(data.digits) : fmt(v)));
    });
    tr.dataset.index = String(i);
    tr.addEventListener("click", function () { select(i, tr); });
    return tr;
  });
  var order = rows.slice();
  function render() {
    var needle = filter.value.trim().toLowerCase();
    var shown = 0;
    var frag = document.createDocumentFragment();
    order.forEach(function (tr) {
      var qid = data.queries[Number(tr.dataset.index)].toLowerCase();
      var keep = needle === "" || qid.indexOf(needle) !== -1;
      tr.hidden = !keep;
      if (keep) { shown += 1; }
      frag.appendChild(tr);
    });
    body.appendChild(frag);
    count.textContent = shown + " of " + rows.length + " queries";
  }
  function sortBy(j, th) {
    var asc = th.getAttribute("aria-sort") !== "ascending";
    Array.prototype.forEach.call(head.cells, function (c) { c.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", asc ? "ascending" : "descending");
    var key = j === 0 ? function (i) { return data.queries[i]; }
                      : function (i) { return data.columns[j - 1].values[i]; };
    order.sort(function (a, b) {
      var x = key(Number(a.dataset.index)), y = key(Number(b.dataset.index));
      var c;
      if (x === null || x === undefined) { c = (y === null || y === undefined) ? 0 : 1; }
      else if (y === null || y === undefined) { c = -1; }
      else if (typeof x === "number") { c = asc ? x - y : y - x; }
      else { c = asc ? (x < y ? -1 : x > y ? 1 : 0) : (x < y ? 1 : x > y ? -1 : 0); }
      return c !== 0 ? c : Number(a.dataset.index) - Number(b.dataset.index);
    });
    render();
  }
  Array.prototype.forEach.call(head.cells, function (th, j) {
    th.addEventListener("click", function () { sortBy(j, th); });
  });
  filter.addEventListener("input", render);
  var panel = document.getElementById("rl-explain");
  function explanationNode(ex) {
    var box = el("div", null, "explain");
    box.appendChild(el("h3", ex.run + ": " + ex.measure + " = " + fmt(ex.value)));
    if (ex.formula) { box.appendChild(el("pre", ex.formula)); }
    var t = el("table");
    var hr = t.createTHead().insertRow();
    ex.columns.forEach(function (c) { hr.appendChild(el("th", c)); });
    var tb = t.createTBody();
    ex.rows.forEach(function (r) {
      var tr = tb.insertRow();
      if (r.gap) {
        var td = el("td", r.gap, "note");
        td.colSpan = ex.columns.length;
        tr.appendChild(td);
        return;
      }
      r.cells.forEach(function (v, k) {
        tr.appendChild(el("td", fmt(v), k === 1 ? "id" : null));
      });
    });
    box.appendChild(t);
    if (ex.result) { box.appendChild(el("p", ex.result)); }
    (ex.notes || []).forEach(function (line) { box.appendChild(el("p", line, "note")); });
    return box;
  }
  function select(i, tr) {
    rows.forEach(function (r) { r.classList.remove("selected"); });
    tr.classList.add("selected");
    panel.replaceChildren();
    var qid = data.queries[i];
    panel.appendChild(el("h3", "Query " + qid));
    var list = data.explanations[qid];
    if (!list) {
      panel.appendChild(el("p", data.no_explanation, "note"));
      return;
    }
    list.forEach(function (ex) { panel.appendChild(explanationNode(ex)); });
  }
  render();
})();
"""
