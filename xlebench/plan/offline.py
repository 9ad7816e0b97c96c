"""The offline planner: a persona's routine becomes an agenda, then >= 16 plan chunks.

The agenda follows the persona's schedule: morning routine from the wake time, work filling
the hours up to lunch and up to the end of the working day, dinner at the local dinner time,
an evening that is social for extraverts and quieter for introverts, then winding down.
Chunks are cut with 5-20 minute gaps; each names its Ego4D scenarios (restricted to those
present in the library), scene and time class. With ``chunk_text=plan`` (default) a chunk's text
is a short plan of its activity and the next ones, with all their scenarios — what the authors'
LLM writes and what the matcher ranks videos with; ``agenda`` words the same activities as
plain agenda entries; ``activity`` keeps one activity per chunk. ``chunk_scenarios=own`` takes
a chunk's scenario set from its own activity only.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

from xlebench.clock import fmt_hhmm, parse_hhmm, time_class
from xlebench.config.schema import PlannerConfig
from xlebench.library.language import at_place, gerund
from xlebench.library.taxonomy import Scenario, Taxonomy, load_taxonomy, normalize_scenario
from xlebench.persona.profile import Persona
from xlebench.plan.chunks import DayPlan, PlanChunk

HOME_BASED = ("stay-at-home parent", "illustrator", "farmer", "freelance illustrator")
FILL = -1  # an activity that repeats until the next anchor


#: The planner is configured by its schema (one declaration per knob).
PlannerParams = PlannerConfig


@dataclass
class Activity:
    scenario: Scenario
    minutes: int  # FILL = repeat until the next anchor
    text: str
    extra: tuple[str, ...] = ()
    anchor: int | None = None  # start no earlier than this second of the day
    #: 0 = kept whatever the time; otherwise dropped, highest first, when the activities
    #: before the next anchor (or bedtime) do not fit (``planner.bedtime=fit``)
    drop: int = 0


class ScenarioPicker:
    """Maps wanted scenarios onto those the library actually has."""

    def __init__(self, taxonomy: Taxonomy, vocabulary: Sequence[str]) -> None:
        self.tax = taxonomy
        self.present = {normalize_scenario(v): v for v in vocabulary}
        self.substitutions: dict[str, str] = {}

    def name(self, s: Scenario) -> str | None:
        """The library's spelling of `s`, or a same-slot substitute the library has."""
        if s.key in self.present:
            return self.present[s.key]
        for other in sorted(self.tax.with_slot(s.slot), key=lambda o: -o.weight):
            if other.key in self.present:
                self.substitutions[s.name] = self.present[other.key]
                return self.present[other.key]
        return None


def _meal_text(s: Scenario, meal: str) -> str:
    return next((p for p in s.plan if meal in p), s.plan[0] if s.plan else s.short.lower())


def build_agenda(p: Persona, rng: random.Random, fit: bool = False) -> list[Activity]:
    """The day's activities in order, some anchored to the persona's schedule. With `fit`
    (``planner.bedtime=fit``) the evening is laid out for the time there is (`_evening`)."""
    tax, s = load_taxonomy(), p.schedule
    g = tax.get
    family = ("Talking with family members",) if p.mbti[2] == "F" else ()
    breakfast = g("Making coffee") if rng.random() < 0.5 else g("Cooking")
    acts = [
        Activity(g("Daily hygiene"), rng.randint(15, 25), "get ready for the day",
                 anchor=parse_hhmm(s["wake"])),
        Activity(breakfast, rng.randint(15, 30), _meal_text(breakfast, "breakfast")),
        Activity(g("Eating"), rng.randint(15, 25), "have breakfast", family),
    ]
    home = p.occupation in HOME_BASED
    commute = g(s["commute"])
    if not home:
        acts.append(Activity(commute, rng.randint(20, 45), commute.plan[0]))
    work = g(s["work_scenario"]) or g("Working at desk")
    if night_shift(s):
        return acts + _night_shift(p, tax, rng, commute, work, home)
    acts.append(Activity(work, FILL, "", anchor=parse_hhmm(s["work_start"])))
    lunch = g(s["meal_out"]) if p.mbti[0] == "E" or rng.random() < 0.3 else g("Eating")
    acts.append(Activity(lunch, rng.randint(30, 50), _meal_text(lunch, "lunch"),
                         anchor=parse_hhmm(s["lunch"])))
    acts.append(Activity(work, FILL, ""))
    free_from = parse_hhmm(s["work_end"])
    if not home:
        acts.append(Activity(commute, rng.randint(20, 45), "commute home", anchor=free_from))
        free_from += acts[-1].minutes * 60 + 300
    evening = _evening(p, tax, rng, free_from if fit else None)
    if fit and home:  # the afternoon's work ends at the work end, not at dinner
        evening[0] = replace(evening[0], anchor=free_from)
    return acts + evening


