// castsim dashboard: the recording player. Opens a recording (docs/recording.md) from a file
// the browser reads (nothing is uploaded) and steps through it; the panels of dashboard.js
// show the state the senders saw after each step, built in the shape GET /api/v1/state has.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const dash = window.castsimDashboard;
  if (!dash) return;
  const { el, isNum, compactJSON, shortNamespace, toast, apps } = dash;

  const NS_CONNECTION = "urn:x-cast:com.google.cast.tp.connection";
  const NS_RECEIVER = "urn:x-cast:com.google.cast.receiver";
  const NS_MEDIA = "urn:x-cast:com.google.cast.media";
  const PANEL_EVENT_COUNT = 20; // as many as GET /state shows (StateView.panelEventCount)
  const EVENT_KINDS = new Set(["message", "connected", "disconnected", "input", "fault", "clock", "reset", "upstream", "dropped", "streaming"]);
  const HEADER_EXPECTED = 'expected the header {"format": "castsim-recording", "version": 1, …}';

  // ---------------------------------------------------------------- reading a file

  class RecordingError extends Error {}

  /**
   * Parses the text of a recording: { header, events, skipped } where skipped lists the
   * event lines that could not be read ({ line, why }). A header that cannot be read
   * throws a RecordingError: nothing can be trusted then.
   */
  function parseRecording(text) {
    const lines = text.split("\n");
    if (lines.length && lines[lines.length - 1] === "") lines.pop(); // the newline after the last line
    if (!lines.length) throw new RecordingError(`line 1: the file is empty; ${HEADER_EXPECTED}`);
    let header;
    try {
      header = JSON.parse(lines[0].replace(/^\uFEFF/, ""));
    } catch (error) {
      throw new RecordingError(`line 1: not JSON (${error.message}); ${HEADER_EXPECTED}`);
    }
    if (!header || typeof header !== "object" || Array.isArray(header)) {
      throw new RecordingError(`line 1: ${compactJSON(header, 40)} is not an object; ${HEADER_EXPECTED}`);
    }
    if (header.format !== "castsim-recording") {
      throw new RecordingError(`line 1: format is ${compactJSON(header.format, 40)}; expected "castsim-recording"`);
    }
    if (header.version !== 1) {
      throw new RecordingError(`line 1: version ${compactJSON(header.version, 40)} is not one this dashboard reads; expected 1`);
    }
    const events = [];
    const skipped = [];
    for (let i = 1; i < lines.length; i++) {
      const line = i + 1;
      const raw = lines[i].replace(/\r$/, "");
      let event;
      try {
        event = JSON.parse(raw);
      } catch (error) {
        skipped.push({ line, why: raw.trim() ? `not JSON (${error.message}); expected one event object per line` : "an empty line; expected one event object per line" });
        continue;
      }
      const why = eventProblem(event);
      if (why) { skipped.push({ line, why }); continue; }
      event.line = line;
      events.push(event);
    }
    return { header, events, skipped };
  }

  /** What is wrong with an event line, or null. Unknown kinds are kept (shown, not applied). */
  function eventProblem(event) {
    if (!event || typeof event !== "object" || Array.isArray(event)) return `${compactJSON(event, 40)} is not an object; expected an event`;
    if (typeof event.event !== "string") return 'no "event" (its kind, like "message")';
    if (!isNum(event.t)) return `"t" is ${compactJSON(event.t, 40)}; expected seconds (a number)`;
    if (event.event === "message") {
      if (event.direction !== "in" && event.direction !== "out") return `"direction" is ${compactJSON(event.direction, 40)}; expected "in" or "out"`;
      if (typeof event.namespace !== "string") return 'a message without "namespace"';
    }
    return null;
  }

  // ---------------------------------------------------------------- the state after each step

  const connectionsOf = (event) => (Array.isArray(event.connections) ? event.connections : event.connections != null ? [event.connections] : []);
  const CONN_TYPES = { 0: "strong", 1: "weak", 2: "invisible" };

  function initialState(header) {
    const device = header.device && typeof header.device === "object" ? header.device : {};
    return {
      replay: true,
      device: { name: device.name || "castsim", model: device.model || "", manufacturer: device.manufacturer || "", uuid: device.uuid || "", standby: false },
      volume: { level: 1, muted: false },
      app: null,
      connections: [],
      media: null,
      ...Object.fromEntries(apps.panels.map((panel) => [panel.key, null])),
    };
  }

  /** The state after `event`, from the state before it (never changed: a new object where anything changes). */
  function apply(s, event) {
    switch (event.event) {
      case "connected": {
        const id = event.connection;
        const connection = { id };
        if (event.peer) connection.peer = event.peer;
        connection.senders = [];
        return { ...s, connections: s.connections.filter((c) => c.id !== id).concat([connection]) };
      }
      case "disconnected":
        return { ...s, connections: s.connections.filter((c) => c.id !== event.connection) };
      case "reset":
        return { ...initialState({ device: s.device }), device: { ...s.device, standby: false } };
      case "message":
        return applyMessage(s, event);
      default:
        return s;
    }
  }

  function applyMessage(s, event) {
    const payload = event.payload && typeof event.payload === "object" ? event.payload : null;
    if (!payload) return s;
    if (event.namespace === NS_CONNECTION) return applyVirtualConnection(s, event, payload);
    if (event.direction !== "out") return s;
    if (event.namespace === NS_RECEIVER && payload.type === "RECEIVER_STATUS") return applyReceiverStatus(s, payload.status);
    if (event.namespace === NS_MEDIA && payload.type === "MEDIA_STATUS") return { ...s, media: mediaAfter(s.media, payload.status) };
    // The running app's panel, as far as a recording tells it: the messages on its namespace.
    const panel = s.app && s.app.panel ? apps.panels.find((p) => p.key === s.app.panel.key) : null;
    if (panel && event.namespace === panel.namespace) {
      const before = s[panel.key] || { lastEvents: [], summary: `${panel.title} (from the recording's messages)` };
      return { ...s, [panel.key]: { ...before, lastEvents: before.lastEvents.concat([{ time: event.t, payload }]).slice(-PANEL_EVENT_COUNT) } };
    }
    return s;
  }

  function applyVirtualConnection(s, event, payload) {
    const ids = connectionsOf(event);
    if (event.direction !== "in" || ids.length !== 1) return s;
    const id = ids[0];
    const senderId = String(event.source || "");
    const endpoint = String(event.destination || "");
    let connections = s.connections;
    if (!connections.some((c) => c.id === id)) connections = connections.concat([{ id, senders: [] }]);
    const others = (c) => c.senders.filter((x) => !(x.senderId === senderId && x.endpoint === endpoint));
    if (payload.type === "CONNECT") {
      const sender = {
        senderId, endpoint, type: CONN_TYPES[payload.connType] || "strong",
        userAgent: typeof payload.userAgent === "string" ? payload.userAgent : null,
      };
      return { ...s, connections: connections.map((c) => (c.id === id ? { ...c, senders: others(c).concat([sender]) } : c)) };
    }
    if (payload.type === "CLOSE") {
      return { ...s, connections: connections.map((c) => (c.id === id ? { ...c, senders: others(c) } : c)) };
    }
    return s;
  }

  function applyReceiverStatus(s, status) {
    if (!status || typeof status !== "object") return s;
    const first = Array.isArray(status.applications) ? status.applications[0] : null;
    const app = first && typeof first === "object" ? {
      appId: first.appId, displayName: first.displayName, sessionId: first.sessionId, transportId: first.transportId,
      namespaces: Array.isArray(first.namespaces) ? first.namespaces.map((n) => (n && n.name) || n) : [],
      idleScreen: !!first.isIdleScreen,
    } : null;
    if (app) {
      // An app with a panel is known by its namespace: RECEIVER_STATUS names no behaviour.
      const panel = apps.panels.find((p) => app.namespaces.includes(p.namespace));
      app.panel = panel ? { key: panel.key, title: panel.title } : null;
    }
    const next = { ...s, app };
    if (status.volume && typeof status.volume === "object") {
      next.volume = {
        level: isNum(status.volume.level) ? status.volume.level : s.volume.level,
        muted: typeof status.volume.muted === "boolean" ? status.volume.muted : s.volume.muted,
      };
    }
    next.device = { ...s.device, standby: status.isStandBy === true };
    // The media session and the app's panel belong to the app: another app (or none) ends them.
    if (!app || !s.app || app.sessionId !== s.app.sessionId) {
      next.media = null;
      for (const panel of apps.panels) next[panel.key] = null;
    }
    return next;
  }

  // What describes the moment, not the session: gone when a status leaves it out.
  const MOMENT_FIELDS = ["idleReason", "loadingItemId", "preloadedItemId", "liveSeekableRange", "extendedStatus"];

  /** The media after a MEDIA_STATUS `status` array: its first entry over what the same session showed before. */
  function mediaAfter(before, status) {
    const entry = Array.isArray(status) ? status[0] : null;
    if (!entry || typeof entry !== "object") return null;
    if (entry.playerState === "IDLE" && !entry.media) return null;
    const same = before && before.mediaSessionId === entry.mediaSessionId;
    const media = same ? { ...before } : {};
    for (const key of MOMENT_FIELDS) delete media[key];
    // A status may leave out `media` and `items` (senders keep what they had); a new
    // current item makes the old `media` wrong, and `items` name the new one's.
    if (!entry.media && same && before.currentItemId !== entry.currentItemId) delete media.media;
    Object.assign(media, entry);
    return media;
  }

  // ---------------------------------------------------------------- the transcript

  const arrow = (event) => (event.event !== "message" ? "•" : event.direction === "in" ? "→" : "←");

  function typeOf(event) {
    if (event.event !== "message") return event.event;
    if (event.payload && typeof event.payload === "object" && event.payload.type != null) return String(event.payload.type);
    return event.binary !== undefined ? "(binary)" : "(no type)";
  }

  /** The few payload or event fields that say what this step was. */
  function keyFields(event) {
    const p = event.payload && typeof event.payload === "object" ? event.payload : {};
    const bits = [];
    const add = (label, value) => { if (value !== undefined && value !== null && value !== "") bits.push(label ? `${label} ${value}` : String(value)); };
    const conns = connectionsOf(event);
    switch (event.event) {
      case "message": {
        add("", conns.length ? conns.map((c) => "#" + c).join(",") : "");
        if (isNum(p.requestId) && p.requestId !== 0) add("req", p.requestId);
        if (p.appId) add("app", p.appId);
        if (p.volume && typeof p.volume === "object") {
          if (isNum(p.volume.level)) add("level", p.volume.level);
          if (typeof p.volume.muted === "boolean" && p.type !== "MEDIA_STATUS") add("muted", p.volume.muted);
        }
        if (p.media && p.media.metadata && p.media.metadata.title) add("", `“${p.media.metadata.title}”`);
        if (Array.isArray(p.items)) add("items", p.items.length);
        if (p.type === "RECEIVER_STATUS" && p.status && typeof p.status === "object") {
          const a = Array.isArray(p.status.applications) && p.status.applications[0];
          add("", a ? a.displayName || a.appId : "no app");
          if (p.status.volume && isNum(p.status.volume.level)) add("vol", `${Math.round(p.status.volume.level * 100)}%${p.status.volume.muted ? " muted" : ""}`);
          if (p.status.isStandBy === true) add("", "standby");
        }
        if (p.type === "MEDIA_STATUS") {
          const entry = Array.isArray(p.status) ? p.status[0] : null;
          if (!entry) add("", "no session");
          else {
            add("", entry.playerState);
            add("", entry.idleReason);
            add("item", entry.currentItemId);
            if (entry.media && entry.media.metadata && entry.media.metadata.title) add("", `“${entry.media.metadata.title}”`);
            if (isNum(entry.currentTime)) add("at", entry.currentTime.toFixed(1) + " s");
          }
        }
        if (event.unhandled) add("unhandled:", event.unhandled);
        break;
      }
      case "connected": add("connection", event.connection); add("from", event.peer); break;
      case "disconnected": add("connection", event.connection); add("", event.how); break;
      case "input": add("", compactJSON(event.action, 80)); break;
      case "fault": add("", event.fault); add("connection", event.connection); add("", event.reset || event.frame); add("until", event.until); add("by", event.by); break;
      case "clock": add("to", isNum(event.to) ? event.to + " s" : event.to); break;
      case "reset": add("scenario", event.scenario && (event.scenario.name || compactJSON(event.scenario, 40))); break;
      case "upstream": add("connection", event.connection); add("", event.status); add("", event.reason); break;
      case "dropped": add("", `${event.count} events lost`); break;
      case "streaming": {
        const streaming = event.streaming || {};
        add("", streaming.phase); add("session", streaming.session); add("", streaming.reason || streaming.description);
        for (const stream of Array.isArray(streaming.streams) ? streaming.streams : []) {
          if (isNum(stream.framesReceived)) add(`${stream.kind || stream.senderSsrc}:`, `${stream.framesReceived} frames`);
        }
        break;
      }
      default: if (!EVENT_KINDS.has(event.event)) add("", "unknown kind (not applied)");
    }
    return bits.join("  ");
  }

  const namespaceOf = (event) => (event.event === "message" ? shortNamespace(event.namespace) : "");
  const fmtT = (t) => (isNum(t) ? t.toFixed(3) : "");

  function buildTranscript(events) {
    const list = $("recording-events");
    const rows = events.map((event, i) => {
      const row = el("li", "rec-row " + (event.event === "message" ? event.direction : "meta"));
      row.dataset.step = String(i + 1);
      row.dataset.testid = "recording-row";
      row.dataset.type = typeOf(event);
      row.appendChild(el("span", "t", fmtT(event.t)));
      row.appendChild(el("span", "dir", arrow(event)));
      row.appendChild(el("span", "ns", namespaceOf(event)));
      row.appendChild(el("span", "ty", typeOf(event)));
      const fields = el("span", "kf", keyFields(event));
      row.appendChild(fields);
      row.title = `line ${event.line}: ${compactJSON(event, 600)}`;
      return row;
    });
    list.replaceChildren(...rows);
  }

  // ---------------------------------------------------------------- the player

  let recording = null; // { name, header, events, skipped, states, step }

  function open(name, text) {
    let parsed;
    try {
      parsed = parseRecording(text);
    } catch (error) {
      toast(`${name} ${error.message}. The recording was not opened.`, "error");
      return;
    }
    const { header, events, skipped } = parsed;
    const states = [initialState(header)];
    for (const event of events) states.push(apply(states[states.length - 1], event));
    recording = { name, header, events, skipped, states, step: 0 };

    const device = header.device && typeof header.device === "object" ? header.device : {};
    $("recording-file").textContent = name;
    $("recording-device").textContent = device.name || "—";
    $("recording-source").textContent = header.source === "relay" && header.upstream ? `relay of ${header.upstream}` : String(header.source || "—");
    $("recording-count").textContent = `${events.length} event${events.length === 1 ? "" : "s"}`;
    $("recording-file").title = [name, header.recordedAt ? `recorded ${header.recordedAt}` : "", header.castsim ? `by castsim ${header.castsim}` : ""]
      .filter(Boolean).join(", ");
    const skippedBox = $("recording-skipped");
    skippedBox.hidden = skipped.length === 0;
    skippedBox.textContent = `${skipped.length} bad line${skipped.length === 1 ? "" : "s"} skipped`;
    skippedBox.title = skipped.map((s) => `line ${s.line}: ${s.why}`).join("\n");
    const slider = $("recording-slider");
    slider.max = String(events.length);
    buildTranscript(events);
    $("recording-banner").hidden = false;
    $("recording-panel").hidden = false;

    if (skipped.length) {
      const first = skipped[0];
      const more = skipped.length > 1 ? ` (${skipped.length} bad lines skipped in all)` : " (skipped)";
      toast(`${name} line ${first.line}: ${first.why}${more}`, "error");
    } else {
      toast(`opened ${name}: ${events.length} events`, "ok");
    }
    go(0);
  }

  function describe(event) {
    const ns = namespaceOf(event);
    return `${fmtT(event.t)}  ${arrow(event)} ${ns ? ns + " " : ""}${typeOf(event)}  ${keyFields(event)}`.trim();
  }

  function go(step, reveal = true) {
    if (!recording) return;
    const n = recording.events.length;
    const k = Math.max(0, Math.min(n, Math.round(step)));
    recording.step = k;
    const event = k > 0 ? recording.events[k - 1] : null;
    dash.showReplayState(recording.states[k], event ? describe(event) : "start of the recording");
    $("recording-slider").value = String(k);
    const stepBox = $("recording-step");
    stepBox.textContent = `${k} / ${n}`;
    stepBox.dataset.step = String(k);
    $("recording-time").textContent = event ? `t = ${fmtT(event.t)} s` : "before the first event";
    $("recording-time").title = event && event.wall ? String(event.wall) : "";
    $("recording-prev").disabled = k === 0;
    $("recording-next").disabled = k === n;
    const list = $("recording-events");
    const previous = list.querySelector(".rec-row.current");
    if (previous) { previous.classList.remove("current"); previous.removeAttribute("aria-current"); }
    if (k > 0) {
      const row = list.children[k - 1];
      row.classList.add("current");
      row.setAttribute("aria-current", "step");
      if (reveal) scrollIntoList(list, row);
    } else if (reveal) {
      list.scrollTop = 0;
    }
  }

  /** Scrolls the transcript (only it, never the page) so that `row` is in view, with a row to spare either side. */
  function scrollIntoList(list, row) {
    const box = list.getBoundingClientRect();
    const r = row.getBoundingClientRect();
    const margin = r.height;
    if (r.top - margin < box.top || r.bottom + margin > box.top + list.clientHeight) {
      // Out of view (or at its edge): put it in the middle.
      list.scrollTop += r.top - box.top - (list.clientHeight - r.height) / 2;
    }
  }

  function close() {
    if (!recording) return;
    recording = null;
    $("recording-banner").hidden = true;
    $("recording-panel").hidden = true;
    $("recording-events").replaceChildren();
    dash.endReplay();
  }

  function setup() {
    const input = $("recording-input");
    input.addEventListener("change", () => {
      const file = input.files && input.files[0];
      if (!file) return;
      const reader = new FileReader();
      reader.addEventListener("load", () => { open(file.name, String(reader.result)); input.value = ""; });
      reader.addEventListener("error", () => {
        toast(`${file.name}: cannot read the file (${reader.error ? reader.error.message : "unknown error"})`, "error");
        input.value = "";
      });
      reader.readAsText(file, "utf-8");
    });
    $("recording-close").addEventListener("click", close);
    $("recording-prev").addEventListener("click", () => recording && go(recording.step - 1));
    $("recording-next").addEventListener("click", () => recording && go(recording.step + 1));
    $("recording-slider").addEventListener("input", (event) => go(Number(event.target.value)));
    $("recording-events").addEventListener("click", (event) => {
      const row = event.target.closest(".rec-row");
      if (row) go(Number(row.dataset.step), false);
    });
    document.addEventListener("keydown", (event) => {
      if (!recording || event.altKey || event.ctrlKey || event.metaKey) return;
      const target = event.target;
      // Typing in a field, or the slider's own arrows, are not steps.
      if (target && (target.isContentEditable || ["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName))) return;
      if (target && target.closest && target.closest("#log")) return; // the message log has its own keys
      const moves = { ArrowLeft: -1, ArrowRight: 1 };
      if (event.key in moves) {
        event.preventDefault();
        go(recording.step + moves[event.key]);
      } else if (event.key === "Home" || event.key === "End") {
        event.preventDefault();
        go(event.key === "Home" ? 0 : recording.events.length);
      }
    });
  }

  // For tests and the console: open a recording from text.
  window.castsimRecording = { open, close, go, parse: parseRecording, get step() { return recording ? recording.step : null; } };

  setup();
})();
