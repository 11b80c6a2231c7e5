// co telemetry: the span tree of one trace as a waterfall, each span's
// attributes, events and status shown when its row is clicked. Shared by the
// static trace page (co traces) and the dashboard (co logs). Text from spans
// (prompts, tool output) is only ever set with textContent, never as HTML.
"use strict";

var CoWaterfall = (function () {
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function attr(s, k) {
    var v = s.attributes ? s.attributes[k] : undefined;
    return v === undefined || v === null ? "" : v;
  }

  function category(s) {
    var op = attr(s, "gen_ai.operation.name");
    if (op === "invoke_agent" || s.name.indexOf("invoke_agent") === 0) return "agent";
    if (op === "chat" || op === "text_completion" || op === "generate_content" || s.name.indexOf("chat ") === 0) return "llm";
    if (op === "execute_tool" || s.name.indexOf("execute_tool") === 0) return "tool";
    return "other";
  }

  var KIND = { agent: "AGENT", llm: "LLM", tool: "TOOL", other: "SPAN" };

  function fmtDur(ms) {
    if (ms < 1) return Math.round(ms * 1000) + "µs";
    if (ms < 100) return ms.toFixed(1) + "ms";
    if (ms < 1000) return Math.round(ms) + "ms";
    if (ms < 60000) return (ms / 1000).toFixed(2) + "s";
    var s = Math.round(ms / 1000);
    return Math.floor(s / 60) + "m" + String(s % 60).padStart(2, "0") + "s";
  }

  function fmtTime(ns) {
    var d = new Date(ns / 1e6);
    return d.toLocaleTimeString([], { hour12: false }) + "." + String(d.getMilliseconds()).padStart(3, "0");
  }

  // rows orders the spans depth-first by start time; spans whose parent is
  // not in the trace (still running, or pruned) are roots.
  function rows(spans) {
    var byId = {}, kids = {}, roots = [];
    spans.forEach(function (s) { byId[s.id] = s; });
    spans.forEach(function (s) {
      if (s.parent_id && byId[s.parent_id]) (kids[s.parent_id] = kids[s.parent_id] || []).push(s);
      else roots.push(s);
    });
    var order = function (a, b) { return a.start_time - b.start_time; };
    var out = [];
    (function walk(list, depth) {
      list.sort(order).forEach(function (s) {
        out.push({ span: s, depth: depth });
        if (kids[s.id]) walk(kids[s.id], depth + 1);
      });
    })(roots, 0);
    return out;
  }

  // The server sends span text through co's sanitiser (internal/termsafe);
  // pretty-printing JSON decodes its \u escapes again, so the C1 controls,
  // DEL and the invisible characters that sanitiser marks (JSON.stringify
  // re-escapes only C0) are marked here the same way, e.g. <U+202E>.
  var HIDDEN = /[\u007f-\u009f\u00ad\u061c\u180e\u200b\u200e\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/g;
  function visible(s) {
    return s.replace(HIDDEN, function (c) {
      return "<U+" + ("000" + c.charCodeAt(0).toString(16).toUpperCase()).slice(-4) + ">";
    });
  }

  var CONTENT = { "gen_ai.input.messages": 1, "gen_ai.output.messages": 1, "gen_ai.tool.call.arguments": 1, "gen_ai.tool.call.result": 1 };

  function valueNode(k, v) {
    if (typeof v !== "string") return el("code", "", JSON.stringify(v));
    var text = v;
    if (CONTENT[k] || (v.length > 1 && (v[0] === "{" || v[0] === "["))) {
      try { text = visible(JSON.stringify(JSON.parse(v), null, 2)); } catch (e) { text = v; }
    }
    if (text.length > 80 || text.indexOf("\n") >= 0) return el("pre", "", text);
    return el("code", "", text);
  }

  function kvTable(obj) {
    var t = el("table", "kv"), keys = Object.keys(obj || {}).sort();
    keys.forEach(function (k) {
      var tr = el("tr"), kd = el("td", "k", k), vd = el("td", "v");
      vd.appendChild(valueNode(k, obj[k]));
      tr.appendChild(kd); tr.appendChild(vd); t.appendChild(tr);
    });
    return t;
  }

  function detail(s) {
    var d = el("div", "wf-detail");
    d.hidden = true;
    var head = el("div", "mono");
    head.textContent = "span " + s.id + (s.parent_id ? "  parent " + s.parent_id : "") + "  kind " + s.kind +
      "  start " + fmtTime(s.start_time) + "  duration " + fmtDur(s.duration_ms) + "  status " + s.status_code;
    d.appendChild(head);
    if (s.status_description) {
      d.appendChild(el("h4", "", "Status"));
      d.appendChild(el("pre", "err", s.status_description));
    }
    d.appendChild(el("h4", "", "Attributes"));
    d.appendChild(kvTable(s.attributes));
    if (s.events && s.events.length) {
      d.appendChild(el("h4", "", "Events"));
      s.events.forEach(function (ev) {
        d.appendChild(el("div", "mono", ev.name + " @ " + fmtTime(ev.time)));
        if (ev.attributes) d.appendChild(kvTable(ev.attributes));
      });
    }
    d.appendChild(el("h4", "", "Resource"));
    d.appendChild(kvTable(s.resource));
    return d;
  }

  function keyAttrs(s) {
    var c = category(s), p = [];
    var add = function (label, k) { var v = attr(s, k); if (v !== "") p.push(label + "=" + v); };
    if (c === "agent") { add("turn", "co.turn"); add("outcome", "co.outcome"); add("requests", "co.llm_requests"); }
    if (c === "llm") { add("in", "gen_ai.usage.input_tokens"); add("out", "gen_ai.usage.output_tokens"); add("finish", "gen_ai.response.finish_reasons"); }
    if (c === "tool") { add("by", "co.approval.by"); add("status", "co.tool.status"); add("exit", "co.tool.exit_code"); }
    return p.join(" ");
  }

  // render draws spans into container. opts.onSelect(span) is called when a
  // row is opened.
  function render(container, spans, opts) {
    opts = opts || {};
    container.textContent = "";
    container.classList.add("wf");
    if (!spans || !spans.length) {
      container.appendChild(el("div", "empty", "No spans in this trace."));
      return;
    }
    var t0 = Infinity, t1 = -Infinity;
    spans.forEach(function (s) {
      t0 = Math.min(t0, s.start_time);
      t1 = Math.max(t1, s.end_time || s.start_time);
    });
    var total = Math.max(t1 - t0, 1);

    var axis = el("div", "wf-axis");
    axis.appendChild(el("div", "", spans.length + " spans"));
    var ticks = el("div", "wf-ticks");
    [0, 0.25, 0.5, 0.75, 1].forEach(function (f) {
      var tk = el("span", "wf-tick", fmtDur(total * f / 1e6));
      tk.style.left = (f * 100) + "%";
      ticks.appendChild(tk);
    });
    axis.appendChild(ticks);
    axis.appendChild(el("div", "wf-dur", "duration"));
    container.appendChild(axis);

    rows(spans).forEach(function (r) {
      var s = r.span, cat = category(s), isErr = s.status_code === "ERROR";
      var row = el("div", "wf-row cat-" + cat + (isErr ? " is-error" : ""));
      row.dataset.spanId = s.id;
      row.dataset.name = s.name;
      row.dataset.category = cat;
      row.title = keyAttrs(s);
      var label = el("div", "wf-label");
      label.style.paddingLeft = (r.depth * 16) + "px";
      var toggle = el("span", "wf-toggle", "▸");
      label.appendChild(toggle);
      label.appendChild(el("span", "wf-kind", KIND[cat]));
      label.appendChild(el("span", "wf-name", s.name));
      if (isErr) label.appendChild(el("span", "badge error", "ERROR"));
      var track = el("div", "wf-track");
      var bar = el("div", "wf-bar");
      var left = (s.start_time - t0) / total * 100;
      var width = Math.max(((s.end_time || t1) - s.start_time) / total * 100, 0.2);
      bar.style.left = left + "%";
      bar.style.width = width + "%";
      track.appendChild(bar);
      row.appendChild(label);
      row.appendChild(track);
      row.appendChild(el("div", "wf-dur", fmtDur(s.duration_ms)));
      var det = detail(s);
      row.addEventListener("click", function () {
        det.hidden = !det.hidden;
        row.classList.toggle("open", !det.hidden);
        toggle.textContent = det.hidden ? "▸" : "▾";
        if (!det.hidden && opts.onSelect) opts.onSelect(s);
      });
      container.appendChild(row);
      container.appendChild(det);
    });
  }

  function setAll(container, open) {
    container.querySelectorAll(".wf-row").forEach(function (row) {
      var det = row.nextElementSibling;
      if (det && det.classList.contains("wf-detail") && det.hidden === open) row.click();
    });
  }

  return { render: render, rows: rows, category: category, fmtDur: fmtDur, fmtTime: fmtTime, el: el, setAll: setAll };
})();
