// castsim dashboard: the message log, virtualised (only the rows in view are in the DOM), kept
// in step with the device's journal. One of the dashboard's scripts: dashboard.js says which
// and what they share.
"use strict";
(() => {
  const dash = window.castsimDashboard;
  const { $, api, showError, el, isNum, apps } = dash;

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
    ...Object.fromEntries(Object.entries(apps.namespaces).map(([alias, namespace]) => [namespace, alias])),
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

  // ---------------------------------------------------------------- for the other files

  Object.assign(dash, { shortNamespace, setupLog, scheduleLog, resyncJournal, onMessage });
})();
