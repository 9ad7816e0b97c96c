"""The report stage's pages: an index (dataset card in brief, plots, the life-log table), a
page per life log (video with its clock, timeline of matched segments, persona and plan beside
what was matched, every item with answers that seek the video) and a results page (each
system's table and a per-item browser). Static files, no network, same bytes for the same
benchmark."""
