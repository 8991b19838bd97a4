// plotly.js comes inline gzip-compressed and base64-encoded in #plotly-js-gzip (issue 19 §7:
// 4.8 MB as plain text, ~1.9 MB so): inflated with DecompressionStream and run from a Blob
// URL. The figures and report.js run through whenPlotly, in document order, once it has
// run (at once when the page loads plotly.js with a plain script). <html data-plotly>
// says "ready" then, "failed" when the bundle could not be decoded (an old browser): the
// tables still work, the charts are not drawn.
(function () {
  "use strict";
  var queue = [], done = false;
  function run(job) {
    if (job.always || typeof Plotly !== "undefined") { job.fn(); }
  }
  function flush(state) {
    done = true;
    document.documentElement.setAttribute("data-plotly", state);
    queue.splice(0).forEach(run);
  }
  // fn runs once plotly.js is there; always: also when it could not be loaded
  window.whenPlotly = function (fn, always) {
    var job = { fn: fn, always: !!always };
    if (done) { run(job); } else { queue.push(job); }
  };
  var holder = document.getElementById("plotly-js-gzip");
  if (!holder) { flush("ready"); return; }
  if (typeof DecompressionStream === "undefined") { flush("failed"); return; }
  var text = atob(holder.textContent.trim()), bytes = new Uint8Array(text.length);
  for (var i = 0; i < text.length; i++) { bytes[i] = text.charCodeAt(i); }
  var inflated = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  new Response(inflated).blob().then(function (js) {
    var script = document.createElement("script");
    script.src = URL.createObjectURL(new Blob([js], { type: "text/javascript" }));
    script.onload = function () { URL.revokeObjectURL(script.src); flush("ready"); };
    script.onerror = function () { flush("failed"); };
    document.head.appendChild(script);
  }, function () { flush("failed"); });
})();
