// The compact series of a report-data section (layout "columns-2",
// toolkit/report/sections/series_columns.py; decode_series in Python reads the same): the
// offsets the ClickBench system picker and the small multiples both walk.
var SeriesColumns = (function () {
  "use strict";
  // a column given as one number holds that number n times
  function expand(value, n) {
    if (typeof value !== "number") { return value; }
    var out = new Array(n);
    for (var i = 0; i < n; i++) { out[i] = value; }
    return out;
  }
  // per series (suites in order, each suite's query list in order) its suite, query name
  // and query index, and its blocks (one per process) as offsets into the run columns:
  // series n's blocks are firstBlock[n] .. firstBlock[n + 1] - 1, block b's runs are
  // seconds[blockStart[b]] .. seconds[blockStart[b + 1] - 1]
  function layout(p) {
    var query = [], queryIndex = [], suiteOf = [], perSuite = [], i;
    p.suites.queries.forEach(function (k, s) {
      var names = p.query_lists.query[k], indexes = p.query_lists.query_index[k];
      for (var j = 0; j < indexes.length; j++) {
        query.push(names[j]); queryIndex.push(indexes[j]); suiteOf.push(s);
      }
      perSuite.push(indexes.length);
    });
    var nSeries = queryIndex.length, blocks = expand(p.blocks, nSeries), nBlocks = 0;
    for (i = 0; i < nSeries; i++) { nBlocks += blocks[i]; }
    var runs = expand(p.runs, nBlocks);
    var firstBlock = new Int32Array(nSeries + 1), blockStart = new Int32Array(nBlocks + 1);
    for (i = 0; i < nSeries; i++) { firstBlock[i + 1] = firstBlock[i] + blocks[i]; }
    for (i = 0; i < nBlocks; i++) { blockStart[i + 1] = blockStart[i] + runs[i]; }
    return {
      n: nSeries, query: query, queryIndex: queryIndex, suiteOf: suiteOf, perSuite: perSuite,
      firstBlock: firstBlock, blockStart: blockStart, process: expand(p.process, nBlocks)
    };
  }
  // the iteration of run j of the block whose runs start at lo (without an iteration
  // column a block's runs are its iterations 0, 1, ...)
  function iteration(p, j, lo) { return p.iteration ? p.iteration[j] : j - lo; }
  return { expand: expand, layout: layout, iteration: iteration };
})();

