// castsim dashboard: rendering the device state (dash.view.state) into the TV, the position bar
// and the panels. One of the dashboard's scripts: dashboard.js says which and what they share.
"use strict";
(() => {
  const dash = window.castsimDashboard;
  const { $, el, isNum, fmtTime, fmtSim, castColor, compactJSON, hashHue, initials, view, deviceNow } = dash;

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

    showPicture(panel);

    $("player-state").textContent = playerState;
    // A recorded MEDIA_STATUS has no phase; its idleReason says why the player is idle.
    const phase = media && media.phase ? String(media.phase) : media && media.idleReason ? String(media.idleReason) : "";
    $("phase").textContent = phase && phase !== playerState.toLowerCase() ? phase : "";
    const buffering = !!media && (phase === "buffering" || playerState === "BUFFERING" || media.bufferingUntil != null);
    $("buffering").hidden = !buffering;
    $("buffering").lastChild.textContent = isNum(media && media.bufferingUntil) ? `Buffering until ${fmtSim(media.bufferingUntil)}` : "Buffering";
    // An ad break: which one, which clip, how far, and when it may be skipped.
    const ad = media && media.breakStatus;
    $("ad-break").hidden = !ad;
    if (ad) {
      const clipTime = isNum(ad.currentBreakClipTime) ? `${Math.floor(ad.currentBreakClipTime)} s` : "";
      const skip = isNum(ad.whenSkippable) ? (ad.currentBreakClipTime >= ad.whenSkippable ? " · skippable" : ` · skippable at ${ad.whenSkippable} s`) : "";
      $("ad-break").textContent = `Ad · ${ad.breakId} · ${ad.breakClipId} ${clipTime}${skip}`;
    }
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

  /** The frame id of the picture shown (or being fetched), null when none. */
  let pictureShown = null;

  /**
   * A mirroring session's newest picture fills the artwork. It is fetched with the token (an
   * <img> cannot send it) when its frame changes; while the session streams, the state is
   * asked for again each second (its figures change without an event).
   */
  function showPicture(panel) {
    const streaming = panel && panel.value && panel.value.streaming;
    const picture = streaming && streaming.picture;
    const art = $("artwork");
    const img = $("tv-picture");
    if (streaming && streaming.state === "streaming" && !view.replaying) dash.scheduleState(1000);
    if (!picture) {
      pictureShown = null;
      img.hidden = true;
      art.classList.remove("has-picture");
      $("artwork-initials").hidden = false;
      return;
    }
    const key = String(picture.frameId);
    if (pictureShown === key) return;
    pictureShown = key;
    const headers = dash.token ? { Authorization: "Bearer " + dash.token } : {};
    fetch(dash.apiURL("streaming/picture"), { headers, cache: "no-store" })
      .then((response) => (response.ok ? response.blob() : null))
      .then((blob) => {
        if (!blob || pictureShown !== key) return;
        if (img.src.startsWith("blob:")) URL.revokeObjectURL(img.src);
        img.src = URL.createObjectURL(blob);
        img.dataset.frameId = key;
        img.dataset.averageColor = picture.averageColor || "";
        img.hidden = false;
        art.classList.add("has-picture");
        $("artwork-initials").hidden = true;
      })
      .catch(() => { pictureShown = null; });
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
    const state = view.state;
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
    const state = view.state;
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

  function render() {
    const s = view.state;
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

    const mode = (s.clock && s.clock.mode) || (view.clock && view.clock.mode) || "real";
    $("clock-mode").textContent = mode === "scaled" && s.clock && isNum(s.clock.speed) ? `scaled ×${s.clock.speed}` : mode;
    $("clock-controls").hidden = mode !== "manual" || !!s.replay;

    const volume = s.volume || {};
    const level = isNum(volume.level) ? volume.level : 1;
    const vol = $("volume");
    vol.textContent = volume.muted ? `muted` : `${Math.round(level * 100)}%`;
    vol.title = `level ${level}${volume.muted ? ", muted" : ""}`;
    vol.dataset.level = String(level);
    vol.dataset.muted = String(!!volume.muted);
    if (!view.sliderBusy) $("volume-slider").value = String(Math.round(level * 100));
    const mute = $("mute-button");
    mute.setAttribute("aria-pressed", String(!!volume.muted));
    mute.textContent = volume.muted ? "Unmute" : "Mute";
    mute.setAttribute("aria-label", volume.muted ? "Unmute" : "Mute");

    renderTV(s);
    renderQueue(s.media);
    renderSenders(s.connections, !!s.replay);
    renderAppPanel(appPanelOf(s));
  }

  // ---------------------------------------------------------------- for the other files

  Object.assign(dash, { render, renderDiscovery, tick });
})();
