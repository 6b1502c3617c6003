// castsim dashboard: the live part. Follows the device (the event stream, the state and the
// journal as they change), acts on it (the buttons), hands the panels to a recording
// (recording.js) and back, and starts it all. One of the dashboard's scripts: dashboard.js
// says which and what they share; this one is the last of them (before recording.js).
"use strict";
(() => {
  const dash = window.castsimDashboard;
  const { $, api, apiURL, token, chosenDevice, toast, showError, isNum, fmtSim, view } = dash;
  const { deviceNow, setClock, scheduleState, loadState, applyState } = dash;
  const { render, renderDiscovery, tick } = dash;
  const { setupLog, scheduleLog, resyncJournal, onMessage } = dash;

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
      if (data && isNum(data.time) && view.clock) setClock(view.clock, data.time);
      // Catch up with what happened before the stream was (re)connected.
      resyncJournal();
      connectedOnce = true;
      scheduleState(0);
    });
    source.addEventListener("device", (event) => {
      const data = parse(event);
      if (data && !view.replaying) {
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
      const state = view.state;
      if (data && state && !view.replaying) {
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
    next: () => act({ remote: "next" }),
    previous: () => act({ remote: "previous" }),
    mute: () => act({ volume: { muted: !(view.state && view.state.volume && view.state.volume.muted) } }),
    buffering: () => act({ buffering: "3s" }),
    "player-error": () => act({ playerError: { detailedErrorCode: 104 } }),
    standby: () => act({ standby: !(view.state && view.state.device && view.state.device.standby) }),
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
        // Read back what the journal keeps rather than emptying the log: a message that came
        // on the event stream between the clear and its answer is kept there, and was lost
        // here (a CI run's log showed 6 of the journal's 7).
        await resyncJournal();
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
      if (view.replaying && button.dataset.action !== "clear-journal") {
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
    slider.addEventListener("pointerdown", () => { view.sliderBusy = true; });
    slider.addEventListener("input", () => {
      view.sliderBusy = true;
      $("volume").textContent = `${slider.value}%`;
    });
    slider.addEventListener("change", async () => {
      await act({ volume: { level: Math.round(Number(slider.value)) / 100 } });
      view.sliderBusy = false;
    });
    slider.addEventListener("blur", () => { view.sliderBusy = false; });
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
    if (!view.replaying) {
      view.replaying = true;
      view.liveState = view.state;
      const line = $("last-event");
      liveLastEvent = { text: line.textContent, title: line.title };
      for (const control of document.querySelectorAll(DEVICE_CONTROLS)) control.disabled = true;
      document.body.classList.add("replaying");
    }
    view.state = s;
    const line = $("last-event");
    line.textContent = lastEvent || "—";
    line.title = "";
    render();
  }

  /** Back to the live device: its newest state, and the controls again. */
  function endReplay() {
    if (!view.replaying) return;
    view.replaying = false;
    document.body.classList.remove("replaying");
    for (const control of document.querySelectorAll(DEVICE_CONTROLS)) control.disabled = false;
    if (liveLastEvent) {
      $("last-event").textContent = liveLastEvent.text;
      $("last-event").title = liveLastEvent.title;
    }
    view.state = view.liveState;
    view.liveState = null;
    if (view.state) render();
    scheduleState(0);
  }

  // recording.js's hooks; it also uses toast, el, isNum, compactJSON, shortNamespace and apps.
  Object.assign(dash, { showReplayState, endReplay });

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
    const current = chosenDevice
      ? devices.find((d) => d.name === chosenDevice || d.uuid === chosenDevice || d.udn === chosenDevice)
      : devices[0];
    if (current) {
      picker.value = current.name;
    } else {
      // ?device= names no device: the picker says so, rather than showing a device the page
      // does not show (and which picking would then not load, the value being unchanged).
      const none = document.createElement("option");
      none.textContent = `no device "${chosenDevice}"`;
      none.disabled = true;
      picker.prepend(none);
      picker.selectedIndex = 0;
    }
    // The closed picker is at most 18em wide: a long name and its address in full on hover.
    picker.title = picker.options[picker.selectedIndex].textContent;
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
