// Sortable tables and re-orderable small multiples. Tables are readable without this script.
(function () {
  "use strict";
  // a numeric column's cell without data-sort sorts by its text read as a number (the
  // report leaves data-sort out where it equals the text), else by the text
  function key(cell, numeric) {
    var v = cell.getAttribute("data-sort");
    if (v === null && numeric && cell.textContent.trim() !== "") { v = cell.textContent; }
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
        var numeric = th.classList.contains("num");
        rows.sort(function (r1, r2) {
          var c = compare(key(r1.cells[col], numeric), key(r2.cells[col], numeric));
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

// ClickBench system picker: rescores the ticked systems in the page, with the formulas of
// toolkit/analyze/score.py (ClickBench index.html: selectRun, relativeQueryTime,
// renderSummary), and redraws the score bars and the relative-time heat map.
(function () {
  "use strict";
  var holder = document.getElementById("report-data");
  var bars = document.getElementById("fig-score-bars");
  var heat = document.getElementById("fig-score-heatmap");
  if (!holder || !bars || !heat || typeof Plotly === "undefined") { return; }
  var score = JSON.parse(holder.textContent).sections.score;
  if (!score || !score.runs) { return; }
  // the runs as columns (toolkit/report/sections/score.py score_runs): back to one entry
  // per system with its result, per query the runs (null: a null row)
  function decodeRuns(c) {
    var n = c.label.length, out = [], row = 0, pos = 0;
    for (var i = 0; i < n; i += 1) {
      var rows = typeof c.rows === "number" ? c.rows : c.rows[i], result = [];
      for (var q = 0; q < rows; q += 1) {
        var len = typeof c.runs === "number" ? c.runs : c.runs[row];
        result.push(len === 0 ? null : c.seconds.slice(pos, pos + len));
        pos += len;
        row += 1;
      }
      out.push({ label: c.label[i], result: result, in_memory: c.in_memory[i],
                 load_time_s: c.load_time_s[i], data_size_bytes: c.data_size_bytes[i] });
    }
    return out;
  }
  var runs = decodeRuns(score.runs);
  var ADD = 0.01, PENALTY = 2.0, MISSING = 300.0;

  function run(row, j) { return row === null || j >= row.length ? null : row[j]; }
  function cold(row) { return run(row, 0); }
  function hot(row) {  // min(run 2 .. run k+1), k = 2 capped at the row's last run
    if (row === null || row.length < 2) { return null; }
    var last = Math.min(2, row.length - 1), best = Infinity;
    for (var j = 1; j <= last; j++) {
      if (row[j] === null || best === null) { best = null; } else { best = Math.min(best, row[j]); }
    }
    return best;
  }
  function nRuns(es) {
    var n = 0;
    es.forEach(function (e) { e.result.forEach(function (r) { if (r !== null) { n = Math.max(n, r.length); } }); });
    return n;
  }
  function nQueries(es) { return es.reduce(function (n, e) { return Math.max(n, e.result.length); }, 0); }
  function baseline(es, nq, nr) {
    var rows = [];
    for (var q = 0; q < nq; q++) {
      var best = [];
      for (var j = 0; j < nr; j++) {
        var m = Infinity;
        es.forEach(function (e) {
          var v = q < e.result.length ? run(e.result[q], j) : null;
          if (v !== null && v < m) { m = v; }
        });
        best.push(m);
      }
      rows.push(best);
    }
    return rows;
  }
  function relative(e, base, select, nq) {
    var times = [], worst = MISSING, q;
    for (q = 0; q < nq; q++) {
      var t = q < e.result.length ? select(e.result[q]) : null;
      times.push(t);
      if (t !== null && t > worst) { worst = t; }
    }
    var total = 0, used = 0;
    for (q = 0; q < nq; q++) {
      var b = select(base[q]);
      if (b === null || !isFinite(b)) { continue; }
      var cur = times[q] === null ? PENALTY * worst : times[q];
      total += Math.log((ADD + cur) / (ADD + b));
      used += 1;
    }
    return used ? Math.exp(total / used) : null;
  }
  function scores(es, select, nr) {
    var nq = nQueries(es), base = baseline(es, nq, nr);
    return es.map(function (e) { return relative(e, base, select, nq); });
  }
  function ln(v) { return v > 0 ? Math.log(v) : -Infinity; }
  // hot, cold and combined of the entries ``es`` (clickbench_scores, k = 2)
  function rescore(es) {
    var nr = nRuns(es), h = scores(es, hot, nr);
    var disk = es.filter(function (e) { return !e.in_memory; });
    var dc = scores(disk, cold, nr), dh = scores(disk, hot, nr);
    var loads = [], sizes = [];
    disk.forEach(function (e) {
      if (e.load_time_s && e.load_time_s > 5) { loads.push(e.load_time_s); }
      if (e.data_size_bytes && e.data_size_bytes > 1e9) { sizes.push(e.data_size_bytes); }
    });
    var minLoad = loads.length ? Math.min.apply(null, loads) : Infinity;
    var minSize = sizes.length ? Math.min.apply(null, sizes) : Infinity;
    var c = [], comb = [], d = 0;
    es.forEach(function (e) {
      if (e.in_memory) { c.push(null); comb.push(null); return; }
      var ce = dc[d], he = dh[d];
      d += 1;
      c.push(ce);
      if (ce === null || he === null) { comb.push(null); return; }
      var l = e.load_time_s, s = e.data_size_bytes;
      var rl = l !== null && l >= 5 ? l / minLoad : 1.0;
      var rs = s !== null && s >= 1e9 ? s / minSize : 2.0;
      comb.push(Math.exp(0.1 * ln(rl) + 0.1 * ln(rs) + 0.2 * ln(ce) + 0.6 * ln(he)));
    });
    return { hot: h, cold: c, combined: comb };
  }
  function ratios(es) {
    var nr = nRuns(es), nq = nQueries(es), base = baseline(es, nq, nr);
    return es.map(function (e) {
      var row = [];
      for (var q = 0; q < nq; q++) {
        var b = hot(base[q]), t = q < e.result.length ? hot(e.result[q]) : null;
        row.push(t === null || b === null || !isFinite(b) ? null : (ADD + t) / (ADD + b));
      }
      return row;
    });
  }
  function esc(s) { return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;"); }
  function ratioText(v) { return "×" + Number(v.toPrecision(3)); }
  function logTicks(values) {
    var f = values.filter(function (v) { return v !== null && isFinite(v) && v > 0; });
    if (!f.length) { return {}; }
    var lo = Math.min.apply(null, f), hi = Math.max.apply(null, f), ticks = [];
    for (var x = Math.floor(Math.log10(lo)) - 1; x <= Math.ceil(Math.log10(hi)); x++) {
      [1, 2, 5].forEach(function (m) { var v = Number((m * Math.pow(10, x)).toPrecision(6)); if (v >= lo / 2 && v <= hi * 2) { ticks.push(v); } });
    }
    return { tickvals: ticks, ticktext: ticks.map(ratioText) };
  }
  function redraw(chosen) {
    var es = chosen.map(function (i) { return runs[i]; });
    var s = rescore(es), r = ratios(es);
    var order = es.map(function (_, k) { return k; });
    order.sort(function (a, b) {  // rank by hot score, ties and unscored by input order
      var x = s.hot[a], y = s.hot[b];
      if (x === null || y === null) { return x === null && y === null ? a - b : x === null ? 1 : -1; }
      return x - y || a - b;
    });
    order = order.slice(0, score.runs.max_drawn || order.length);
    var labels = order.map(function (k) { return esc(es[k].label); });
    var traces = bars.data.map(function (t) {
      var copy = Object.assign({}, t);
      copy.x = order.map(function (k) { return s[t.name][k]; });
      copy.y = labels;
      return copy;
    });
    var all = [].concat(s.hot, s.cold, s.combined);
    var layout = Object.assign({}, bars.layout);
    layout.xaxis = Object.assign({}, layout.xaxis, logTicks(all));
    Plotly.react(bars, traces, layout);
    var nq = score.runs.queries.length, z = [], text = [];
    for (var q = 0; q < nq; q++) {
      z.push(order.map(function (k) { var v = r[k][q]; return v === null || v === undefined ? null : Math.log10(v); }));
      text.push(order.map(function (k) { var v = r[k][q]; return v === null || v === undefined ? null : ratioText(v); }));
    }
    var h = Object.assign({}, heat.data[0], { x: labels, z: z, text: text });
    Plotly.react(heat, [h], heat.layout);
  }
  var picker = document.createElement("fieldset");
  picker.className = "system-picker";
  picker.id = "score-system-picker";
  var legend = document.createElement("legend");
  legend.textContent = "Systems compared (scores and ratios are relative to the ticked ones)";
  picker.appendChild(legend);
  var boxes = runs.map(function (e, i) {
    var label = document.createElement("label"), box = document.createElement("input");
    box.type = "checkbox";
    box.checked = true;
    box.value = String(i);
    label.appendChild(box);
    label.appendChild(document.createTextNode(" " + e.label));
    picker.appendChild(label);
    return box;
  });
  function update() {
    var chosen = boxes.filter(function (b) { return b.checked; }).map(function (b) { return Number(b.value); });
    if (chosen.length) { redraw(chosen); }
  }
  boxes.forEach(function (b) { b.addEventListener("change", update); });
  [["all", true], ["none", false]].forEach(function (pair) {
    var button = document.createElement("button");
    button.type = "button";
    button.textContent = pair[0];
    button.addEventListener("click", function () {
      boxes.forEach(function (b) { b.checked = pair[1]; });
      update();
    });
    legend.appendChild(document.createTextNode(" "));
    legend.appendChild(button);
  });
  var figure = bars.closest("figure") || bars;
  figure.parentNode.insertBefore(picker, figure);
})();
// JMeter dashboard charts: one label at a time, picked per suite (report-data
// sections.load.label_pickers); each per-label trace carries its label as plotly meta.
(function () {
  "use strict";
  var holder = document.getElementById("report-data");
  if (!holder || typeof Plotly === "undefined") { return; }
  var load = JSON.parse(holder.textContent).sections.load;
  if (!load || !load.label_pickers) { return; }
  load.label_pickers.forEach(function (picker, n) {
    var divs = picker.figures.map(function (id) { return document.getElementById(id); })
      .filter(function (d) { return d !== null; });
    if (!divs.length) { return; }
    var wrap = document.createElement("label");
    wrap.className = "label-picker";
    wrap.textContent = picker.suite + ": label ";
    var select = document.createElement("select");
    select.id = "label-picker-" + n;
    picker.labels.forEach(function (label) {
      var option = document.createElement("option");
      option.value = label;
      option.textContent = label;
      select.appendChild(option);
    });
    wrap.appendChild(select);
    select.addEventListener("change", function () {
      divs.forEach(function (div) {
        var visible = div.data.map(function (t) { return t.meta === select.value; });
        Plotly.restyle(div, { visible: visible });
      });
    });
    var figure = divs[0].closest("figure") || divs[0];
    figure.parentNode.insertBefore(wrap, figure);
  });
})();
