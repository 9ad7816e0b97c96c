// xlebench report: sortable and searchable tables, answer spans that seek the video, the
// per-item browser's filters. No external resources.
"use strict";

function sortTable(th) {
  const table = th.closest("table");
  const index = Array.from(th.parentNode.children).indexOf(th);
  const body = table.tBodies[0];
  const asc = th.dataset.order !== "asc";
  th.dataset.order = asc ? "asc" : "desc";
  const key = (row) => {
    const cell = row.children[index];
    const v = cell.dataset.sort !== undefined ? cell.dataset.sort : cell.textContent;
    const n = parseFloat(v);
    return isNaN(n) ? v.toLowerCase() : n;
  };
  const rows = Array.from(body.rows);
  rows.sort((a, b) => {
    const x = key(a), y = key(b);
    return (x < y ? -1 : x > y ? 1 : 0) * (asc ? 1 : -1);
  });
  rows.forEach((r) => body.appendChild(r));
}

function searchTable(input) {
  const table = document.getElementById(input.dataset.table);
  const words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
  Array.from(table.tBodies[0].rows).forEach((row) => {
    const text = row.textContent.toLowerCase();
    row.hidden = !words.every((w) => text.includes(w));
  });
}

function seek(button) {
  document.querySelectorAll(".span.active, .seg.active").forEach((e) => e.classList.remove("active"));
  button.classList.add("active");
  const seg = document.getElementById("seg-" + button.dataset.segment);
  if (seg) seg.classList.add("active");
  const video = document.getElementById("lifelog-video");
  const out = parseFloat(button.dataset.out);
  const where = document.getElementById("where");
  if (video && !isNaN(out)) {
    video.currentTime = out;
    if (where) where.textContent = "video at " + out.toFixed(1) + " s (" + button.dataset.clock + ")";
  } else if (where) {
    where.textContent = "no rendered video: " + button.dataset.clock + " is in segment " + button.dataset.segment;
  }
}

const PAGE_SIZE = 100;
let itemsPage = 0;

function matchingItems() {
  const sub = document.getElementById("f-subtask").value;
  const status = document.getElementById("f-status").value;
  const system = document.getElementById("f-system").value;
  // rows: [system, item, query, reference, response, status, score, subtask]
  return (window.XLE_ITEMS || []).filter((r) => (!sub || r[7] === sub)
    && (!status || r[5] === status) && (!system || r[0] === system));
}

function filterItems(reset) {
  if (reset !== false) itemsPage = 0;
  const rows = matchingItems();
  const pages = Math.max(1, Math.ceil(rows.length / PAGE_SIZE));
  itemsPage = Math.min(Math.max(0, itemsPage), pages - 1);
  const body = document.querySelector("#items tbody");
  body.textContent = "";
  rows.slice(itemsPage * PAGE_SIZE, (itemsPage + 1) * PAGE_SIZE).forEach((r) => {
    const tr = document.createElement("tr");
    tr.dataset.system = r[0];
    tr.dataset.subtask = r[7];
    tr.dataset.status = r[5];
    r.slice(0, 7).forEach((value, k) => {
      const td = document.createElement("td");
      if (k === 1) {
        const code = document.createElement("code");
        code.textContent = value;
        td.appendChild(code);
      } else {
        td.textContent = value;
      }
      if (k === 5) td.className = "status-" + value;
      tr.appendChild(td);
    });
    body.appendChild(tr);
  });
  document.getElementById("shown").textContent = rows.length;
  document.getElementById("page").textContent = (itemsPage + 1) + " / " + pages;
}

function vttSeconds(text) {
  const parts = text.trim().split(":").map(parseFloat);
  return parts.reduce((acc, v) => acc * 60 + v, 0);
}

function addClock() {
  // The WebVTT clock comes from <lid>.clock.js (a script loads from disk where a <track>
  // would not) and is added as a text track. Cues touch end to start: each ends a
  // millisecond early so that two never show at once, and the track is redrawn after a seek.
  const video = document.getElementById("lifelog-video");
  if (!video || typeof window.XLE_CLOCK !== "string" || !window.VTTCue) return;
  const track = video.addTextTrack("captions", "clock", "en");
  const blocks = window.XLE_CLOCK.replace(/\r/g, "").split(/\n\n+/);
  blocks.forEach((block) => {
    const lines = block.split("\n");
    const at = lines.findIndex((l) => l.includes("-->"));
    if (at < 0) return;
    const [start, end] = lines[at].split("-->").map((t) => vttSeconds(t.trim().split(" ")[0]));
    track.addCue(new VTTCue(start, Math.max(start, end - 0.001), lines.slice(at + 1).join("\n")));
  });
  track.mode = "showing";
  video.addEventListener("seeked", () => {
    track.mode = "hidden";
    track.mode = "showing";
  });
}

document.addEventListener("DOMContentLoaded", () => {
  addClock();
  document.querySelectorAll("th.sortable").forEach((th) => th.addEventListener("click", () => sortTable(th)));
  document.querySelectorAll("input[data-table]").forEach((i) => i.addEventListener("input", () => searchTable(i)));
  document.querySelectorAll(".span, .seg").forEach((b) => b.addEventListener("click", () => seek(b)));
  document.querySelectorAll("#f-subtask, #f-status, #f-system").forEach((s) => s.addEventListener("change", () => filterItems(true)));
  const prev = document.getElementById("prev"), next = document.getElementById("next");
  if (prev) prev.addEventListener("click", () => { itemsPage -= 1; filterItems(false); });
  if (next) next.addEventListener("click", () => { itemsPage += 1; filterItems(false); });
  if (document.getElementById("items")) filterItems(true);
});
