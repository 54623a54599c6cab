// cardc serve: the one script of every page (no inline script anywhere).
//  * live reload: /events says when a build finished; the page fetches itself
//    again and swaps in the new #status and #page, keeping the filter;
//  * the gallery filter;
//  * a simulation's progress bar;
//  * the table's card pictures, large on hover, focus or tap;
//  * a table's live moves (server-sent events), the replay's arrow keys.
"use strict";
(function () {
  const body = document.body;

  function swapFrom(html) {
    const doc = new DOMParser().parseFromString(html, "text/html");
    for (const id of ["status", "page"]) {
      const now = document.getElementById(id);
      const next = doc.getElementById(id);
      if (now && next) now.replaceWith(next);
    }
    const nav = document.querySelector("nav.games");
    const nextNav = doc.querySelector("nav.games");
    if (nav && nextNav) nav.replaceWith(nextNav);
    body.dataset.version = doc.body.dataset.version;
    for (const k of ["sim", "simFinished", "moves"]) {
      if (doc.body.dataset[k] !== undefined) body.dataset[k] = doc.body.dataset[k];
    }
    setUp();
  }

  // what the designer typed or picked on the page (the filter, a new game's
  // seed and seats…): a rebuild that swaps the page in again keeps it
  function fieldKey(el) {
    const key = el.id ? "#" + el.id
      : el.name ? (el.form ? el.form.getAttribute("action") : "") + " " + el.name : null;
    return key && el.type === "radio" ? key + "=" + el.value : key;
  }
  function changed(el) {
    if (el.type === "hidden" || el.type === "submit") return false;
    if (el.tagName === "SELECT") return [...el.options].some(o => o.selected !== o.defaultSelected);
    if (el.type === "checkbox" || el.type === "radio") return el.checked !== el.defaultChecked;
    return el.value !== el.defaultValue;
  }
  function keptFields() {
    const kept = new Map();
    for (const el of document.querySelectorAll("input, select, textarea")) {
      const key = fieldKey(el);
      if (key && changed(el)) kept.set(key, el.type === "checkbox" || el.type === "radio" ? el.checked : el.value);
    }
    return kept;
  }
  function restoreFields(kept) {
    for (const el of document.querySelectorAll("input, select, textarea")) {
      const key = fieldKey(el);
      if (!key || !kept.has(key)) continue;
      if (el.type === "checkbox" || el.type === "radio") el.checked = kept.get(key);
      else el.value = kept.get(key);
      el.dispatchEvent(new Event("change"));
    }
  }

  let fetching = null, again = false;
  function refresh() {
    if (fetching) { again = true; return; }
    fetching = fetch(location.href, { cache: "no-store" })
      .then(r => r.text())
      .then(html => {
        // read at the swap, not at the fetch: what was typed meanwhile stays too
        const kept = keptFields();
        swapFrom(html);
        restoreFields(kept);
        applyFilter();
      })
      .catch(() => {})
      .finally(() => { fetching = null; if (again) { again = false; refresh(); } });
  }

  function applyFilter() {
    const f = document.getElementById("filter");
    if (!f) return;
    const k = document.getElementById("kind-filter");
    const words = f.value.toLowerCase().split(/\s+/).filter(Boolean);
    const kind = k ? k.value : "";
    let shown = 0, total = 0;
    for (const group of document.querySelectorAll("section.group")) {
      let any = false;
      for (const card of group.querySelectorAll(".card")) {
        const ok = (!kind || card.dataset.kind === kind) &&
          words.every(w => card.dataset.search.includes(w));
        card.hidden = !ok;
        any = any || ok; total += 1; shown += ok ? 1 : 0;
      }
      group.hidden = !any;
    }
    const out = document.getElementById("shown");
    if (out) out.textContent = shown === total ? "" : `${shown} of ${total} cards`;
  }

  let polling = false;
  function pollSimulation() {
    if (polling || !body.dataset.sim || body.dataset.simFinished === "yes") return;
    polling = true;
    const lost = on => { const el = document.getElementById("sim-lost"); if (el) el.hidden = !on; };
    const tick = () => fetch(body.dataset.sim, { cache: "no-store" })
      .then(r => { if (!r.ok) throw new Error(r.status); return r.json(); })
      .then(p => {
        lost(false);
        const bar = document.getElementById("sim-progress");
        if (bar) { bar.max = p.total; bar.value = p.done; }
        const count = document.getElementById("sim-count");
        if (count) count.textContent = `${p.done} / ${p.total}`;
        const rate = document.getElementById("sim-rate");
        if (rate) rate.textContent = p.rate;
        const waiting = document.getElementById("sim-waiting");
        if (waiting) waiting.hidden = p.state !== "queued";
        const ahead = document.getElementById("sim-ahead");
        if (ahead) ahead.textContent = p.ahead;
        if (p.finished) { polling = false; refresh(); } else { setTimeout(tick, 250); }
      })
      // the server stopped (or restarted and forgot nothing: the page is
      // fetched again once it answers): say so, and keep asking
      .catch(() => { lost(true); setTimeout(() => { polling = false; refresh(); }, 1000); });
    tick();
  }

  function setUp() {
    const f = document.getElementById("filter");
    if (f && !f.dataset.bound) {
      f.dataset.bound = "1";
      f.addEventListener("input", applyFilter);
      document.getElementById("kind-filter").addEventListener("change", applyFilter);
      f.form.addEventListener("submit", e => e.preventDefault());
    }
    applyFilter();
    pollSimulation();
    const log = document.getElementById("log");
    if (log) log.scrollTop = log.scrollHeight;      // the latest moves in view
    const players = document.getElementById("players");
    if (players && !players.dataset.bound) {
      players.dataset.bound = "1";
      const seats = () => {
        for (const s of document.querySelectorAll(".seat")) s.hidden = +s.dataset.seat >= +players.value;
      };
      players.addEventListener("change", seats);
      seats();
    }
  }

  // a card on the table: pointed at or focused, its picture shows large in
  // #preview; a tap (a click) keeps it there until Escape or another tap
  let pinned = null;
  function preview(button) {
    const box = document.getElementById("preview");
    if (!box) return;
    if (!button) { box.hidden = true; return; }
    box.querySelector("img").src = button.dataset.big;
    box.querySelector("img").alt = button.getAttribute("aria-label");
    box.querySelector("a").href = button.dataset.page;
    box.hidden = false;
  }
  const picOf = e => e.target.closest && e.target.closest("button.pic");
  document.addEventListener("mouseover", e => { const b = picOf(e); if (b) preview(b); });
  document.addEventListener("mouseout", e => { if (picOf(e) && !pinned) preview(null); });
  document.addEventListener("focusin", e => { const b = picOf(e); if (b) preview(b); });
  document.addEventListener("focusout", e => { if (picOf(e) && !pinned) preview(null); });
  document.addEventListener("click", e => {
    const b = picOf(e);
    if (pinned) pinned.classList.remove("shown");
    pinned = b && b !== pinned ? b : null;
    if (pinned) pinned.classList.add("shown");
    if (b || !e.target.closest("#preview")) preview(pinned);
  });
  document.addEventListener("keydown", e => {
    if (e.key === "Escape" && pinned) { pinned.classList.remove("shown"); pinned = null; preview(null); }
    // the replay viewer: the arrow keys step back and forth (not while typing)
    const step = { ArrowLeft: "replay-prev", ArrowRight: "replay-next" }[e.key];
    if (step && document.getElementById(step) && !e.target.closest("input, select, textarea")) {
      location.href = document.getElementById(step).href;
    }
  });

  setUp();
  if (window.EventSource) {
    // one stream a page (a browser opens at most six connections to a
    // server): a table's page follows its table's stream, which also
    // carries the builds; every other page follows /events
    const events = new EventSource(body.dataset.tableEvents || "/events");
    // a table's page: another person's move (or the host's step back) makes
    // the page fetch itself again; after a lost connection the browser
    // reconnects, and the first message says whether anything moved meanwhile
    events.addEventListener("moved", e => {
      if (String(JSON.parse(e.data).moves) !== body.dataset.moves) refresh();
    });
    // the server stopped: say so; the browser reconnects by itself, and the
    // page is fetched again once the server is back
    let gone = false;
    events.addEventListener("error", () => {
      gone = true;
      let banner = document.getElementById("server-gone");
      if (!banner) {
        banner = document.createElement("div");
        banner.id = "server-gone";
        banner.setAttribute("role", "alert");
        banner.textContent = "The server does not answer: start cardc serve again; this page follows it when it is back.";
        document.body.appendChild(banner);
      }
      banner.hidden = false;
    });
    events.addEventListener("open", () => {
      if (!gone) return;
      gone = false;
      const banner = document.getElementById("server-gone");
      if (banner) banner.hidden = true;
      refresh();
    });
    events.addEventListener("build", e => {
      const news = JSON.parse(e.data);
      let badge = document.getElementById("rebuilding");
      if (!badge) {
        badge = document.createElement("div");
        badge.id = "rebuilding";
        badge.setAttribute("role", "status");
        document.body.appendChild(badge);
      }
      badge.textContent = news.building.length ? `rebuilding ${news.building.join(", ")}…` : "";
      badge.hidden = !news.building.length;
      if (news.version !== body.dataset.version) refresh();
    });
  }
})();
