"""VidSitu's candidate windows over synthetic records, two ways side by side, alternating: each
window's narrations found by bisection in every pass (`srl.Timed`, the default since issue 68)
vs by scanning every pass for every event (the same class told its pass is unordered, as every
lookup was before). The events are compared: the same either way.

    python benchmarks/srl_windows.py [--library 400] [--videos 6] [--repeats 2]

The records are the ``--videos`` longest of the demo's synthetic library (its first
``--library`` videos, `xlebench.library.synthetic.make_video`, both narration passes where it
writes two): a scan costs a pass's length per event, so the long records are where it told
(215 s of the demo's annotate for `event_roles`, before). Windows slide as
`event_windows.windows` slides them (``stride_s`` 5 s, ``window_s`` 10 s, events of 2 s).
"""

from __future__ import annotations

import argparse
import json
import time

from xlebench.library.annotations import Narration
from xlebench.library.synthetic import SyntheticSpec, make_video
from xlebench.tasks.vidsitu.srl import Timed, events_in

STRIDE_S, WINDOW_S, EVENT_S = 5.0, 10.0, 2.0


def records(library: int, n: int) -> list[tuple[list[list[Narration]], float, str]]:
    """(narration passes, duration, scene) of the ``n`` longest of the first ``library``
    synthetic videos."""
    spec, out = SyntheticSpec(), []
    videos = sorted((make_video(spec, k) for k in range(library)), key=lambda v: -v.duration)
    for v in videos[:n]:
        passes = [[Narration(e.t, e.text(), f"{v.uid}-{p}-{i}") for i, e in enumerate(evs)]
                  for p, evs in enumerate([v.events, v.pass2]) if evs]
        out.append((passes, v.duration, v.scene))
    return out


def sweep(recs: list, bisect: bool) -> tuple[float, list]:
    """Seconds to build every window's events of every record, and the events."""
    t0, found = time.perf_counter(), []
    for passes, duration, scene in recs:
        timed = [Timed(p) for p in passes]
        for p in timed:
            p.ordered = p.ordered and bisect
        t = 0.0
        while t + WINDOW_S <= duration:
            found.append(events_in(timed, t, EVENT_S, int(WINDOW_S / EVENT_S), scene))
            t += STRIDE_S
    return time.perf_counter() - t0, found


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--library", type=int, default=400)
    ap.add_argument("--videos", type=int, default=6)
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()
    recs = records(args.library, args.videos)
    times: dict[str, list[float]] = {"bisection": [], "scan": []}
    same = True
    for _ in range(args.repeats):
        a, ev_a = sweep(recs, bisect=True)
        b, ev_b = sweep(recs, bisect=False)
        times["bisection"].append(a)
        times["scan"].append(b)
        same = same and repr(ev_a) == repr(ev_b)
    best = {k: min(v) for k, v in times.items()}
    print(json.dumps({
        "videos": len(recs), "hours": round(sum(d for _, d, _ in recs) / 3600, 2),
        "narrations": sum(len(p) for ps, _, _ in recs for p in ps),
        "windows": len(ev_a), "seconds": {k: [round(x, 3) for x in v] for k, v in times.items()},
        "scan_over_bisection": round(best["scan"] / best["bisection"], 2),
        "identical_events": same}, indent=2))
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
