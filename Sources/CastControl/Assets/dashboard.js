// castsim dashboard: a live view of the simulated device over the control API (docs/control-api.md).
// Plain JavaScript, no build step, nothing fetched from anywhere but this server.
//
// The dashboard is several scripts, each one job; dashboard.html loads them in this order
// (<script defer>: they run in order, once the page is parsed):
//   dashboard.js         the base: API access, toasts, formatting helpers, the apps' config,
//                        the device state the panels show and its loading
//   dashboard-panels.js  rendering: the TV, the position bar, the panels
//   dashboard-log.js     the message log (virtualised) and its journal
//   dashboard-live.js    the event stream, the actions, the replay hooks, the start
//   recording.js         the recording player
// They share one object, window.castsimDashboard (`dash` in each): this file makes it and each
// later one adds what the others use from it (listed where it does). A later file's function is
// reached through `dash` at the time of the call; nothing runs before dashboard-live.js starts.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);

  // ---------------------------------------------------------------- API access

  function readToken() {
    const fromQuery = new URLSearchParams(location.search).get("token");
    if (fromQuery) return fromQuery;
    const fromHash = new URLSearchParams(location.hash.replace(/^#/, "")).get("token");
    return fromHash || null;
  }
  const token = readToken();
  // In a household (several devices in one castsim) the page shows one device: the one
  // its ?device= names (the device picker sets it), else the first.
  const chosenDevice = new URLSearchParams(location.search).get("device");
  const apiURL = (path) => {
    const url = new URL("api/v1/" + path, location.href);
    // %20, not URLSearchParams' "+": a query's "+" is a plus sign to the server.
    if (chosenDevice) url.search += (url.search ? "&" : "?") + "device=" + encodeURIComponent(chosenDevice);
    return url;
  };

  class ApiError extends Error {
    constructor(message, status, issues) {
      super(message);
      this.status = status;
      this.issues = issues || null;
    }
  }

  async function api(method, path, body) {
    const headers = { Accept: "application/json" };
    if (token) headers.Authorization = "Bearer " + token;
    // A request that hangs must not stall the dashboard (state loads are serialised).
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 10000);
    const init = { method, headers, cache: "no-store", signal: controller.signal };
    if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    let response;
    let text;
    try {
      response = await fetch(apiURL(path), init);
      text = await response.text();
    } catch (error) {
      const why = error && error.name === "AbortError" ? "no answer in 10 s" : error && error.message ? error.message : String(error);
      throw new ApiError(`${method} /api/v1/${path}: cannot reach castsim (${why})`, 0);
    } finally {
      clearTimeout(timer);
    }
    let data = null;
    if (text) {
      try { data = JSON.parse(text); } catch (_) { data = null; }
    }
    if (!response.ok) {
      let message = data && typeof data.error === "string" ? data.error : `${response.status} ${response.statusText}`.trim();
      if (response.status === 401 && !(data && data.error)) message = "401: missing or wrong token (open the dashboard with ?token=…)";
      throw new ApiError(message, response.status, data && Array.isArray(data.issues) ? data.issues : null);
    }
    return data;
  }

  // ---------------------------------------------------------------- toasts

  function toast(message, kind = "info", issues = null) {
    const box = $("toasts");
    // The same error twice (the state and the journal failing alike) shows once.
    for (const existing of box.querySelectorAll(".toast")) {
      if (existing.dataset.message === message && existing.classList.contains(kind)) existing.remove();
    }
    const el = document.createElement("div");
    el.className = "toast " + kind;
    el.setAttribute("role", kind === "error" ? "alert" : "status");
    el.dataset.testid = kind === "error" ? "toast-error" : "toast";
    el.textContent = message;
    el.dataset.message = message;
    if (issues && issues.length) {
      const list = document.createElement("ul");
      list.className = "issues";
      for (const issue of issues.slice(0, 8)) {
        const li = document.createElement("li");
        li.textContent = `${issue.path || ""} ${issue.message || ""}`.trim();
        list.appendChild(li);
      }
      el.appendChild(list);
    }
    if (kind === "ok") for (const previous of box.querySelectorAll(".toast.ok")) previous.remove();
    box.appendChild(el);
    while (box.children.length > 4) box.firstElementChild.remove();
    setTimeout(() => el.remove(), kind === "error" ? 7000 : 1600);
  }

  function showError(error) {
    toast(error && error.message ? error.message : String(error), "error", error && error.issues);
  }

  // ---------------------------------------------------------------- formatting helpers

  const isNum = (v) => typeof v === "number" && Number.isFinite(v);

  function fmtTime(seconds) {
    if (!isNum(seconds)) return "–:––";
    const negative = seconds < 0;
    let s = Math.floor(Math.abs(seconds));
    const h = Math.floor(s / 3600);
    s -= h * 3600;
    const m = Math.floor(s / 60);
    s -= m * 60;
    const text = h > 0 ? `${h}:${String(m).padStart(2, "0")}:${String(s).padStart(2, "0")}` : `${m}:${String(s).padStart(2, "0")}`;
    return negative ? "-" + text : text;
  }

  function fmtSim(seconds) {
    return isNum(seconds) ? seconds.toFixed(seconds >= 1000 ? 0 : 1) + " s" : "—";
  }

  /** A Cast colour "#RRGGBB" or "#RRGGBBAA" (alpha last) as CSS rgba(); null when it is not one. */
  function castColor(value) {
    if (typeof value !== "string") return null;
    const m = /^#([0-9a-fA-F]{6})([0-9a-fA-F]{2})?$/.exec(value.trim());
    if (!m) return null;
    const n = parseInt(m[1], 16);
    const alpha = m[2] === undefined ? 1 : parseInt(m[2], 16) / 255;
    return `rgba(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255}, ${Math.round(alpha * 1000) / 1000})`;
  }

  function compactJSON(value, max = 160) {
    let text;
    try { text = JSON.stringify(value); } catch (_) { text = String(value); }
    if (text === undefined) text = String(value);
    return text.length > max ? text.slice(0, max - 1) + "…" : text;
  }

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function hashHue(text) {
    let h = 2166136261;
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
    return Math.abs(h) % 360;
  }

  function initials(title) {
    const words = String(title || "").split(/[\s\-_:·.,/]+/).filter((w) => /^[\p{L}\p{N}]/u.test(w));
    if (words.length === 0) return "?";
    const chars = words.slice(0, 2).map((w) => Array.from(w)[0].toUpperCase());
    return chars.join("");
  }

  // ---------------------------------------------------------------- the apps

  /**
   * What the server says its apps bring (dashboard.html's #dashboard-apps): `panels`, each
   * `{key, title, namespace}` (the state's member it fills, its title, the namespace of its
   * events), and `namespaces`, short name → namespace. Empty when the page came from elsewhere.
   */
  const APPS = (() => {
    try {
      const apps = JSON.parse(document.getElementById("dashboard-apps").textContent);
      return { panels: Array.isArray(apps.panels) ? apps.panels : [], namespaces: apps.namespaces && typeof apps.namespaces === "object" ? apps.namespaces : {} };
    } catch (_) {
      return { panels: [], namespaces: {} };
    }
  })();

  // ---------------------------------------------------------------- device state

  /** What the panels show, read and written by every file (dash.view). */
  const view = {
    state: null,
    // While a recording is open (recording.js) the panels show its state, not the device's:
    // `replaying` is true, `state` is the recorded state and `liveState` the newest live one.
    replaying: false,
    liveState: null,
    // The device clock as last seen: its time at `at` (performance.now()), its mode and speed.
    clock: null,
    // The volume slider is in the user's hands: a new state does not move it meanwhile.
    sliderBusy: false,
  };
  let stateFailures = 0;

  function deviceNow() {
    const clock = view.clock;
    if (!clock) return view.state && isNum(view.state.time) ? view.state.time : 0;
    if (clock.mode === "manual") return clock.time;
    const elapsed = (performance.now() - clock.at) / 1000;
    const speed = clock.mode === "scaled" ? (isNum(clock.speed) ? clock.speed : 1) : 1;
    return clock.time + elapsed * speed;
  }

  function setClock(c, time) {
    if (!c) return;
    const clock = view.clock;
    view.clock = {
      mode: c.mode || (clock && clock.mode) || "real",
      speed: c.speed === undefined ? (clock ? clock.speed : null) : c.speed,
      time: isNum(time) ? time : isNum(c.time) ? c.time : 0,
      at: performance.now(),
    };
  }

  let stateTimer = null;
  let stateLoading = false;
  let stateAgain = false;

  function scheduleState(delay = 100) {
    if (stateTimer !== null) return;
    stateTimer = setTimeout(() => { stateTimer = null; loadState(); }, delay);
  }

  async function loadState() {
    if (stateLoading) { stateAgain = true; return; }
    stateLoading = true;
    try {
      const s = await api("GET", "state");
      stateFailures = 0;
      applyState(s);
    } catch (error) {
      stateFailures += 1;
      if (stateFailures === 1) showError(error);
    } finally {
      stateLoading = false;
      if (stateAgain) { stateAgain = false; scheduleState(0); }
    }
  }

  function applyState(s) {
    if (!s || typeof s !== "object") return;
    setClock(s.clock || { mode: "real" }, isNum(s.time) ? s.time : s.clock && s.clock.time);
    if (view.replaying) { view.liveState = s; return; }
    view.state = s;
    dash.render();
  }

  // ---------------------------------------------------------------- the shared object

  // The later files add: dashboard-panels.js render, renderDiscovery, tick; dashboard-log.js
  // shortNamespace, setupLog, scheduleLog, resyncJournal, onMessage;
  // dashboard-live.js showReplayState, endReplay (recording.js's hooks).
  const dash = {
    $, api, apiURL, token, chosenDevice, toast, showError,
    isNum, fmtTime, fmtSim, castColor, compactJSON, el, hashHue, initials,
    apps: APPS,
    view, deviceNow, setClock, scheduleState, loadState, applyState,
    get replaying() { return view.replaying; },
  };
  window.castsimDashboard = dash;
})();