def night_shift(s: dict) -> bool:
    """Work that starts in the evening (after dinner, or from 18:00)."""
    start = parse_hhmm(s["work_start"])
    return start >= 18 * 3600 or start > parse_hhmm(s["dinner"])


def _night_shift(p: Persona, tax: Taxonomy, rng: random.Random, commute: Scenario,
                 work: Scenario, home: bool) -> list[Activity]:
    """Free time and dinner before the shift, the shift through the night (past midnight on
    the same clock), a break meal, then home."""
    g, hobbies = tax.get, [tax.get(h) for h in p.hobbies if tax.get(h)]
    start = parse_hhmm(p.schedule["work_start"])
    end = parse_hhmm(p.schedule["work_end"])
    end += 86_400 if end <= start else 0
    acts = []
    if hobbies:
        acts.append(Activity(hobbies[0], rng.randint(45, 80), rng.choice(hobbies[0].plan)))
    errand = g("Grocery shopping indoors")
    acts += [Activity(errand, rng.randint(25, 45), rng.choice(errand.plan)),
             Activity(g("Cooking"), rng.randint(30, 45), "cook dinner"),
             Activity(g("Eating"), rng.randint(25, 40), "have dinner")]
    if not home:
        acts.append(Activity(commute, rng.randint(20, 45), commute.plan[0],
                             anchor=start - 3600))
    acts.append(Activity(work, FILL, "", anchor=start))
    acts.append(Activity(g("Eating"), rng.randint(20, 30), "have a meal break",
                         anchor=(start + end) // 2))
    acts.append(Activity(work, FILL, ""))
    if not home:
        acts.append(Activity(commute, rng.randint(20, 45), "commute home", anchor=end))
    return acts


def _evening(p: Persona, tax: Taxonomy, rng: random.Random,
             free_from: int | None = None) -> list[Activity]:
    """Hobby and errand before dinner, then a social or quiet evening, a chore, winding down.
    With `free_from` (the second the persona is free after work: bedtimes are fitted) the
    hobby goes after dinner when it does not fit between then and cooking, and every
    activity but the meals may be dropped for time (``drop``: errand and chore first)."""
    g, hobbies = tax.get, [tax.get(h) for h in p.hobbies if tax.get(h)]
    family = ("Talking with family members",) if p.mbti[2] == "F" else ()
    dinner = parse_hhmm(p.schedule["dinner"])
    cook_at = dinner - 2700
    before: list[Activity] = []
    later: list[Activity] = []
    if hobbies:
        hobby = Activity(hobbies[0], rng.randint(45, 80), rng.choice(hobbies[0].plan), drop=1)
        fits = free_from is None or free_from + hobby.minutes * 60 + 300 <= cook_at
        (before if fits else later).append(hobby)
    errand = g("Grocery shopping indoors") if rng.random() < 0.6 else g("Clothes, other shopping")
    before.append(Activity(errand, rng.randint(25, 45), rng.choice(errand.plan), drop=3))
    meals = [Activity(g("Cooking"), rng.randint(30, 45), "cook dinner", anchor=cook_at),
             Activity(g("Eating"), rng.randint(25, 40), "have dinner", family)]
    if p.schedule.get("social_evenings"):
        pick = g(rng.choice(("Talking with friends/housemates", "Playing cards",
                             "Playing board games", "Attending a party")))
    else:
        pick = hobbies[1] if len(hobbies) > 1 else g(rng.choice(("Watching tv", "Reading books")))
    chore = g("Cleaning / laundry")
    wind = g(rng.choice(("On a screen (phone/laptop)", "Listening to music", "Reading books")))
    return before + meals + later + [
        Activity(pick, rng.randint(45, 80), rng.choice(pick.plan), drop=2),
        Activity(chore, rng.randint(20, 35), rng.choice(chore.plan), drop=3),
        Activity(wind, rng.randint(20, 35), rng.choice(wind.plan), drop=2)]


def _next_anchor(acts: list[Activity], i: int) -> int | None:
    return next((a.anchor for a in acts[i + 1:] if a.anchor is not None), None)


MIN_FIT_MINUTES = 15  # an activity fitted into too little time keeps at least this


def _run_end(acts: list[Activity], i: int) -> int:
    """One past the last activity of the run starting at i: fixed-length activities up to the
    next anchored or FILL one."""
    j = i + 1
    while j < len(acts) and acts[j].anchor is None and acts[j].minutes != FILL:
        j += 1
    return j


def _fit(run: list[Activity], gaps: list[int], room: int) -> list[Activity]:
    """The run's activities and gaps fitted into `room` seconds: drop the highest ``drop``
    (the latest of equals) while it does not fit, then shorten every length by one factor,
    to no less than MIN_FIT_MINUTES. Runs that fit are returned unchanged."""
    def need(acts: list[Activity]) -> int:  # lengths and the gaps between them
        return sum(a.minutes * 60 for a in acts) + sum(gaps[:len(acts) - 1])
    run = list(run)
    while need(run) > room and any(a.drop for a in run):
        worst = max(range(len(run)), key=lambda k: (run[k].drop, k))
        run.pop(worst)
    over = need(run) - room
    minutes = sum(a.minutes for a in run)
    if over > 0 and minutes:
        factor = max(0.0, 1 - over / 60 / minutes)
        run = [replace(a, minutes=max(MIN_FIT_MINUTES, int(a.minutes * factor))) for a in run]
    return run


def _bedtime(persona: Persona) -> int | None:
    """Seconds of the day the last activity should end by (None: no limit): the persona's
    sleep time, after midnight when it is earlier than the wake time."""
    s = persona.schedule
    if not s.get("sleep") or night_shift(s):
        return None
    sleep, wake = parse_hhmm(s["sleep"]), parse_hhmm(s.get("wake") or "07:00")
    return sleep + (86_400 if sleep <= wake else 0)


def _pieces(acts: list[Activity], params: PlannerParams, rng: random.Random,
            bedtime: int | None = None) -> list[tuple[Activity, int, int]]:
    """(activity, start, length) with gaps, anchors respected, FILL blocks filled; with a
    bedtime, each run of fixed-length activities is fitted before the next anchor (the last
    run before bedtime)."""
    out: list[tuple[Activity, int, int]] = []
    t = acts[0].anchor or 7 * 3600
    acts, fitted = list(acts), params.bedtime == "fit"
    gaps: dict[int, int] = {}
    for i, act in enumerate(acts):
        if act.anchor is not None and act.anchor > t:
            if out:  # stretch the previous piece so the gap before the anchor stays 5-20 min
                prev, start, length = out[-1]
                gap = t - (start + length)
                out[-1] = (prev, start, act.anchor - gap - start)
            t = act.anchor
        if act.minutes == FILL:
            until = _next_anchor(acts, i) or t + 4 * 3600
            while t + 40 * 60 <= until - params.gap_min_s:
                length = min(rng.randint(40 * 60, 75 * 60), until - params.gap_min_s - t)
                text = rng.choice(act.scenario.plan)
                out.append((Activity(act.scenario, length // 60, text, act.extra), t, length))
                t += length + rng.randint(params.gap_min_s, params.gap_max_s)
            continue
        if fitted and act.drop >= 0 and (i == 0 or acts[i - 1].minutes == FILL
                                         or act.anchor is not None):
            acts[i:] = _fitted_run(acts, i, t, bedtime, params, rng, gaps)
            act = acts[i]
        if act.drop < 0:  # dropped by the fit
            continue
        length = act.minutes * 60
        out.append((act, t, length))
        t += length + (gaps.pop(i) if i in gaps else
                       rng.randint(params.gap_min_s, params.gap_max_s))
    while len(out) < params.min_chunks:  # split the longest piece, keeping a gap inside it
        k = max(range(len(out)), key=lambda j: out[j][2])
        act, start, length = out[k]
        half = (length - params.gap_min_s) // 2
        out[k:k + 1] = [(act, start, half), (act, start + half + params.gap_min_s, half)]
    return out


def _fitted_run(acts: list[Activity], i: int, t: int, bedtime: int | None,
                params: PlannerParams, rng: random.Random, gaps: dict[int, int]
                ) -> list[Activity]:
    """acts[i:] with the run at i fitted before its limit (the next anchor, or bedtime when
    nothing follows it); dropped activities stay in place with ``drop=-1`` so indices hold,
    and the run's gaps are drawn now (in `gaps`, by index) so the fit can count them."""
    j = _run_end(acts, i)
    limit = acts[j].anchor if j < len(acts) else bedtime
    drawn = [rng.randint(params.gap_min_s, params.gap_max_s) for _ in range(i, j)]
    # room up to the limit, less the shortest gap before it
    kept = acts[i:j] if limit is None else _fit(acts[i:j], drawn, limit - params.gap_min_s - t)
    out, k = [], 0
    for a in acts[i:j]:
        if k < len(kept) and kept[k].text == a.text and kept[k].scenario is a.scenario:
            out.append(kept[k])
            k += 1
        else:
            out.append(replace(a, drop=-1))
    kept_at = [i + n for n, a in enumerate(out) if a.drop >= 0]  # the n-th kept: n-th gap
    gaps.update({idx: drawn[n] for n, idx in enumerate(kept_at)})
    return out + acts[j:]


def _phrase(s: Scenario, text: str, rng: random.Random, with_place: bool = True) -> str:
    """``cooking breakfast in the kitchen``; without the place, just the activity (the place
    is drawn either way, so the generator's stream does not depend on the wording)."""
    words = (text or (s.plan[0] if s.plan else s.short.lower())).split()
    place = rng.choice(s.places) if s.places else "home"
    verb = " ".join([gerund(words[0])] + words[1:])
    return verb if place in verb or not with_place else f"{verb} {at_place(place)}"


def _description(s: Scenario, text: str, rng: random.Random) -> str:
    return f"C is {_phrase(s, text, rng)}."


def _plan_text(pieces: Sequence[tuple[Activity, int, int]], rng: random.Random) -> str:
    """``C is cooking breakfast in the kitchen, then having breakfast and walking to the
    shops.`` — the chunk's activity (with its place) and the next distinct ones."""
    # later activities without their place, but whole: "working in the carpentry workshop"
    # stays that, where cutting the phrase at " in the " left "working"
    phrases = [_phrase(a.scenario, a.text, rng, with_place=i == 0)
               for i, (a, _, _) in enumerate(pieces)]
    if len(phrases) == 1:
        return f"C is {phrases[0]}."
    rest = phrases[1:]
    tail = rest[0] if len(rest) == 1 else ", ".join(rest[:-1]) + " and " + rest[-1]
    return f"C is {phrases[0]}, then {tail}."


def _agenda_text(pieces: Sequence[tuple[Activity, int, int]]) -> str:
    """``Get ready for the day, then make coffee, then have breakfast.`` — agenda entries as
    the authors' chunks read them."""
    texts = [a.text for a, _, _ in pieces]
    joined = ", then ".join(texts)
    return joined[:1].upper() + joined[1:] + "."


def _chunk_text(style: str, group: list, act: Activity, rng: random.Random) -> str:
    if style == "plan":
        return _plan_text(group, rng)
    if style == "agenda":
        _plan_text(group, rng)  # the same draws as the plan style: only the wording differs
        return _agenda_text(group)
    return _description(act.scenario, act.text, rng)


def _window(pieces: list, k: int, n: int) -> list:
    """Piece k and the next ones with other activity texts, n in all."""
    out = [pieces[k]]
    for piece in pieces[k + 1:]:
        if len(out) == n:
            break
        if piece[0].text != out[-1][0].text:
            out.append(piece)
    return out


def _scenario_names(named: Sequence, tax: Taxonomy, picker: ScenarioPicker) -> tuple[str, ...]:
    wanted = [s for a, _, _ in named
              for s in (a.scenario, *(tax.get(e) for e in a.extra if tax.get(e)))]
    return tuple(dict.fromkeys(n for n in (picker.name(w) for w in wanted) if n))


def plan_day(persona: Persona, vocabulary: Sequence[str], params: PlannerParams,
             rng: random.Random) -> DayPlan:
    tax = load_taxonomy()
    picker = ScenarioPicker(tax, vocabulary)
    chunks, agenda = [], []
    pieces = _pieces(build_agenda(persona, rng, params.bedtime == "fit"), params, rng,
                     _bedtime(persona))
    several = params.chunk_text in ("plan", "agenda")
    for k, (act, start, length) in enumerate(pieces):
        group = _window(pieces, k, params.activities_per_chunk) if several else [pieces[k]]
        names, wider = _scenario_names(group, tax, picker), ()
        if params.chunk_scenarios == "own":  # the window's names stay for the ladder
            own = _scenario_names([pieces[k]], tax, picker)
            names, wider = own, (names if names != own else ())
        text = _chunk_text(params.chunk_text, group, act, rng)
        chunks.append(PlanChunk(
            chunk_id=f"{persona.persona_id}-c{k:02d}", start_s=start, end_s=start + length,
            activity=act.text, description=text,
            scenarios=names, scene=max(act.scenario.scene, key=act.scenario.scene.get),
            time_class=time_class(start, params.daytime_s, params.twilight_s),
            slot=act.scenario.slot, window_scenarios=wider,
        ))
        agenda.append({"start": fmt_hhmm(start), "end": fmt_hhmm(start + length),
                       "activity": act.text})
    return DayPlan(persona.persona_id, tuple(agenda), tuple(chunks), "offline",
                   {"substitutions": dict(sorted(picker.substitutions.items()))})
