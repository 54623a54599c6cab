// cardc serve: the one script of every page (no inline script anywhere).
//  * live reload: /events says when a build finished; the page fetches itself
//    again and swaps in the new #status and #page, keeping the filter;
//  * the gallery filter;
//  * a simulation's progress bar.
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
    for (const k of ["sim", "simFinished"]) {
      if (doc.body.dataset[k] !== undefined) body.dataset[k] = doc.body.dataset[k];
    }
    setUp();
  }

  let fetching = null, again = false;
  function refresh() {
    if (fetching) { again = true; return; }
    const filter = document.getElementById("filter");
    const kind = document.getElementById("kind-filter");
    const kept = [filter && filter.value, kind && kind.value];
    fetching = fetch(location.href, { cache: "no-store" })
      .then(r => r.text())
      .then(html => {
        swapFrom(html);
        const f = document.getElementById("filter"), k = document.getElementById("kind-filter");
        if (f && kept[0]) f.value = kept[0];
        if (k && kept[1]) k.value = kept[1];
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
    const tick = () => fetch(body.dataset.sim, { cache: "no-store" })
      .then(r => r.json())
      .then(p => {
        const bar = document.getElementById("sim-progress");
        if (bar) { bar.max = p.total; bar.value = p.done; }
        const count = document.getElementById("sim-count");
        if (count) count.textContent = `${p.done} / ${p.total}`;
        const rate = document.getElementById("sim-rate");
        if (rate) rate.textContent = p.rate;
        if (p.finished) { polling = false; refresh(); } else { setTimeout(tick, 250); }
      })
      .catch(() => { polling = false; });
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

  setUp();
  if (window.EventSource) {
    const events = new EventSource("/events");
    events.addEventListener("build", e => {
      const news = JSON.parse(e.data);
      let badge = document.getElementById("rebuilding");
      if (!badge) {
        badge = document.createElement("div");
        badge.id = "rebuilding";
        document.body.appendChild(badge);
      }
      badge.textContent = news.building.length ? `rebuilding ${news.building.join(", ")}…` : "";
      badge.hidden = !news.building.length;
      if (news.version !== body.dataset.version) refresh();
    });
  }
})();
