// verdict dashboard: live updates over server-sent events, and countdowns. No libraries; the
// page works without this script, less the live parts. Times count from the server's clock.
"use strict";
(() => {
  const body = document.body;
  let offset = Number(body.dataset.now) - Date.now();
  const live = document.getElementById("live");
  let stale = false;
  let busy = false;
  let again = false;

  // The same words as render/time.rs: at most two units.
  const two = (a, u, b, v) => (b ? `${a} ${u} ${b} ${v}` : `${a} ${u}`);
  const span = (ms) => {
    const s = Math.floor(Math.max(0, ms) / 1000);
    if (s < 60) return `${s} s`;
    if (s < 3600) return two(Math.floor(s / 60), "min", s % 60, "s");
    if (s < 86400) return two(Math.floor(s / 3600), "h", Math.floor((s % 3600) / 60), "min");
    return two(Math.floor(s / 86400), "d", Math.floor((s % 86400) / 3600), "h");
  };

  const tick = () => {
    const now = Date.now() + offset;
    for (const t of document.querySelectorAll("time[data-due]")) {
      const d = Number(t.dataset.due) - now;
      t.textContent = d < 1000 ? "due" : `in ${span(d)}`;
    }
    for (const t of document.querySelectorAll("time[data-since]")) {
      t.textContent = span(now - Number(t.dataset.since));
    }
    for (const t of document.querySelectorAll("time[data-rel]")) {
      const d = Number(t.dataset.rel) - now;
      t.textContent = Math.abs(d) < 1000 ? "now" : d > 0 ? `in ${span(d)}` : `${span(-d)} ago`;
    }
  };

  // The indicator: the connection in words, and a reload button when an update waits.
  let connected = false;
  const show = () => {
    if (!live) return;
    live.hidden = false;
    live.className = `live ${stale ? "stale" : connected ? "on" : "off"}`;
    live.textContent = connected ? "live" : "reconnecting…";
    if (stale) {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = "updated, reload";
      button.addEventListener("click", () => location.reload());
      live.append(" · ", button);
    }
  };

  // A person is using a form in <main>: focus in a field, or text typed and not yet sent.
  const editing = () => {
    const main = document.querySelector("main");
    const active = document.activeElement;
    if (main.contains(active) && active.matches("input, select, textarea")) return true;
    for (const f of main.querySelectorAll("input, textarea")) {
      if (f.type !== "hidden" && f.value !== f.defaultValue) return true;
    }
    for (const s of main.querySelectorAll("select")) {
      const initial = [...s.options].findIndex((o) => o.defaultSelected);
      if (s.selectedIndex !== Math.max(0, initial)) return true;
    }
    return false;
  };

  // How to find the focused element again in the new <main>: its id, a link's target, or
  // the button of a form's action.
  const selector = (el) => {
    const attr = (name, value) => `[${name}="${CSS.escape(value)}"]`;
    if (el.id) return `#${CSS.escape(el.id)}`;
    if (el.matches("a[href]")) return `a${attr("href", el.getAttribute("href"))}`;
    const form = el.closest("form[action]");
    if (form && el.matches("button")) return `form${attr("action", form.getAttribute("action"))} button`;
    return "";
  };

  const swap = (doc) => {
    const old = document.querySelector("main");
    const fresh = doc.querySelector("main");
    if (!fresh) return;
    const open = [...old.querySelectorAll("details[open][id]")].map((d) => d.id);
    const focused = old.contains(document.activeElement) ? selector(document.activeElement) : "";
    const scroll = window.scrollY;
    old.replaceWith(document.adoptNode(fresh));
    for (const id of open) document.getElementById(id)?.setAttribute("open", "");
    if (focused) document.querySelector(`main ${focused}`)?.focus({ preventScroll: true });
    window.scrollTo(0, scroll);
    body.dataset.watermark = doc.body.dataset.watermark;
    offset = Number(doc.body.dataset.now) - Date.now();
    document.title = doc.title;
    tick();
  };

  const refresh = async () => {
    if (busy) { again = true; return; }
    busy = true;
    try {
      const response = await fetch(location.href, { headers: { Accept: "text/html" } });
      if (response.ok) {
        const doc = new DOMParser().parseFromString(await response.text(), "text/html");
        stale = editing();
        if (!stale) swap(doc);
        show();
      }
    } catch (_) {
      // The event stream reports the outage; the next change or reconnection catches up.
    } finally {
      busy = false;
      if (again) { again = false; refresh(); }
    }
  };

  // Once the person leaves the form untouched, a page marked stale catches up by itself.
  document.addEventListener("focusout", () => setTimeout(() => {
    if (stale && !editing()) refresh();
  }, 0));

  if ("EventSource" in window) {
    let lost = false;
    const events = new EventSource("/events");
    events.addEventListener("open", () => {
      connected = true;
      show();
      if (lost) { lost = false; refresh(); }
    });
    events.addEventListener("error", () => { lost = true; connected = false; show(); });
    events.addEventListener("change", (e) => {
      if (e.data !== body.dataset.watermark) refresh();
    });
  }
  tick();
  setInterval(tick, 1000);
})();
