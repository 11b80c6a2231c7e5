// co logs: sessions, traces with filters, a trace's waterfall, live refresh.
// Talks only to its own server's read-only /api.
"use strict";

(function () {
  var el = CoWaterfall.el;
  var $ = function (id) { return document.getElementById(id); };
  var state = { session: "", tool: "", errors: false, q: "", trace: "", head: -1 };
  var renders = 0;

  function markRendered() {
    renders++;
    document.body.dataset.renders = String(renders);
  }

  function getJSON(path) {
    return fetch(path, { headers: { "Accept": "application/json" } }).then(function (r) {
      return r.json().then(function (body) {
        if (!r.ok) throw new Error(body && body.error ? body.error : r.statusText);
        return body;
      });
    });
  }

  function fmtWhen(ns) {
    var d = new Date(ns / 1e6), now = new Date();
    var t = d.toLocaleTimeString([], { hour12: false });
    return d.toDateString() === now.toDateString() ? t : d.toLocaleDateString() + " " + t;
  }

  function readHash() {
    var m = /trace=([0-9a-f]+)/.exec(location.hash);
    state.trace = m ? m[1] : "";
  }

  function loadSessions() {
    return getJSON("/api/sessions").then(function (list) {
      var box = $("sessions");
      box.textContent = "";
      var all = el("div", "session" + (state.session === "" ? " selected" : ""), "All sessions");
      all.dataset.session = "";
      box.appendChild(all);
      list.forEach(function (s) {
        var d = el("div", "session" + (state.session === s.session_id ? " selected" : ""));
        d.dataset.session = s.session_id;
        d.appendChild(el("div", "mono", s.session_id || "(no session id)"));
        var info = fmtWhen(s.start_time) + " · " + s.turns + (s.turns === 1 ? " turn" : " turns");
        d.appendChild(el("div", "muted", info));
        if (s.errors) d.appendChild(el("span", "badge error", s.errors + " failed"));
        box.appendChild(d);
      });
      box.querySelectorAll(".session").forEach(function (d) {
        d.addEventListener("click", function () {
          state.session = d.dataset.session;
          refresh(true);
        });
      });
    });
  }

  function loadTools() {
    return getJSON("/api/tools").then(function (names) {
      var sel = $("tool"), keep = sel.value;
      while (sel.options.length > 1) sel.remove(1);
      names.forEach(function (n) { var o = el("option", "", n); o.value = n; sel.appendChild(o); });
      sel.value = names.indexOf(keep) >= 0 ? keep : "";
    });
  }

  function loadTraces() {
    var p = new URLSearchParams();
    if (state.session) p.set("session", state.session);
    if (state.tool) p.set("tool", state.tool);
    if (state.errors) p.set("errors", "1");
    if (state.q) p.set("q", state.q);
    return getJSON("/api/traces?" + p.toString()).then(function (list) {
      var body = $("traces");
      body.textContent = "";
      $("no-traces").hidden = list.length > 0;
      $("count").textContent = list.length + (list.length === 1 ? " trace" : " traces");
      list.forEach(function (t) {
        var tr = el("tr", "trace-row" + (t.trace_id === state.trace ? " selected" : ""));
        tr.dataset.traceId = t.trace_id;
        tr.appendChild(el("td", "", fmtWhen(t.start_time)));
        tr.appendChild(el("td", "mono", t.trace_id.slice(0, 12)));
        tr.appendChild(el("td", "", t.root));
        tr.appendChild(el("td", "", t.spans));
        tr.appendChild(el("td", "", CoWaterfall.fmtDur(t.duration_ms)));
        tr.appendChild(el("td", "", (t.tools || []).join(", ")));
        tr.appendChild(el("td", t.errors ? "err" : "muted", t.errors ? t.errors : "–"));
        var pr = el("td", "muted", t.prompt || "");
        pr.title = t.prompt || "";
        tr.appendChild(pr);
        tr.addEventListener("click", function () {
          location.hash = "trace=" + t.trace_id;
        });
        body.appendChild(tr);
      });
    });
  }

  function loadTrace() {
    var box = $("trace");
    if (!state.trace) {
      $("trace-title").textContent = "Trace";
      return Promise.resolve();
    }
    return getJSON("/api/trace?id=" + encodeURIComponent(state.trace)).then(function (doc) {
      $("trace-title").textContent = "Trace " + doc.trace_id;
      // Keep the rows the user opened across a live refresh.
      var open = {};
      box.querySelectorAll(".wf-row.open").forEach(function (r) { open[r.dataset.spanId] = true; });
      CoWaterfall.render(box, doc.spans);
      box.querySelectorAll(".wf-row").forEach(function (r) { if (open[r.dataset.spanId]) r.click(); });
      document.querySelectorAll("tr.trace-row").forEach(function (r) {
        r.classList.toggle("selected", r.dataset.traceId === state.trace);
      });
    }, function (err) {
      box.textContent = "";
      box.appendChild(el("div", "empty", "Trace " + state.trace + ": " + err.message));
    });
  }

  var busy = false, again = false;
  function refresh(all) {
    if (busy) { again = true; return; }
    busy = true;
    var work = [loadTraces(), loadTrace()];
    if (all) work.push(loadSessions(), loadTools());
    Promise.all(work).then(function () {
      $("updated").textContent = "updated " + new Date().toLocaleTimeString([], { hour12: false });
    }, function (err) {
      $("updated").textContent = "error: " + err.message;
    }).then(function () {
      busy = false;
      markRendered();
      if (again) { again = false; refresh(true); }
    });
  }

  function poll() {
    if (!$("live").checked) return;
    getJSON("/api/meta").then(function (m) {
      $("store").textContent = m.path + " · " + m.count + " spans";
      if (m.head !== state.head) {
        state.head = m.head;
        refresh(true);
      }
    }, function (err) {
      $("updated").textContent = "error: " + err.message;
    });
  }

  $("tool").addEventListener("change", function () { state.tool = this.value; refresh(false); });
  $("errors").addEventListener("change", function () { state.errors = this.checked; refresh(false); });
  var typing;
  $("q").addEventListener("input", function () {
    var v = this.value;
    clearTimeout(typing);
    typing = setTimeout(function () { state.q = v.trim(); refresh(false); }, 250);
  });
  window.addEventListener("hashchange", function () { readHash(); refresh(false); });

  readHash();
  getJSON("/api/meta").then(function (m) {
    state.head = m.head;
    $("store").textContent = m.path + " · " + m.count + " spans";
  }).catch(function () {}).then(function () { refresh(true); });
  setInterval(poll, 2000);
})();