// Sortable tables. Tables are readable without this script.
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
  var sections = JSON.parse(holder.textContent).sections;
  var score = sections.score;
  if (!score || !score.runs) { return; }
  // per suite of the trajectories' series (columns-2, series_columns.py) the result its
  // runs give, as score.py series_results builds it: row query_index = the first process's
  // runs below maxRuns at their iteration, a row of no run or only failed runs = null
  function seriesResults(p, maxRuns) {
    var c = SeriesColumns.layout(p), out = [], n = 0;
    p.suites.queries.forEach(function (k, s) {
      var rows = [];
      for (; n < c.n && c.suiteOf[n] === s; n++) {
        var b = c.firstBlock[n];
        if (b === c.firstBlock[n + 1]) { continue; }  // no run at all
        var q = c.queryIndex[n];
        while (rows.length < q + 1) { rows.push([]); }
        var row = rows[q], lo = c.blockStart[b];
        for (var j = lo; j < c.blockStart[b + 1]; j++) {
          var it = SeriesColumns.iteration(p, j, lo);
          if (it < maxRuns) {
            while (row.length < it + 1) { row.push(null); }
            row[it] = p.seconds[j];
          }
        }
      }
      out.push(rows.map(function (row) {
        return row.every(function (v) { return v === null; }) ? null : row;
      }));
    });
    return out;
  }
  // the runs as columns (toolkit/report/sections/score.py score_runs): back to one entry
  // per system with its result, per query the runs (null: a null row); an entry with a
  // suite reads them from the trajectories' series
  function decodeRuns(c) {
    var n = c.label.length, out = [], row = 0, pos = 0, own = 0;
    var shared = c.suite.some(function (s) { return s >= 0; }) ?
      seriesResults(sections.trajectories.series, c.max_runs) : [];
    for (var i = 0; i < n; i += 1) {
      var result = [];
      if (c.suite[i] >= 0) {
        result = shared[c.suite[i]];
      } else {
        var rows = typeof c.rows === "number" ? c.rows : c.rows[own];
        for (var q = 0; q < rows; q += 1) {
          var len = typeof c.runs === "number" ? c.runs : c.runs[row];
          result.push(len === 0 ? null : c.seconds.slice(pos, pos + len));
          pos += len;
          row += 1;
        }
        own += 1;
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
// Small multiples drawn in the page from a section's compact series (report-data
// sections.<section>.<key>, layout "columns-2": toolkit/report/sections/series_columns.py):
// every series is reachable through the filters (suite, system, class, query) and the sort;
// a page of panels is drawn at a time, the next one on request. Untrusted strings (suite,
// system, query names) reach the page only as textContent and title attributes, never as
// markup, and never reach plotly.
(function () {
  "use strict";
  var holder = document.getElementById("report-data");
  var grids = document.querySelectorAll(".panel-grid");
  if (!holder || !grids.length || typeof Plotly === "undefined") { return; }
  var report = JSON.parse(holder.textContent);
  var OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"];
  var GREY = "#888888", GREEN = "#009E73", VERMILLION = "#D55E00", BLACK = "#000000";
  var BAND = "rgba(0,158,115,0.15)", CUT = "rgba(136,136,136,0.18)";
  var FONT = "system-ui, -apple-system, 'Segoe UI', sans-serif";
  //: query names offered in the query box's suggestions (typing still reaches every one)
  var MAX_SUGGESTIONS = 500;

  // the payload's columns with per-series offsets (SeriesColumns.layout)
  function columns(p) {
    var c = SeriesColumns.layout(p), i, n;
    p.query = c.query;
    p.query_index = c.queryIndex;
    p.suites.series = c.perSuite;
    p["class"] = p["class"].map(function (code) { return code < 0 ? -1 : p.classes[code]; });
    var nSeries = c.n, firstBlock = c.firstBlock, blockStart = c.blockStart;
    function sparse(table) {
      var at = {};
      table.series.forEach(function (series, k) { (at[series] = at[series] || []).push(k); });
      return at;
    }
    // the gap table's reference and window gap (series_columns.derived_gap): the min of the
    // first process's hot runs, and the min of its hot runs 1..window over it − 1, unless
    // the payload lists the series with other values
    var reference = new Array(nSeries), gap = new Array(nSeries);
    for (n = 0; n < nSeries; n++) {
      var byIteration = {}, hot = [], b = firstBlock[n];
      if (b < firstBlock[n + 1]) {
        for (i = blockStart[b]; i < blockStart[b + 1]; i++) {
          var it = SeriesColumns.iteration(p, i, blockStart[b]), v = p.seconds[i];
          byIteration[it] = v;
          if (it >= 1 && v !== null) { hot.push(v); }
        }
      }
      var ref = hot.length ? Math.min.apply(null, hot) : null, win = null;
      for (var k = 1; k <= p.window; k++) {
        var w = byIteration[k];
        if (w === undefined || w === null) { win = null; break; }
        win = win === null ? w : Math.min(win, w);
      }
      reference[n] = ref === null ? null : Number(ref.toPrecision(4));
      gap[n] = win === null || !ref ? null : Number((win / ref - 1).toPrecision(3));
    }
    p.reference.series.forEach(function (series, k) { reference[series] = p.reference.seconds[k]; });
    p.gap.series.forEach(function (series, k) { gap[series] = p.gap.gap[k]; });
    return {
      p: p, n: nSeries, firstBlock: firstBlock, blockStart: blockStart, process: c.process,
      suiteOf: c.suiteOf, steady: sparse(p.steady), changepoints: sparse(p.changepoints),
      spikes: sparse(p.spikes), reference: reference, gap: gap
    };
  }
  function text(c, index) { return index < 0 ? null : c.p.strings[index]; }
  // series n: its names, runs per process and the engine's verdict
  function series(c, n) {
    var p = c.p, s = c.suiteOf[n], blocks = [];
    for (var b = c.firstBlock[n]; b < c.firstBlock[n + 1]; b++) {
      var lo = c.blockStart[b], hi = c.blockStart[b + 1];
      var its = [];
      for (var i = lo; i < hi; i++) { its.push(SeriesColumns.iteration(p, i, lo)); }
      blocks.push({ process: c.process[b], iterations: its, seconds: p.seconds.slice(lo, hi) });
    }
    var st = (c.steady[n] || [])[0];
    return {
      n: n, suite: text(c, p.suites.name[s]), system: text(c, p.suites.system[s]),
      query: text(c, p.query[n]), cls: text(c, p["class"][n]), resolution: p.suites.resolution[s],
      reference: c.reference[n], gap: c.gap[n], blocks: blocks,
      steady: st === undefined ? null : p.steady.seconds[st],
      steadyIteration: st === undefined ? null : p.steady.iteration[st],
      ci: st === undefined || p.steady.lo[st] === null || p.steady.hi[st] === null ? null : [p.steady.lo[st], p.steady.hi[st]],
      changepoints: (c.changepoints[n] || []).map(function (k) { return p.changepoints.iteration[k]; }),
      spikes: (c.spikes[n] || []).map(function (k) { return [p.spikes.iteration[k], p.spikes.seconds[k]]; })
    };
  }

  // seconds as an axis label with ``digits`` significant digits: 42ms, 1.5s, 2min (figures.short_seconds)
  function shortSeconds(v, digits) {
    var d = digits || 3;
    function sig(x) { return String(Number(x.toPrecision(d))); }
    if (v < 1e-3) { return sig(v * 1e6) + "µs"; }
    if (v < 1) { return sig(v * 1e3) + "ms"; }
    if (v < 120) { return sig(v) + "s"; }
    return sig(v / 60) + "min";
  }
  // A log axis over [lo, hi] (s, > 0) that always labels a tick: 1, 2, 5 × 10^n inside the
  // range (1 × 10^n, every few decades, when that is more than MAX_TICKS; 1…9 × 10^n over
  // less than a decade), else the range's own ends; the range is set, so every tick value
  // is on screen.
  var MAX_TICKS = 6;
  function logAxis(lo, hi) {
    var r0 = Math.log10(lo), r1 = Math.log10(hi), pad = Math.max(0.06 * (r1 - r0), 0.04);
    r0 -= pad; r1 += pad;
    var a = Math.pow(10, r0), b = Math.pow(10, r1);
    function inside(mantissas) {
      var out = [];
      for (var e = Math.floor(r0); e <= Math.ceil(r1); e++) {
        mantissas.forEach(function (mant) {
          var v = Number((mant * Math.pow(10, e)).toPrecision(6));
          if (v >= a && v <= b) { out.push(v); }
        });
      }
      return out;
    }
    var ticks = inside([1, 2, 5]);
    if (ticks.length > MAX_TICKS) {
      var decades = inside([1]), step = Math.ceil(decades.length / MAX_TICKS);
      ticks = decades.filter(function (_, k) { return k % step === 0; });
    } else if (ticks.length < 2) {
      ticks = inside([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    }
    if (ticks.length < 2) { ticks = lo === hi ? [lo] : [lo, hi]; }
    var digits = 2;  // enough digits that two ticks never read the same
    while (digits < 6 && new Set(ticks.map(function (t) { return shortSeconds(t, digits); })).size < ticks.length) { digits += 1; }
    return {
      type: "log", range: [r0, r1], tickvals: ticks,
      ticktext: ticks.map(function (t) { return shortSeconds(t, digits); })
    };
  }

  // The plotly figure of one series (figures.trajectory_chart's picture): hot runs as lines,
  // the cold run hollow, a 0 s run as a triangle at the floor (the timer's resolution) with
  // the floor dotted and marked, spikes, steady line and CI band, warm-up shaded, change
  // points and the gap table's reference.
  function figure(s) {
    var positive = [], zeros = false, maxIteration = 0;
    s.blocks.forEach(function (blk) {
      blk.seconds.forEach(function (v, i) {
        maxIteration = Math.max(maxIteration, blk.iterations[i]);
        if (v === null) { return; }
        if (v > 0) { positive.push(v); } else { zeros = true; }
      });
    });
    var smallest = positive.length ? Math.min.apply(null, positive) : null;
    var floor = s.resolution > 0 ? s.resolution : smallest !== null ? smallest / 2 : 1e-3;
    function drawn(v) { return v > 0 ? v : floor; }
    function hover(it, v) {
      return (it === 0 ? "cold run" : "iteration " + it) + ": " +
        (v > 0 ? shortSeconds(v, 4) : "0 s, drawn at the " + shortSeconds(floor) + " floor");
    }
    var traces = [], zeroX = [], zeroY = [], zeroText = [];
    s.blocks.forEach(function (blk, k) {
      var colour = OKABE_ITO[k % OKABE_ITO.length], x = [], y = [], t = [];
      blk.seconds.forEach(function (v, i) {
        var it = blk.iterations[i];
        if (v === null) { return; }
        if (v <= 0) { zeroX.push(it); zeroY.push(floor); zeroText.push(hover(it, v)); }
        if (it === 0) {
          traces.push({ type: "scatter", x: [0], y: [drawn(v)], text: [hover(0, v)], mode: "markers", name: "cold",
            marker: { size: 7, symbol: "circle-open", color: colour }, hovertemplate: "%{text}<extra></extra>" });
          return;
        }
        x.push(it); y.push(drawn(v)); t.push(hover(it, v));
      });
      traces.push({ type: "scatter", x: x, y: y, text: t, mode: "lines+markers", name: "process " + blk.process,
        line: { color: colour, width: 1.5 }, marker: { size: 5 }, hovertemplate: "%{text}<extra></extra>" });
    });
    if (zeroX.length) {
      traces.push({ type: "scatter", x: zeroX, y: zeroY, text: zeroText, mode: "markers", name: "0 s",
        marker: { symbol: "triangle-down", size: 9, color: GREY }, hovertemplate: "%{text}<extra></extra>" });
    }
    var spikes = s.spikes.filter(function (sp) { return sp[1] !== null && sp[1] > 0; });
    if (spikes.length) {
      traces.push({ type: "scatter", x: spikes.map(function (sp) { return sp[0]; }),
        y: spikes.map(function (sp) { return sp[1]; }), mode: "markers", name: "spike",
        marker: { symbol: "x", size: 10, color: VERMILLION, line: { width: 2 } },
        hovertemplate: "spike at iteration %{x}: %{y:.4g} s<extra></extra>" });
    }
    var shapes = [], annotations = [], shown = positive.slice();
    function across(y, line) { return { type: "line", xref: "paper", x0: 0, x1: 1, yref: "y", y0: y, y1: y, line: line }; }
    if (s.steadyIteration !== null && s.steadyIteration > 0) {
      shapes.push({ type: "rect", xref: "x", x0: -0.5, x1: s.steadyIteration - 0.5, yref: "paper", y0: 0, y1: 1,
        fillcolor: CUT, line: { width: 0 }, layer: "below" });
    }
    if (s.ci !== null && s.ci[0] > 0 && s.ci[1] > 0) {
      shapes.push({ type: "rect", xref: "paper", x0: 0, x1: 1, yref: "y", y0: s.ci[0], y1: s.ci[1],
        fillcolor: BAND, line: { width: 0 }, layer: "below" });
      shown.push(s.ci[0], s.ci[1]);
    }
    if (s.reference !== null && s.reference > 0) {
      shapes.push(across(s.reference, { color: GREY, width: 1, dash: "dashdot" }));
      shown.push(s.reference);
    }
    if (s.steady !== null && s.steady > 0) {
      shapes.push(across(s.steady, { color: GREEN, width: 1.5, dash: "dash" }));
      shown.push(s.steady);
    }
    s.changepoints.forEach(function (cp) {
      shapes.push({ type: "line", xref: "x", x0: cp - 0.5, x1: cp - 0.5, yref: "paper", y0: 0, y1: 1,
        line: { color: BLACK, width: 1, dash: "dot" } });
    });
    spikes.forEach(function (sp) { shown.push(sp[1]); });
    if (zeros) {
      shapes.push(across(floor, { color: GREY, width: 1, dash: "dot" }));
      // plotly places annotations on a log axis by the exponent
      annotations.push({ xref: "paper", x: 1, xanchor: "right", yref: "y", y: Math.log10(floor), yanchor: "bottom",
        text: "0 → " + shortSeconds(floor), showarrow: false, font: { size: 10, color: "#555555" } });
      shown.push(floor);
    }
    var failed = 0;
    s.blocks.forEach(function (blk) { blk.seconds.forEach(function (v) { if (v === null) { failed += 1; } }); });
    if (failed) {
      annotations.push({ xref: "paper", x: 0, xanchor: "left", yref: "paper", y: 1, yanchor: "top",
        text: positive.length || zeros ? failed + " failed run" + (failed > 1 ? "s" : "") + " not drawn" : "no run finished",
        showarrow: false, font: { size: 10, color: "#b34a00" } });
    }
    var lo = shown.length ? Math.min.apply(null, shown) : floor;
    var hi = shown.length ? Math.max.apply(null, shown) : floor;
    var axis = { showgrid: true, gridcolor: "#e6e6e6", zeroline: false, linecolor: "#555555",
      // fixed margins: automargin redraws a plot later, which fails once a new filter
      // has purged it
      ticks: "outside", tickcolor: "#555555", automargin: false };
    var layout = {
      height: 210, showlegend: false, paper_bgcolor: "white", plot_bgcolor: "white",
      font: { family: FONT, size: 12 }, margin: { l: 58, r: 8, t: 8, b: 28 },
      hoverlabel: { namelength: -1 },
      xaxis: Object.assign({}, axis, { range: [-0.5, maxIteration + 0.5] }, maxIteration <= 12 ? { dtick: 1 } : {}),
      yaxis: Object.assign({}, axis, logAxis(lo, hi)),
      shapes: shapes, annotations: annotations
    };
    return { data: traces, layout: layout };
  }

  function pct(v) { var r = Math.round(Math.abs(v) * 100); return (v < 0 && r ? "-" : "+") + r + "%"; }
  // good within ±target, warn up to ±tolerance, bad beyond (formatting.tone_of)
  function tone(gap, cfg) {
    if (gap === null) { return ""; }
    if (Math.abs(gap) <= cfg.target + 1e-12) { return "good"; }
    return Math.abs(gap) <= cfg.tolerance + 1e-12 ? "warn" : "bad";
  }
  function badge(label, toneName, help) {
    var b = document.createElement("span");
    b.className = "badge" + (toneName ? " tone-" + toneName : "");
    b.textContent = label;
    if (help) { b.title = help; }
    return b;
  }

  grids.forEach(function (grid) {
    var section = report.sections[grid.getAttribute("data-section")];
    var payload = section && section[grid.getAttribute("data-key")];
    if (!payload || payload.layout !== "columns-2") { return; }
    var cfg = section.panels || { window: 2, target: 0.05, tolerance: 0.1, classes: {} };
    var c = columns(payload), p = payload, perPage = Number(grid.getAttribute("data-per-page")) || 24;
    var multiSuite = p.suites.suite_id.length > 1;
    var tools = grid.querySelector(".grid-tools"), holderDiv = grid.querySelector(".grid");
    var more = grid.querySelector(".grid-more"), count = grid.querySelector(".grid-count");
    var pick = {
      suite: tools.querySelector("[data-filter=suite]"), system: tools.querySelector("[data-filter=system]"),
      cls: tools.querySelector("[data-filter=class]"), query: tools.querySelector("[data-filter=query]"),
      sort: tools.querySelector("[data-sort]")
    };
    function option(select, value, label) {
      var o = document.createElement("option");
      o.value = String(value);
      o.textContent = label;
      select.appendChild(o);
    }
    function distinct(indexes) {
      var seen = {}, out = [];
      indexes.forEach(function (i) { if (i >= 0 && !seen[i]) { seen[i] = true; out.push(i); } });
      return out.sort(function (a, b) { return p.strings[a].localeCompare(p.strings[b]); });
    }
    p.suites.name.forEach(function (name, s) { option(pick.suite, s, p.strings[name]); });
    var systems = distinct(p.suites.system);
    systems.forEach(function (i) { option(pick.system, i, p.strings[i]); });
    distinct(p["class"]).forEach(function (i) { option(pick.cls, i, p.strings[i]); });
    if (!multiSuite) { pick.suite.parentNode.hidden = true; }
    if (systems.length < 2) { pick.system.parentNode.hidden = true; }
    var list = grid.querySelector("datalist");
    distinct(p.query).slice(0, MAX_SUGGESTIONS).forEach(function (i) { option(list, p.strings[i], p.strings[i]); });
    var queryNames = {};
    p.query.forEach(function (i) { queryNames[p.strings[i].toLowerCase()] = true; });

    // sort keys of every series, once: the cold run of its first process over the reference
    var nameOf = [], coldRatio = new Float64Array(c.n), warmup = new Float64Array(c.n);
    for (var n = 0; n < c.n; n++) {
      nameOf.push(p.strings[p.suites.name[c.suiteOf[n]]]);
      var lo = c.blockStart[c.firstBlock[n]], first = SeriesColumns.iteration(p, lo, lo);
      var cold = first === 0 ? p.seconds[lo] : null;
      coldRatio[n] = cold !== null && c.reference[n] ? cold / c.reference[n] : 0;
      var st = (c.steady[n] || [])[0];
      warmup[n] = st === undefined ? 0 : p.steady.iteration[st] || 0;
    }
    // largest gap first, then the largest cold/hot ratio (ClickBench's k = 2 of 2 hot runs
    // has no gap: its cache effect comes first), as the per-series table
    function byGap(a, b) {
      var x = c.gap[a], y = c.gap[b];
      return (y === null ? 0 : y) - (x === null ? 0 : x) || coldRatio[b] - coldRatio[a] || a - b;
    }
    var ORDERS = {
      gap: byGap,
      warmup: function (a, b) { return warmup[b] - warmup[a] || byGap(a, b); },
      cold: function (a, b) { return coldRatio[b] - coldRatio[a] || a - b; },
      query: function (a, b) { return a - b; },
      name: function (a, b) { return nameOf[a].localeCompare(nameOf[b]) || p.query_index[a] - p.query_index[b] || a - b; }
    };

    var matched = [], shown = 0;
    function matches() {
      var suite = pick.suite.value, system = pick.system.value, cls = pick.cls.value;
      var needle = pick.query.value.trim().toLowerCase(), exact = queryNames[needle] === true;
      var out = [];
      for (var n = 0; n < c.n; n++) {
        var s = c.suiteOf[n];
        if (suite !== "" && s !== Number(suite)) { continue; }
        if (system !== "" && p.suites.system[s] !== Number(system)) { continue; }
        if (cls !== "" && p["class"][n] !== Number(cls)) { continue; }
        if (needle) {
          var q = p.strings[p.query[n]].toLowerCase();
          // a whole query name finds that query (Q1, not Q10); anything else is a substring
          if (exact ? q !== needle : q.indexOf(needle) < 0) { continue; }
        }
        out.push(n);
      }
      return out.sort(ORDERS[pick.sort.value] || byGap);
    }
    function panel(n) {
      var s = series(c, n);
      var div = document.createElement("div");
      div.className = "panel";
      div.setAttribute("data-series", String(n));
      var head = document.createElement("div");
      head.className = "panel-head";
      var title = document.createElement("span");
      title.className = "panel-title";
      var name = multiSuite ? s.query + " · " + s.suite : s.query;
      title.textContent = name;
      title.title = name + (s.system && s.suite.indexOf(s.system) < 0 ? " (" + s.system + ")" : "") +
        (s.cls ? " — " + s.cls : "");
      var badges = document.createElement("span");
      badges.className = "badges";
      if (s.cls) {
        var known = cfg.classes[s.cls.replace(/^short: /, "")] || ["", ""];
        badges.appendChild(badge(s.cls, known[0], known[1]));
      }
      badges.appendChild(badge(
        "k=" + cfg.window + " " + (s.gap !== null ? pct(s.gap) : "–"), tone(s.gap, cfg),
        "the benchmark window (min of the first " + cfg.window + " hot runs) against the reference (min of all hot runs)" +
          (s.gap === null ? "; none here: no hot run, or a reference of 0 s" : "")
      ));
      head.appendChild(title);
      head.appendChild(badges);
      var plot = document.createElement("div");
      plot.className = "panel-plot";
      plot.id = grid.id + "-s" + n;
      plot.setAttribute("role", "img");
      plot.setAttribute("aria-label", name + ": run time per iteration, log scale");
      div.appendChild(head);
      div.appendChild(plot);
      return { div: div, plot: plot, fig: figure(s) };
    }
    function drawUpTo(limit) {
      var made = [];
      for (; shown < Math.min(limit, matched.length); shown++) {
        var m = panel(matched[shown]);
        holderDiv.appendChild(m.div);
        made.push(m);
      }
      // appended first, drawn after: plotly sizes each plot to its laid-out panel
      made.forEach(function (m) {
        m.plot.drawn = Plotly.newPlot(m.plot, m.fig.data, m.fig.layout, { displaylogo: false, responsive: true, displayModeBar: false });
      });
      var total = c.n.toLocaleString("en-US");
      count.textContent = shown.toLocaleString("en-US") + " of " + matched.length.toLocaleString("en-US") +
        " matching series drawn (" + total + " in all)";
      grid.setAttribute("data-matched", String(matched.length));
      grid.setAttribute("data-drawn", String(shown));
      more.hidden = shown >= matched.length;
      var next = Math.min(perPage, matched.length - shown);
      more.textContent = "Draw " + next + " more (" + (matched.length - shown).toLocaleString("en-US") + " not drawn)";
    }
    function refresh() {
      // a plot is freed once plotly has finished drawing it (purging one still being drawn
      // throws inside plotly, plotly.js#5159)
      Array.prototype.forEach.call(holderDiv.querySelectorAll(".panel-plot"), function (el) {
        Promise.resolve(el.drawn).then(function () { Plotly.purge(el); }, function () { Plotly.purge(el); });
      });
      holderDiv.textContent = "";
      shown = 0;
      matched = matches();
      drawUpTo(perPage);
    }
    [pick.suite, pick.system, pick.cls, pick.sort].forEach(function (el) { el.addEventListener("change", refresh); });
    pick.query.addEventListener("input", refresh);
    more.addEventListener("click", function () { drawUpTo(shown + perPage); });
    tools.hidden = false;
    refresh();
  });
})();
