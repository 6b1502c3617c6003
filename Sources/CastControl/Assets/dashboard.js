// castsim dashboard: a live view of the simulated device over the control API (docs/control-api.md).
// Plain JavaScript, no build step, nothing fetched from anywhere but this server.
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

  // ---------------------------------------------------------------- device state

  let state = null;
  // While a recording is open (recording.js) the panels show its state, not the device's:
  // `replaying` is true, `state` is the recorded state and `liveState` the newest live one.
  let replaying = false;
  let liveState = null;
  // The device clock as last seen: its time at `at` (performance.now()), its mode and speed.
  let clock = null;
  let stateFailures = 0;

  function deviceNow() {
    if (!clock) return state && isNum(state.time) ? state.time : 0;
    if (clock.mode === "manual") return clock.time;
    const elapsed = (performance.now() - clock.at) / 1000;
    const speed = clock.mode === "scaled" ? (isNum(clock.speed) ? clock.speed : 1) : 1;
    return clock.time + elapsed * speed;
  }

  function setClock(c, time) {
    if (!c) return;
    clock = {
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
    if (replaying) { liveState = s; return; }
    state = s;
    render();
  }

  // ---------------------------------------------------------------- rendering: the TV

  function currentItem(media) {
    if (!media || !Array.isArray(media.items)) return null;
    return media.items.find((i) => i && i.itemId === media.currentItemId) || null;
  }

  function mediaInfo(media) {
    const item = currentItem(media);
    if (item && item.media) return item.media;
    if (media && media.media) return media.media;
    if (media && Array.isArray(media.items) && media.items[0] && media.items[0].media && media.currentItemId == null) return media.items[0].media;
    return null;
  }

  function titleOf(info) {
    const md = (info && info.metadata) || {};
    if (md.title) return String(md.title);
    if (info && info.contentId) {
      const last = String(info.contentId).split(/[?#]/)[0].split("/").filter(Boolean).pop();
      return last || String(info.contentId);
    }
    return "Untitled";
  }

  function subtitleOf(info) {
    const md = (info && info.metadata) || {};
    const parts = [];
    if (md.seriesTitle) {
      const se = [md.season != null ? "S" + md.season : null, md.episode != null ? "E" + md.episode : null].filter(Boolean).join(" ");
      parts.push(se ? `${md.seriesTitle} · ${se}` : String(md.seriesTitle));
    }
    for (const key of ["subtitle", "artist", "albumArtist", "albumName", "composer", "studio"]) {
      if (md[key] && !parts.includes(String(md[key]))) parts.push(String(md[key]));
    }
    if (!parts.length && md.releaseDate) parts.push(String(md.releaseDate));
    return parts.join(" · ");
  }

  function trackLabel(track) {
    if (!track) return "";
    const name = track.name || track.language || `track ${track.trackId}`;
    return track.language && track.name && track.name !== track.language ? `${name} (${track.language})` : String(name);
  }

  function namedOf(value) {
    if (value == null) return null;
    if (typeof value === "string" || typeof value === "number") return String(value);
    if (typeof value === "object") {
      for (const key of ["title", "name", "id"]) {
        if (value[key] != null && typeof value[key] !== "object") return String(value[key]);
      }
    }
    return null;
  }

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

  /** The running app's panel (its key and title, and its member of the state), or null. */
  function appPanelOf(s) {
    const panel = s.app && s.app.panel && typeof s.app.panel === "object" ? s.app.panel : null;
    const value = panel && s[panel.key] && typeof s[panel.key] === "object" ? s[panel.key] : null;
    return panel && value ? { key: panel.key, title: panel.title || panel.key, value } : null;
  }

  function renderTV(s) {
    const tv = $("tv");
    const device = s.device || {};
    const app = s.app;
    const media = s.media;
    const panel = appPanelOf(s);
    const standby = !!device.standby;
    tv.classList.toggle("standby", standby);
    tv.dataset.standby = String(standby);
    tv.dataset.appId = app && app.appId ? app.appId : "";

    $("app-name").textContent = app ? app.displayName || app.appId || "App" : standby ? "Standby" : "No app running";
    $("app-id").textContent = app && app.appId ? app.appId + (app.idleScreen ? " · idle screen" : "") : "";

    const volume = s.volume || {};
    $("tv-volume").textContent = volume.muted ? "Muted" : isNum(volume.level) ? `Vol ${Math.round(volume.level * 100)}%` : "";

    const info = mediaInfo(media);
    const hasMedia = !!media || !!panel;
    tv.classList.toggle("has-media", hasMedia);
    if (!hasMedia) {
      $("tv-idle-text").textContent = app ? `${app.displayName || app.appId} · nothing playing` : "Ready to cast";
    }

    const playerState = media ? String(media.playerState || "IDLE") : panel ? String(panel.value.playerState || "IDLE") : "IDLE";
    tv.dataset.playerState = hasMedia ? playerState : "";

    // The app's own line above the title (what its panel says plays).
    const appLine = $("app-line");
    const summary = panel && typeof panel.value.summary === "string" ? panel.value.summary : "";
    appLine.textContent = summary;
    appLine.hidden = !summary;

    let title = info ? titleOf(info) : "";
    if (!info && panel) title = namedOf(panel.value.title) || panel.title;
    $("title").textContent = title;
    $("media-subtitle").textContent = info ? subtitleOf(info) : "";
    const art = $("artwork");
    $("artwork-initials").textContent = initials(title);
    const hue = hashHue(title || "castsim");
    art.style.setProperty("--art-a", `hsl(${hue} 48% 42%)`);
    art.style.setProperty("--art-b", `hsl(${(hue + 50) % 360} 55% 16%)`);

    $("player-state").textContent = playerState;
    // A recorded MEDIA_STATUS has no phase; its idleReason says why the player is idle.
    const phase = media && media.phase ? String(media.phase) : media && media.idleReason ? String(media.idleReason) : "";
    $("phase").textContent = phase && phase !== playerState.toLowerCase() ? phase : "";
    const buffering = !!media && (phase === "buffering" || playerState === "BUFFERING" || media.bufferingUntil != null);
    $("buffering").hidden = !buffering;
    $("buffering").lastChild.textContent = isNum(media && media.bufferingUntil) ? `Buffering until ${fmtSim(media.bufferingUntil)}` : "Buffering";
    const rate = media && isNum(media.playbackRate) ? media.playbackRate : 1;
    $("rate").textContent = rate !== 1 ? `×${rate}` : "";

    // Tracks.
    const tracks = info && Array.isArray(info.tracks) ? info.tracks : [];
    const active = media && Array.isArray(media.activeTrackIds) ? media.activeTrackIds : [];
    const isActive = (t) => t && active.includes(t.trackId);
    const audio = tracks.filter((t) => t && t.type === "AUDIO");
    const activeAudio = audio.filter(isActive);
    $("audio-track").textContent = activeAudio.length ? activeAudio.map(trackLabel).join(", ") : audio.length ? "default" : "—";
    const activeText = tracks.filter((t) => t && t.type === "TEXT" && isActive(t));
    $("text-track").textContent = activeText.length ? activeText.map(trackLabel).join(", ") : "off";
    $("caption-area").classList.toggle("inactive", activeText.length === 0);
    $("subtitle-sample").dataset.active = String(activeText.length > 0);
    const style = (media && media.textTrackStyle) || (info && info.textTrackStyle) || null;
    applyCaptionStyle(style);
  }

  const GENERIC_FAMILIES = {
    SANS_SERIF: '"DejaVu Sans", Arial, Helvetica, sans-serif',
    MONOSPACED_SANS_SERIF: '"DejaVu Sans Mono", "Droid Sans Mono", Menlo, Consolas, monospace',
    SERIF: '"DejaVu Serif", Georgia, "Times New Roman", serif',
    MONOSPACED_SERIF: '"Courier New", Courier, "Liberation Mono", monospace',
    CASUAL: '"Comic Sans MS", "Comic Neue", "Chalkboard SE", fantasy, sans-serif',
    CURSIVE: '"Brush Script MT", "URW Chancery L", "Apple Chancery", cursive',
    SMALL_CAPITALS: '"DejaVu Sans", Arial, sans-serif',
  };

  function edgeShadow(edgeType, color) {
    const c = color || "rgba(0, 0, 0, 1)";
    switch (edgeType) {
      case "OUTLINE": {
        const w = "0.06em";
        const offsets = [[`-${w}`, `-${w}`], [w, `-${w}`], [`-${w}`, w], [w, w], ["0", `-${w}`], ["0", w], [`-${w}`, "0"], [w, "0"]];
        return offsets.map(([x, y]) => `${x} ${y} 0 ${c}`).join(", ");
      }
      case "DROP_SHADOW":
        return `0.07em 0.07em 0.12em ${c}, 0.05em 0.05em 0.03em ${c}`;
      case "RAISED":
        return `0.03em 0.03em 0 ${c}, 0.06em 0.06em 0 ${c}, 0.09em 0.09em 0 ${c}`;
      case "DEPRESSED":
        return `-0.05em -0.05em 0 ${c}, 0.03em 0.03em 0 rgba(255, 255, 255, 0.35)`;
      default:
        return "none";
    }
  }

  let lastStyleKey = null;
  function applyCaptionStyle(style) {
    const key = JSON.stringify(style);
    if (key === lastStyleKey) return;
    lastStyleKey = key;
    const st = style && typeof style === "object" ? style : {};
    const sample = $("subtitle-sample");
    const win = $("subtitle-window");

    sample.style.color = castColor(st.foregroundColor) || "rgba(255, 255, 255, 1)";
    // A field the style leaves out has the receiver's default: white text on a dark translucent box.
    sample.style.backgroundColor = castColor(st.backgroundColor) || "rgba(0, 0, 0, 0.75)";
    const edgeType = st.edgeType || "NONE";
    sample.style.textShadow = edgeShadow(edgeType, castColor(st.edgeColor));

    const families = [];
    if (typeof st.fontFamily === "string" && st.fontFamily.trim()) families.push(`"${st.fontFamily.replace(/["\\]/g, "")}"`);
    families.push(GENERIC_FAMILIES[st.fontGenericFamily] || GENERIC_FAMILIES.SANS_SERIF);
    sample.style.fontFamily = families.join(", ");
    sample.style.fontVariant = st.fontGenericFamily === "SMALL_CAPITALS" ? "small-caps" : "normal";
    const scale = isNum(st.fontScale) && st.fontScale > 0 ? st.fontScale : 1;
    sample.style.fontSize = `calc(var(--cap-base) * ${scale})`;
    const fontStyle = st.fontStyle || "NORMAL";
    sample.style.fontWeight = fontStyle === "BOLD" || fontStyle === "BOLD_ITALIC" ? "700" : "400";
    sample.style.fontStyle = fontStyle === "ITALIC" || fontStyle === "BOLD_ITALIC" ? "italic" : "normal";

    const windowType = st.windowType || "NONE";
    const windowColor = castColor(st.windowColor);
    win.style.backgroundColor = windowType !== "NONE" && windowColor ? windowColor : "transparent";
    const radius = isNum(st.windowRoundedCornerRadius) ? st.windowRoundedCornerRadius : 8;
    win.style.borderRadius = windowType === "ROUNDED_CORNERS" ? `${radius}px` : "0";

    Object.assign(sample.dataset, {
      foregroundColor: st.foregroundColor || "",
      backgroundColor: st.backgroundColor || "",
      edgeType,
      edgeColor: st.edgeColor || "",
      windowType,
      fontFamily: st.fontFamily || "",
      fontGenericFamily: st.fontGenericFamily || "",
      fontScale: String(scale),
      fontStyle,
    });
    sample.title = style ? "Text track style: " + JSON.stringify(style) : "Default text track style";
  }

  // ---------------------------------------------------------------- rendering: the position bar (every frame)

  let lastPositionKey = "";
  function currentPosition() {
    const media = state && state.media;
    if (!media || !isNum(media.currentTime)) return null;
    let position = media.currentTime;
    const playing = media.playerState === "PLAYING" && (!media.phase || media.phase === "playing");
    if (playing && isNum(state.time)) {
      const rate = isNum(media.playbackRate) ? media.playbackRate : 1;
      position += rate * Math.max(0, deviceNow() - state.time);
    }
    const info = mediaInfo(media);
    const duration = info && isNum(info.duration) && info.duration > 0 ? info.duration : null;
    if (duration !== null) position = Math.min(position, duration);
    return { position: Math.max(0, position), duration, live: info && info.streamType === "LIVE" };
  }

  function tick() {
    $("clock-time").textContent = fmtSim(deviceNow());
    const p = state ? currentPosition() : null;
    const wrap = $("position");
    const bar = $("position-bar");
    let key;
    if (!p) {
      key = "none";
      if (key !== lastPositionKey) {
        $("position-fill").style.width = "0%";
        $("position-current").textContent = "0:00";
        $("position-duration").textContent = "";
        wrap.dataset.seconds = "0";
        wrap.dataset.duration = "";
        bar.setAttribute("aria-valuenow", "0");
        bar.setAttribute("aria-valuemax", "0");
        bar.removeAttribute("aria-valuetext");
        bar.classList.remove("live");
      }
    } else {
      const range = state.media.liveSeekableRange;
      let fraction;
      let durationText;
      if (p.duration !== null) {
        fraction = p.position / p.duration;
        durationText = fmtTime(p.duration);
      } else if (range && isNum(range.start) && isNum(range.end) && range.end > range.start) {
        fraction = (p.position - range.start) / (range.end - range.start);
        durationText = "LIVE";
      } else {
        fraction = 1;
        durationText = p.live ? "LIVE" : "";
      }
      fraction = Math.max(0, Math.min(1, fraction));
      key = `${fraction.toFixed(4)}|${Math.floor(p.position * 10)}|${durationText}`;
      if (key !== lastPositionKey) {
        $("position-fill").style.width = (fraction * 100).toFixed(3) + "%";
        $("position-current").textContent = fmtTime(p.position);
        $("position-duration").textContent = durationText;
        bar.classList.toggle("live", p.duration === null);
        wrap.dataset.seconds = p.position.toFixed(1);
        wrap.dataset.duration = p.duration !== null ? String(p.duration) : "";
        bar.setAttribute("aria-valuenow", p.position.toFixed(1));
        bar.setAttribute("aria-valuemax", p.duration !== null ? String(p.duration) : "0");
        bar.setAttribute("aria-valuetext", `${fmtTime(p.position)}${durationText ? " of " + durationText : ""}`);
      }
    }
    lastPositionKey = key;
    requestAnimationFrame(tick);
  }

  // ---------------------------------------------------------------- rendering: panels

  let lastQueueKey = null;
  function renderQueue(media) {
    const items = media && Array.isArray(media.items) ? media.items : [];
    const key = JSON.stringify([items.map((i) => [i.itemId, i.media && i.media.metadata && i.media.metadata.title, i.media && i.media.contentId, i.media && i.media.duration]),
      media && media.currentItemId, media && media.loadingItemId, media && media.preloadedItemId]);
    if (key === lastQueueKey) return;
    lastQueueKey = key;
    const list = $("queue");
    list.replaceChildren();
    $("queue-count").textContent = items.length ? `(${items.length})` : "";
    if (!items.length) {
      list.appendChild(el("li", "empty", media ? "The queue is empty" : "No media session"));
      return;
    }
    for (const item of items) {
      const li = el("li");
      li.dataset.itemId = String(item.itemId);
      const current = item.itemId === media.currentItemId;
      if (current) { li.classList.add("current"); li.setAttribute("aria-current", "true"); }
      li.appendChild(el("span", "qid", "#" + item.itemId));
      li.appendChild(el("span", "qtitle", titleOf(item.media)));
      const tag = el("span", "qtag");
      if (current) tag.appendChild(el("span", "chip on", "now"));
      else if (item.itemId === media.loadingItemId) tag.appendChild(el("span", "chip", "loading"));
      else if (item.itemId === media.preloadedItemId) tag.appendChild(el("span", "chip", "preloaded"));
      li.appendChild(tag);
      const d = item.media && item.media.duration;
      li.appendChild(el("span", "qdur", isNum(d) && d > 0 ? fmtTime(d) : item.media && item.media.streamType === "LIVE" ? "LIVE" : ""));
      list.appendChild(li);
    }
  }

  let lastSendersKey = null;
  function renderSenders(connections, readOnly = false) {
    const conns = Array.isArray(connections) ? connections : [];
    const key = JSON.stringify([conns, readOnly]);
    if (key === lastSendersKey) return;
    lastSendersKey = key;
    const box = $("senders");
    box.replaceChildren();
    const senderCount = conns.reduce((n, c) => n + (Array.isArray(c.senders) ? c.senders.length : 0), 0);
    $("senders-count").textContent = `(${conns.length} connection${conns.length === 1 ? "" : "s"}, ${senderCount} sender${senderCount === 1 ? "" : "s"})`;
    if (!conns.length) {
      box.appendChild(el("div", "empty", "No sender connected"));
      return;
    }
    for (const conn of conns) {
      const card = el("div", "conn");
      card.dataset.connectionId = String(conn.id);
      card.dataset.testid = "connection-" + conn.id;
      const head = el("div", "conn-head");
      head.appendChild(el("span", "conn-name", "Connection " + conn.id));
      const extra = Object.entries(conn).filter(([k, v]) => k !== "id" && k !== "senders" && v !== null && typeof v !== "object");
      if (extra.length) head.appendChild(el("span", "muted", extra.map(([k, v]) => `${k}: ${v}`).join(" · ")));
      head.appendChild(el("span", "spacer"));
      const button = (action, label, aria, title) => {
        if (readOnly) return;
        const b = el("button", "btn small", label);
        b.type = "button";
        b.dataset.action = action;
        b.dataset.connection = String(conn.id);
        b.setAttribute("aria-label", aria);
        if (title) b.title = title;
        head.appendChild(b);
      };
      button("close-clean", "Close", `Close connection ${conn.id} cleanly`, "Close cleanly (CLOSE and TLS close)");
      button("close-reset", "Reset", `Reset connection ${conn.id}`, "Close with a TCP reset");
      button("stall", "Stall", `Stall connection ${conn.id}'s replies`, "Delay this connection's replies by 10 s for 30 s");
      card.appendChild(head);
      const senders = Array.isArray(conn.senders) ? conn.senders : [];
      if (!senders.length) card.appendChild(el("div", "sender muted", "no virtual connection yet"));
      for (const sender of senders) {
        const row = el("div", "sender");
        row.dataset.senderId = String(sender.senderId || "");
        row.appendChild(el("span", "sid", `${sender.senderId || "?"} → ${sender.endpoint || "?"}`));
        row.appendChild(el("span", "chip stype", sender.type || ""));
        const ua = el("span", "ua", sender.userAgent || "no user agent");
        ua.title = sender.userAgent || "";
        row.appendChild(ua);
        card.appendChild(row);
      }
      box.appendChild(card);
    }
  }

  function renderPanelValue(value, depth = 0) {
    if (value === null || value === undefined) return el("span", "muted", "—");
    if (typeof value === "boolean") return el("span", "flag " + value, value ? "yes" : "no");
    if (typeof value !== "object") return el("span", "", String(value));
    if (Array.isArray(value)) {
      if (value.every((v) => v === null || typeof v !== "object")) return el("span", "", value.join(", ") || "[]");
      return el("span", "mono", compactJSON(value, 240));
    }
    if (depth >= 2) return el("span", "mono", compactJSON(value, 240));
    const wrap = el("span", "nested");
    for (const [k, v] of Object.entries(value)) {
      if (typeof v === "boolean") {
        const flag = el("span", "flag " + v, k);
        flag.title = `${k}: ${v}`;
        wrap.appendChild(flag);
      } else {
        const part = el("span");
        part.appendChild(el("span", "muted", k + ": "));
        part.appendChild(renderPanelValue(v, depth + 1));
        wrap.appendChild(part);
      }
    }
    return wrap;
  }

  // What a panel shows besides its fields: the line and title of the TV, its events.
  const PANEL_EXTRAS = new Set(["lastEvents", "summary", "title"]);
  let lastPanelKey = null;
  /** The running app's own panel: its fields as the state gives them, and the newest messages on its namespace. */
  function renderAppPanel(panel) {
    const key = JSON.stringify(panel);
    if (key === lastPanelKey) return;
    lastPanelKey = key;
    $("app-panel").hidden = !panel;
    const box = $("app-panel-fields");
    const events = $("app-panel-events");
    box.replaceChildren();
    events.replaceChildren();
    if (!panel) return;
    $("app-panel-title").textContent = panel.title;
    $("app-panel").dataset.panel = panel.key;
    for (const [k, v] of Object.entries(panel.value)) {
      if (PANEL_EXTRAS.has(k)) continue;
      const dt = el("span", "k", k);
      const dd = el("span", "v");
      dd.dataset.panelField = k;
      dd.appendChild(renderPanelValue(v));
      box.append(dt, dd);
    }
    const last = Array.isArray(panel.value.lastEvents) ? panel.value.lastEvents.slice().reverse() : [];
    if (!last.length) events.appendChild(el("li", "empty", "none yet"));
    for (const event of last) {
      const li = el("li");
      if (event && typeof event === "object") {
        if (isNum(event.time)) li.appendChild(el("span", "muted mono", event.time.toFixed(2)));
        const payload = event.payload && typeof event.payload === "object" ? event.payload : null;
        const type = (payload && payload.type) || event.type || event.event || event.name || "event";
        li.appendChild(el("span", "etype", type));
        let data;
        if (payload) {
          data = payload.data !== undefined ? payload.data : Object.fromEntries(Object.entries(payload).filter(([k]) => k !== "type"));
        } else {
          data = Object.fromEntries(Object.entries(event).filter(([k]) => !["time", "type", "event", "name"].includes(k)));
        }
        const text = el("span", "edata", data === undefined ? "" : compactJSON(data, 300));
        text.title = JSON.stringify(data, null, 2) || "";
        li.appendChild(text);
      } else {
        li.appendChild(el("span", "edata", compactJSON(event)));
      }
      events.appendChild(li);
    }
  }

  /** The "advertised" badge: what discovery really does, and why (its tooltip). */
  function renderDiscovery(s) {
    const badge = $("device-advertised");
    const d = s.discovery;
    let label;
    let kind;
    let why;
    if (s.replay) {
      [label, kind, why] = ["recorded", "", "A recording: the device as it was, not advertised now"];
    } else if (d && typeof d === "object") {
      const withdrawn = !d.advertised && typeof d.reason === "string" && d.reason.startsWith("withdrawn");
      label = d.advertised ? "advertised" : withdrawn ? "withdrawn" : "not advertised";
      kind = d.advertised ? "on" : "off";
      const by = d.mode === "avahi" ? "mDNS through avahi-daemon" : d.mode === "builtin" ? "mDNS (castsim's own responder)" : "mDNS off";
      const where = Array.isArray(d.interfaces) && d.interfaces.length ? " on " + d.interfaces.join(", ") : "";
      why = d.advertised ? `Advertised by ${by}${where}` : `Not advertised: ${d.reason || by}`;
      badge.dataset.mode = String(d.mode || "");
    } else {
      const on = s.device && s.device.advertised !== false;
      [label, kind, why] = [on ? "advertised" : "not advertised", on ? "on" : "off", "mDNS advertisement"];
    }
    badge.textContent = label;
    badge.className = "chip " + kind;
    badge.title = why;
    badge.dataset.advertised = String(kind === "on");
  }

  let sliderBusy = false;
  function render() {
    const s = state;
    if (!s) return;
    const device = s.device || {};
    $("device-name").textContent = device.name || "castsim";
    $("device-model").textContent = [device.model, device.manufacturer].filter(Boolean).join(" · ");
    renderDiscovery(s);
    const authSelect = $("device-auth");
    if (device.deviceAuth && document.activeElement !== authSelect) {
      if (![...authSelect.options].some((o) => o.value === device.deviceAuth)) {
        authSelect.appendChild(new Option(device.deviceAuth, device.deviceAuth));
      }
      authSelect.value = device.deviceAuth;
    }
    const standbyButton = $("standby-button");
    standbyButton.setAttribute("aria-pressed", String(!!device.standby));
    standbyButton.textContent = device.standby ? "Wake" : "Standby";

    const mode = (s.clock && s.clock.mode) || (clock && clock.mode) || "real";
    $("clock-mode").textContent = mode === "scaled" && s.clock && isNum(s.clock.speed) ? `scaled ×${s.clock.speed}` : mode;
    $("clock-controls").hidden = mode !== "manual" || !!s.replay;

    const volume = s.volume || {};
    const level = isNum(volume.level) ? volume.level : 1;
    const vol = $("volume");
    vol.textContent = volume.muted ? `muted` : `${Math.round(level * 100)}%`;
    vol.title = `level ${level}${volume.muted ? ", muted" : ""}`;
    vol.dataset.level = String(level);
    vol.dataset.muted = String(!!volume.muted);
    if (!sliderBusy) $("volume-slider").value = String(Math.round(level * 100));
    const mute = $("mute-button");
    mute.setAttribute("aria-pressed", String(!!volume.muted));
    mute.textContent = volume.muted ? "Unmute" : "Mute";
    mute.setAttribute("aria-label", volume.muted ? "Unmute" : "Mute");

    renderTV(s);
    renderQueue(s.media);
    renderSenders(s.connections, !!s.replay);
    renderAppPanel(appPanelOf(s));
  }

  // ---------------------------------------------------------------- the message log (virtualised)

  const LOG_MAX = 2000;
  const ROW_HEIGHT = 24;
  const DETAIL_LINE = 16;
  const DETAIL_MAX_LINES = 22;
  const SHORT_NAMESPACES = {
    "urn:x-cast:com.google.cast.tp.connection": "connection",
    "urn:x-cast:com.google.cast.tp.heartbeat": "heartbeat",
    "urn:x-cast:com.google.cast.tp.deviceauth": "deviceauth",
    "urn:x-cast:com.google.cast.receiver": "receiver",
    "urn:x-cast:com.google.cast.media": "media",
    // The apps' own short names.
    ...Object.fromEntries(Object.entries(APPS.namespaces).map(([alias, namespace]) => [namespace, alias])),
  };
  const shortNamespace = (ns) => SHORT_NAMESPACES[ns] || String(ns || "").replace(/^urn:x-cast:/, "").replace(/^com\.google\.cast\./, "");

  let entries = [];            // oldest first, at most LOG_MAX
  const seqs = new Set();
  const expanded = new Set();  // seqs of expanded rows
  let filtered = [];
  let offsets = [];            // offsets[i] = top of filtered[i]; offsets[filtered.length] = total height
  let logDirty = true;
  let logFrame = 0;
  let journalStats = null;
  const knownNamespaces = new Set(Object.values(SHORT_NAMESPACES));
  const knownTypes = new Set();
  const filters = { direction: "", namespace: "", type: "", text: "" };
  let namespacesChanged = true;
  let typesChanged = true;

  function prepare(entry) {
    entry._ns = shortNamespace(entry.namespace);
    if (!knownNamespaces.has(entry._ns)) { knownNamespaces.add(entry._ns); namespacesChanged = true; }
    if (entry.type && !knownTypes.has(entry.type) && knownTypes.size < 300) { knownTypes.add(String(entry.type)); typesChanged = true; }
    return entry;
  }

  function addEntry(entry) {
    if (!entry || typeof entry !== "object" || seqs.has(entry.seq)) return;
    seqs.add(entry.seq);
    entries.push(prepare(entry));
    if (entries.length > LOG_MAX) {
      const dropped = entries.splice(0, entries.length - LOG_MAX);
      for (const d of dropped) { seqs.delete(d.seq); expanded.delete(d.seq); }
    }
    scheduleLog();
  }

  function replaceEntries(list) {
    const unique = new Map();
    for (const entry of list) if (entry && typeof entry === "object") unique.set(entry.seq, entry);
    entries = [...unique.values()].sort((a, b) => a.seq - b.seq).slice(-LOG_MAX).map(prepare);
    seqs.clear();
    for (const entry of entries) seqs.add(entry.seq);
    for (const seq of [...expanded]) if (!seqs.has(seq)) expanded.delete(seq);
    scheduleLog();
  }

  function scheduleLog() {
    logDirty = true;
    if (!logFrame) logFrame = requestAnimationFrame(renderLog);
  }

  function matches(entry) {
    if (filters.direction && entry.direction !== filters.direction) return false;
    if (filters.namespace && entry._ns !== filters.namespace && entry.namespace !== filters.namespace) return false;
    if (filters.type && !String(entry.type || "").toLowerCase().includes(filters.type)) return false;
    if (filters.text) {
      if (entry._text === undefined) {
        let body;
        try { body = JSON.stringify(entry.payload); } catch (_) { body = ""; }
        entry._text = [entry.type, entry.namespace, entry.sourceId, entry.destinationId, entry.direction, entry.unhandled, entry.text, body]
          .filter((x) => x != null).join(" ").toLowerCase();
      }
      if (!entry._text.includes(filters.text)) return false;
    }
    return true;
  }

  function detailText(entry) {
    const meta = [
      `#${entry.seq}  t=${isNum(entry.time) ? entry.time.toFixed(3) : entry.time}  ${entry.direction}  connection ${JSON.stringify(entry.connections)}`,
      `${entry.sourceId} → ${entry.destinationId}  ${entry.namespace}`,
    ];
    if (entry.unhandled) meta.push(`unhandled: ${entry.unhandled}`);
    let body;
    if (entry.payload !== null && entry.payload !== undefined) body = JSON.stringify(entry.payload, null, 2);
    else if (entry.binary !== undefined) body = `binary payload (base64):\n${entry.binary}`;
    else if (entry.text !== undefined) body = `text payload:\n${entry.text}`;
    else body = "null";
    return meta.join("\n") + "\n\n" + body;
  }

  function rowHeight(entry) {
    if (!expanded.has(entry.seq)) return ROW_HEIGHT;
    if (entry._detail === undefined) {
      entry._detail = detailText(entry);
      entry._detailLines = entry._detail.split("\n").length;
    }
    return ROW_HEIGHT + Math.min(entry._detailLines, DETAIL_MAX_LINES) * DETAIL_LINE + 14;
  }

  function layoutLog() {
    filtered = entries.filter(matches);
    offsets = new Array(filtered.length + 1);
    let y = 0;
    for (let i = 0; i < filtered.length; i++) {
      offsets[i] = y;
      y += rowHeight(filtered[i]);
    }
    offsets[filtered.length] = y;
  }

  function firstIndexBelow(y) {
    // The first filtered index whose row ends below y.
    let lo = 0;
    let hi = filtered.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (offsets[mid + 1] <= y) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  const rowNodes = new Map(); // seq -> element currently in the DOM
  // The scroll position the dashboard itself set last: scroll events that land there are not
  // the user's, and must not turn following on or off.
  let programmaticTop = null;
  function scrollLogTo(box, top) {
    const target = Math.max(0, Math.min(top, box.scrollHeight - box.clientHeight));
    if (Math.abs(box.scrollTop - target) < 1) return;
    programmaticTop = target;
    box.scrollTop = target;
  }

  function buildRow(entry) {
    const row = el("div", "log-row " + (entry.direction === "out" ? "out" : "in"));
    if (entry.unhandled) row.classList.add("unhandled");
    row.dataset.seq = String(entry.seq);
    row.dataset.direction = String(entry.direction || "");
    row.dataset.namespace = entry._ns;
    row.dataset.type = String(entry.type || "");
    const line = el("div", "log-line");
    line.tabIndex = 0;
    line.setAttribute("role", "button");
    line.setAttribute("aria-expanded", String(expanded.has(entry.seq)));
    line.appendChild(el("span", "t", isNum(entry.time) ? entry.time.toFixed(3) : ""));
    line.appendChild(el("span", "dir", entry.direction === "out" ? "OUT" : "IN"));
    const conns = Array.isArray(entry.connections) ? entry.connections : [];
    line.appendChild(el("span", "cid", conns.length > 2 ? `${conns.length}c` : conns.map((c) => "#" + c).join(",")));
    line.appendChild(el("span", "ns", entry._ns));
    line.appendChild(el("span", "ty", entry.type || (entry.binary !== undefined ? "(binary)" : "(no type)")));
    line.appendChild(el("span", "ep", `${entry.sourceId} → ${entry.destinationId}`));
    line.title = entry.unhandled ? `unhandled: ${entry.unhandled}` : "Click to show the payload";
    row.appendChild(line);
    if (expanded.has(entry.seq)) {
      row.classList.add("expanded");
      const pre = el("pre", "log-detail", entry._detail);
      pre.style.height = (rowHeight(entry) - ROW_HEIGHT) + "px";
      pre.dataset.testid = "log-detail";
      row.appendChild(pre);
    }
    return row;
  }

  function renderLog() {
    logFrame = 0;
    const box = $("log");
    const follow = $("log-follow").checked;
    let anchor = null;
    if (logDirty) {
      // Keep the row at the top of the view in place when not following.
      if (!follow && filtered.length) {
        const i = firstIndexBelow(box.scrollTop);
        if (i < filtered.length) anchor = { seq: filtered[i].seq, delta: box.scrollTop - offsets[i] };
      }
      layoutLog();
      logDirty = false;
      updateLogChrome();
    }
    const total = offsets[filtered.length] || 0;
    $("log-spacer").style.height = total + "px";
    if (follow) {
      scrollLogTo(box, total - box.clientHeight);
    } else if (anchor) {
      const i = filtered.findIndex((e) => e.seq === anchor.seq);
      if (i >= 0) scrollLogTo(box, offsets[i] + anchor.delta);
    }
    if (revealSeq !== null) {
      // Show the whole of a row just expanded (its payload may open below the view).
      const i = filtered.findIndex((e) => e.seq === revealSeq);
      revealSeq = null;
      if (i >= 0 && offsets[i + 1] > box.scrollTop + box.clientHeight) {
        scrollLogTo(box, Math.min(offsets[i], offsets[i + 1] - box.clientHeight));
      }
    }
    renderLogRows();
  }

  function renderLogRows() {
    const box = $("log");
    const top = box.scrollTop;
    const bottom = top + box.clientHeight;
    const overscan = 10 * ROW_HEIGHT;
    const start = firstIndexBelow(Math.max(0, top - overscan));
    const wanted = new Map();
    for (let i = start; i < filtered.length && offsets[i] < bottom + overscan; i++) wanted.set(filtered[i].seq, i);
    for (const [seq, node] of rowNodes) {
      const i = wanted.get(seq);
      const stale = i === undefined || node.classList.contains("expanded") !== expanded.has(seq);
      if (stale) { node.remove(); rowNodes.delete(seq); }
    }
    for (const [seq, i] of wanted) {
      let node = rowNodes.get(seq);
      if (!node) {
        node = buildRow(filtered[i]);
        rowNodes.set(seq, node);
        box.appendChild(node);
      }
      const y = offsets[i] + "px";
      if (node.style.top !== y) node.style.top = y;
      node.style.height = (offsets[i + 1] - offsets[i]) + "px";
    }
    let empty = box.querySelector(".log-empty");
    if (!filtered.length) {
      if (!empty) { empty = el("div", "log-empty"); box.appendChild(empty); }
      empty.textContent = entries.length ? "No message matches the filters" : "No messages yet";
    } else if (empty) {
      empty.remove();
    }
  }

  function updateLogChrome() {
    const stats = journalStats && isNum(journalStats.seen) ? ` · ${journalStats.seen} seen` : "";
    $("log-count").textContent = `(${filtered.length} shown / ${entries.length} kept${stats})`;
    if (namespacesChanged) {
      namespacesChanged = false;
      const select = $("log-filter-namespace");
      const current = select.value;
      const options = [new Option("all namespaces", "")];
      for (const ns of [...knownNamespaces].sort()) options.push(new Option(ns, ns));
      select.replaceChildren(...options);
      select.value = current;
    }
    if (typesChanged) {
      typesChanged = false;
      const list = $("log-types");
      list.replaceChildren(...[...knownTypes].sort().map((t) => new Option(t, t)));
    }
  }

  let revealSeq = null;
  function toggleRow(seq) {
    if (expanded.has(seq)) expanded.delete(seq); else { expanded.add(seq); revealSeq = seq; }
    $("log-follow").checked = false;
    scheduleLog();
  }

  function setupLog() {
    const box = $("log");
    box.addEventListener("scroll", () => {
      const ours = programmaticTop !== null && Math.abs(box.scrollTop - programmaticTop) < 2;
      programmaticTop = null;
      if (!ours) {
        const atBottom = box.scrollTop + box.clientHeight >= box.scrollHeight - 4;
        const follow = $("log-follow");
        if (follow.checked !== atBottom) follow.checked = atBottom;
      }
      if (!logFrame) logFrame = requestAnimationFrame(() => { logFrame = 0; if (logDirty) renderLog(); else renderLogRows(); });
    }, { passive: true });
    const stopFollowing = () => { $("log-follow").checked = false; };
    box.addEventListener("wheel", (event) => { if (event.deltaY < 0) stopFollowing(); }, { passive: true });
    box.addEventListener("keydown", (event) => {
      if (["ArrowUp", "PageUp", "Home"].includes(event.key)) stopFollowing();
    });
    box.addEventListener("click", (event) => {
      const line = event.target.closest(".log-line");
      if (!line) return;
      const row = line.parentElement;
      toggleRow(Number(row.dataset.seq));
    });
    box.addEventListener("keydown", (event) => {
      if (event.key !== "Enter" && event.key !== " ") return;
      const line = event.target.closest && event.target.closest(".log-line");
      if (!line) return;
      event.preventDefault();
      toggleRow(Number(line.parentElement.dataset.seq));
    });
    $("log-follow").addEventListener("change", () => scheduleLog());
    let filterTimer = 0;
    const readFilters = () => {
      filters.direction = $("log-filter-direction").value;
      filters.namespace = $("log-filter-namespace").value;
      filters.type = $("log-filter-type").value.trim().toLowerCase();
      filters.text = $("log-filter-text").value.trim().toLowerCase();
      scheduleLog();
    };
    for (const id of ["log-filter-direction", "log-filter-namespace"]) $(id).addEventListener("change", readFilters);
    for (const id of ["log-filter-type", "log-filter-text"]) {
      $(id).addEventListener("input", () => { clearTimeout(filterTimer); filterTimer = setTimeout(readFilters, 120); });
    }
    window.addEventListener("resize", () => scheduleLog());
  }

  // Journal (re)synchronisation: the newest 500 from GET /journal, plus the messages the
  // event stream delivered meanwhile that are newer than them.
  let resyncGeneration = 0;
  let resyncBuffer = null;

  async function resyncJournal() {
    const generation = ++resyncGeneration;
    resyncBuffer = [];
    try {
      const journal = await api("GET", "journal?limit=500");
      if (generation !== resyncGeneration) return;
      const messages = journal && Array.isArray(journal.messages) ? journal.messages : [];
      const newest = messages.reduce((m, e) => Math.max(m, isNum(e.seq) ? e.seq : -Infinity), -Infinity);
      const later = (resyncBuffer || []).filter((e) => !(e.seq <= newest));
      journalStats = journal && isNum(journal.seen) ? { seen: journal.seen + later.length } : null;
      replaceEntries(messages.concat(later));
    } catch (error) {
      if (generation === resyncGeneration) {
        const buffered = resyncBuffer || [];
        resyncBuffer = null;
        for (const e of buffered) addEntry(e);
        showError(error);
      }
    } finally {
      if (generation === resyncGeneration) resyncBuffer = null;
    }
  }

  function onMessage(entry) {
    if (resyncBuffer) { resyncBuffer.push(entry); return; }
    if (journalStats && !seqs.has(entry.seq)) journalStats.seen += 1;
    addEntry(entry);
  }

  // ---------------------------------------------------------------- the event stream

  let source = null;
  let connectedOnce = false;
  let pollTimer = 0;

  function setConnection(stateName, text) {
    const box = $("conn-status");
    box.dataset.state = stateName;
    $("conn-status-text").textContent = text;
  }

  function parse(event) {
    try { return JSON.parse(event.data); } catch (_) { return null; }
  }

  function connectEvents() {
    const url = apiURL("events");
    if (token) url.searchParams.set("token", token);
    setConnection("connecting", connectedOnce ? "Reconnecting…" : "Connecting…");
    source = new EventSource(url.toString());
    source.addEventListener("open", () => {
      setConnection("open", "Live");
      clearInterval(pollTimer);
      pollTimer = 0;
    });
    source.addEventListener("error", () => {
      if (!source) return;
      if (source.readyState === EventSource.CLOSED) {
        // The browser gave up (an error status or a wrong content type): retry ourselves.
        setConnection("closed", "Offline");
        source.close();
        source = null;
        setTimeout(connectEvents, 3000);
      } else {
        setConnection("connecting", "Reconnecting…");
      }
      if (!pollTimer) pollTimer = setInterval(() => scheduleState(0), 5000);
    });
    source.addEventListener("hello", (event) => {
      setConnection("open", "Live");
      const data = parse(event);
      if (data && isNum(data.time) && clock) setClock(clock, data.time);
      // Catch up with what happened before the stream was (re)connected.
      resyncJournal();
      connectedOnce = true;
      scheduleState(0);
    });
    source.addEventListener("device", (event) => {
      const data = parse(event);
      if (data && !replaying) {
        const line = $("last-event");
        line.textContent = `${isNum(data.time) ? data.time.toFixed(2) + "  " : ""}${data.text || data.kind || ""}`;
        line.title = JSON.stringify(data);
      }
      scheduleState(100);
    });
    source.addEventListener("clock", (event) => {
      const data = parse(event);
      if (data) setClock(data, data.time);
      scheduleState(100);
    });
    source.addEventListener("reset", () => {
      resyncJournal();
      scheduleState(100);
    });
    source.addEventListener("discovery", (event) => {
      const data = parse(event);
      if (data && state && !replaying) {
        state.discovery = data;
        if (state.device) state.device.advertised = !!data.advertised;
        renderDiscovery(state);
      }
      scheduleState(100);
    });
    source.addEventListener("message", (event) => {
      const data = parse(event);
      if (data) onMessage(data);
    });
  }

  // ---------------------------------------------------------------- actions

  async function act(body) {
    try {
      const answer = await api("POST", "act", body);
      if (answer && answer.done) toast(answer.done, "ok");
      scheduleState(30);
      return answer;
    } catch (error) {
      showError(error);
      return null;
    }
  }

  async function advance(by) {
    if (by === undefined || by === null || String(by).trim() === "") {
      toast("Enter a duration, like 2.5s, 10m or 1h30m", "error");
      return;
    }
    const text = String(by).trim();
    const body = { by: /^\d+(\.\d+)?$/.test(text) ? Number(text) : text };
    try {
      const c = await api("POST", "clock/advance", body);
      if (c) setClock(c, c.time);
      toast(`clock advanced by ${text}`, "ok");
      scheduleState(0);
    } catch (error) {
      showError(error);
    }
  }

  const connectionOf = (button) => {
    const n = Number(button.dataset.connection);
    return Number.isFinite(n) ? n : button.dataset.connection;
  };

  const ACTIONS = {
    play: () => act({ remote: "play" }),
    pause: () => act({ remote: "pause" }),
    stop: () => act({ remote: "stop" }),
    mute: () => act({ volume: { muted: !(state && state.volume && state.volume.muted) } }),
    buffering: () => act({ buffering: "3s" }),
    "player-error": () => act({ playerError: { detailedErrorCode: 104 } }),
    standby: () => act({ standby: !(state && state.device && state.device.standby) }),
    "launch-dmr": () => act({ launchApp: "CC1AD845" }),
    "stop-app": () => act({ stopApp: true }),
    withdraw: () => act({ withdraw: true }),
    restore: () => act({ restore: true }),
    "stop-heartbeats": () => act({ stopHeartbeats: "20s" }),
    "close-clean": (b) => act({ closeConnection: { which: connectionOf(b), mode: "clean" } }),
    "close-reset": (b) => act({ closeConnection: { which: connectionOf(b), mode: "reset" } }),
    stall: (b) => act({ delayReplies: { by: "10s", for: "30s", which: connectionOf(b) } }),
    advance: (b) => advance(b.dataset.by),
    reset: async () => {
      try {
        const scenario = await api("POST", "reset");
        toast(`reset${scenario && scenario.name ? ": " + scenario.name : ""}`, "ok");
        resyncJournal();
        scheduleState(0);
      } catch (error) {
        showError(error);
      }
    },
    "clear-journal": async () => {
      try {
        await api("DELETE", "journal");
        journalStats = { seen: 0 };
        replaceEntries([]);
      } catch (error) {
        showError(error);
      }
    },
  };

  function setupControls() {
    document.addEventListener("click", (event) => {
      const button = event.target.closest("button[data-action]");
      if (!button || button.type === "submit") return;
      const handler = ACTIONS[button.dataset.action];
      if (!handler) return;
      event.preventDefault();
      if (replaying && button.dataset.action !== "clear-journal") {
        toast("A recording is open: Back to live to act on the device", "error");
        return;
      }
      handler(button);
    });
    $("advance-form").addEventListener("submit", (event) => {
      event.preventDefault();
      advance($("advance-custom").value);
    });
    const slider = $("volume-slider");
    slider.addEventListener("pointerdown", () => { sliderBusy = true; });
    slider.addEventListener("input", () => {
      sliderBusy = true;
      $("volume").textContent = `${slider.value}%`;
    });
    slider.addEventListener("change", async () => {
      await act({ volume: { level: Math.round(Number(slider.value)) / 100 } });
      sliderBusy = false;
    });
    slider.addEventListener("blur", () => { sliderBusy = false; });
    $("device-auth").addEventListener("change", (event) => act({ deviceAuth: event.target.value }));
    document.addEventListener("keydown", (event) => {
      if (event.key === "Escape") $("toasts").replaceChildren();
    });
  }

  // ---------------------------------------------------------------- replay (recording.js)

  // What the device controls are while a recording plays: disabled, they act on the live device.
  const DEVICE_CONTROLS = ".controls button, .controls input, .controls select, .topbar button[data-action=reset]";
  let liveLastEvent = null;

  /** Shows `s` (the shape GET /api/v1/state has, with `replay: true`) instead of the live state. */
  function showReplayState(s, lastEvent) {
    if (!replaying) {
      replaying = true;
      liveState = state;
      const line = $("last-event");
      liveLastEvent = { text: line.textContent, title: line.title };
      for (const control of document.querySelectorAll(DEVICE_CONTROLS)) control.disabled = true;
      document.body.classList.add("replaying");
    }
    state = s;
    const line = $("last-event");
    line.textContent = lastEvent || "—";
    line.title = "";
    render();
  }

  /** Back to the live device: its newest state, and the controls again. */
  function endReplay() {
    if (!replaying) return;
    replaying = false;
    document.body.classList.remove("replaying");
    for (const control of document.querySelectorAll(DEVICE_CONTROLS)) control.disabled = false;
    if (liveLastEvent) {
      $("last-event").textContent = liveLastEvent.text;
      $("last-event").title = liveLastEvent.title;
    }
    state = liveState;
    liveState = null;
    if (state) render();
    scheduleState(0);
  }

  window.castsimDashboard = {
    showReplayState, endReplay, toast, el, isNum, compactJSON, shortNamespace, apps: APPS,
    get replaying() { return replaying; },
  };

  // ---------------------------------------------------------------- start

  /** The device picker: shown when castsim runs more than one device; picking one reloads the page for it. */
  async function setupDevicePicker() {
    let devices;
    try { devices = (await api("GET", "devices")).devices || []; } catch (_) { return; }
    if (devices.length < 2) return;
    const picker = $("device-picker");
    for (const device of devices) {
      const option = document.createElement("option");
      option.value = device.name;
      option.textContent = `${device.name} (${device.cast})`;
      picker.appendChild(option);
    }
    const current = devices.find((d) => d.name === chosenDevice || d.uuid === chosenDevice || d.udn === chosenDevice) || devices[0];
    picker.value = current.name;
    picker.hidden = false;
    picker.addEventListener("change", () => {
      const query = new URLSearchParams(location.search);
      query.set("device", picker.value);
      location.search = query.toString();
    });
  }

  /** The state the page was served with (GET / embeds it), or null. */
  function servedState() {
    const element = $("initial-state");
    if (!element) return null;
    try { return JSON.parse(element.textContent); } catch (_) { return null; }
  }

  function start() {
    // The first paint shows the device as it was when the page was served; the fetches
    // below bring it up to date.
    const served = servedState();
    if (served) {
      applyState(served);
      $("clock-time").textContent = fmtSim(deviceNow());
    }
    setupDevicePicker();
    setupLog();
    setupControls();
    loadState();
    resyncJournal();
    connectEvents();
    requestAnimationFrame(tick);
    scheduleLog();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
