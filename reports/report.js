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
