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

function filterItems() {
  const sub = document.getElementById("f-subtask").value;
  const status = document.getElementById("f-status").value;
  const system = document.getElementById("f-system").value;
  let shown = 0;
  document.querySelectorAll("#items tbody tr").forEach((row) => {
    const ok = (!sub || row.dataset.subtask === sub) && (!status || row.dataset.status === status)
      && (!system || row.dataset.system === system);
    row.hidden = !ok;
    if (ok) shown += 1;
  });
  document.getElementById("shown").textContent = shown;
}

function vttSeconds(text) {
  const parts = text.trim().split(":").map(parseFloat);
  return parts.reduce((acc, v) => acc * 60 + v, 0);
}

function addClock() {
  // The WebVTT clock is embedded in the page and added as a text track by script.
  const video = document.getElementById("lifelog-video");
  const source = document.getElementById("clock-vtt");
  if (!video || !source || !window.VTTCue) return;
  const track = video.addTextTrack("captions", "clock", "en");
  const blocks = source.textContent.replace(/\r/g, "").split(/\n\n+/);
  blocks.forEach((block) => {
    const lines = block.split("\n");
    const at = lines.findIndex((l) => l.includes("-->"));
    if (at < 0) return;
    const [start, end] = lines[at].split("-->").map((t) => vttSeconds(t.trim().split(" ")[0]));
    track.addCue(new VTTCue(start, end, lines.slice(at + 1).join("\n")));
  });
  track.mode = "showing";
}

document.addEventListener("DOMContentLoaded", () => {
  addClock();
  document.querySelectorAll("th.sortable").forEach((th) => th.addEventListener("click", () => sortTable(th)));
  document.querySelectorAll("input[data-table]").forEach((i) => i.addEventListener("input", () => searchTable(i)));
  document.querySelectorAll(".span, .seg").forEach((b) => b.addEventListener("click", () => seek(b)));
  document.querySelectorAll("#f-subtask, #f-status, #f-system").forEach((s) => s.addEventListener("change", filterItems));
  if (document.getElementById("items")) filterItems();
});
