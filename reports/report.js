// Sortable tables and re-orderable small multiples. Tables are readable without this script.
(function () {
  "use strict";
  function key(cell) {
    var v = cell.getAttribute("data-sort");
    if (v !== null && v !== "" && !isNaN(Number(v))) { return { n: Number(v) }; }
    return { s: (v !== null ? v : cell.textContent).toLowerCase() };
  }
  function compare(a, b) {
    if (a.n !== undefined && b.n !== undefined) { return a.n - b.n; }
    if (a.n !== undefined) { return -1; }
    if (b.n !== undefined) { return 1; }
    return a.s < b.s ? -1 : a.s > b.s ? 1 : 0;
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var body = table.tBodies[0];
    if (!body || body.rows.length < 2) { return; }
    table.classList.add("js-sortable");
    var heads = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (th, col) {
      th.tabIndex = 0;
      function sort() {
        var asc = th.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", asc ? "ascending" : "descending");
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (r1, r2) {
          var c = compare(key(r1.cells[col]), key(r2.cells[col]));
          return asc ? c : -c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
        table.dispatchEvent(new Event("table-sorted"));
      }
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) { if (e.key === "Enter") { sort(); } });
    });
  });
  document.querySelectorAll("select[data-grid]").forEach(function (select) {
    var grid = document.getElementById(select.getAttribute("data-grid"));
    if (!grid) { return; }
    select.addEventListener("change", function () {
      var k = "data-" + select.value;
      var panels = Array.prototype.slice.call(grid.children);
      panels.sort(function (a, b) { return Number(a.getAttribute(k)) - Number(b.getAttribute(k)); });
      panels.forEach(function (p) { grid.appendChild(p); });
    });
  });
})();

// Contents and folding: each section but the findings folds; buttons fold or open them
// all; a plot drawn in a folded section is resized when it opens.
(function () {
  "use strict";
  var toc = document.getElementById("toc");
  var folds = Array.prototype.slice.call(document.querySelectorAll("details.fold"));
  if (!toc || !folds.length) { return; }
  function setAll(open) { folds.forEach(function (d) { d.open = open; }); }
  [["Collapse all", false], ["Expand all", true]].forEach(function (spec) {
    var b = document.createElement("button");
    b.type = "button";
    b.textContent = spec[0];
    b.addEventListener("click", function () { setAll(spec[1]); });
    toc.appendChild(b);
  });
  folds.forEach(function (d) {
    d.addEventListener("toggle", function () {
      if (!d.open || !window.Plotly) { return; }
      d.querySelectorAll(".js-plotly-plot").forEach(function (el) { window.Plotly.Plots.resize(el); });
    });
  });
  // a contents link opens the section it points to
  toc.querySelectorAll("a[href^='#']").forEach(function (a) {
    a.addEventListener("click", function () {
      var target = document.getElementById(a.getAttribute("href").slice(1));
      var d = target && target.querySelector("details.fold");
      if (d) { d.open = true; }
    });
  });
})();

// Long tables: the first PAGE rows shown, the rest one click away, and a filter box
// (case-insensitive substring of a row's text). Without JavaScript every row shows.
(function () {
  "use strict";
  var PAGE = 200, FILTER_FROM = 20;
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var body = table.tBodies[0];
    if (!body || body.rows.length < FILTER_FROM) { return; }
    var all = false, needle = "";
    var tools = document.createElement("div");
    tools.className = "table-tools";
    var input = document.createElement("input");
    input.type = "search";
    input.placeholder = "Filter rows";
    input.setAttribute("aria-label", "Filter the rows of " + (table.caption ? table.caption.textContent : "this table"));
    var count = document.createElement("span");
    var more = document.createElement("button");
    more.type = "button";
    tools.appendChild(input);
    tools.appendChild(count);
    tools.appendChild(more);
    var wrap = table.parentElement;
    wrap.parentElement.insertBefore(tools, wrap);
    function refresh() {
      var shown = 0, matched = 0;
      Array.prototype.forEach.call(body.rows, function (row) {
        var hit = !needle || row.textContent.toLowerCase().indexOf(needle) >= 0;
        if (hit) { matched += 1; }
        var show = hit && (all || shown < PAGE);
        if (show) { shown += 1; }
        row.hidden = !show;
      });
      count.textContent = shown + " of " + matched + " rows" + (needle ? " matching" : "");
      more.hidden = all || matched <= PAGE;
      more.textContent = "Show all " + matched + " rows";
    }
    input.addEventListener("input", function () { needle = input.value.trim().toLowerCase(); refresh(); });
    more.addEventListener("click", function () { all = true; refresh(); });
    table.addEventListener("table-sorted", refresh);
    refresh();
  });
})();
