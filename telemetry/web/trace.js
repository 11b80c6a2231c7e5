// co traces: the static page. Its data is the JSON in #trace-data; nothing
// is fetched.
"use strict";

(function () {
  var data = JSON.parse(document.getElementById("trace-data").textContent);
  var spans = data.spans || [];
  var el = CoWaterfall.el;
  var head = document.getElementById("summary");
  var errors = spans.filter(function (s) { return s.status_code === "ERROR"; }).length;
  var t0 = Infinity, t1 = -Infinity;
  spans.forEach(function (s) { t0 = Math.min(t0, s.start_time); t1 = Math.max(t1, s.end_time); });
  var parts = [
    spans.length ? new Date(t0 / 1e6).toLocaleString() : "",
    spans.length + " spans",
    spans.length ? CoWaterfall.fmtDur((t1 - t0) / 1e6) : "",
  ];
  if (data.session_id) parts.push("session " + data.session_id);
  head.appendChild(el("span", "meta", parts.filter(Boolean).join(" · ")));
  if (errors) head.appendChild(el("span", "err", errors + (errors === 1 ? " error" : " errors")));

  var view = document.getElementById("trace");
  CoWaterfall.render(view, spans);
  document.getElementById("expand").addEventListener("click", function () { CoWaterfall.setAll(view, true); });
  document.getElementById("collapse").addEventListener("click", function () { CoWaterfall.setAll(view, false); });
  document.body.dataset.ready = "1";
})();
