"""Fixed facts about Ego4D shared by the loaders and the synthetic generator."""

from __future__ import annotations

#: The 13 collecting universities and their countries (FORMATS.md).
UNIVERSITY_COUNTRY = {
    "bristol": "UK",
    "cmu": "USA",
    "frl_track_1_public": "USA",
    "georgiatech": "USA",
    "indiana": "USA",
    "minnesota": "USA",
    "iiith": "India",
    "kaust": "KSA",
    "nus": "Singapore",
    "unict": "Italy",
    "utokyo": "Japan",
    "uniandes": "Colombia",
    "cmu_africa": "Rwanda",
}

COUNTRIES = ("USA", "UK", "Italy", "India", "Japan", "KSA", "Singapore", "Colombia", "Rwanda")

#: Videos per country in the authors' 7852-video library (DESIGN.md section 2).
COUNTRY_WEIGHTS = {
    "USA": 3405, "Italy": 1197, "KSA": 851, "India": 828, "UK": 683,
    "Japan": 531, "Colombia": 129, "Rwanda": 125, "Singapore": 103,
}

#: The 13 NLQ templates, spelled exactly as in the real files (curly apostrophe included).
NLQ_TEMPLATES = (
    "Objects: Where is object X before / after event Y?",
    "Objects: Where is object X?",
    "Objects: What did I put in X?",
    "Objects: How many X\u2019s? (quantity question)",
    "Objects: What X did I Y?",
    "Objects: In what location did I see object X ?",
    "Objects: What X is Y?",
    "Objects: State of an object",
    "Objects: Where is my object X?",
    "Place: Where did I put X?",
    "People: Who did I interact with when I did activity X?",
    "People: Who did I talk to in location X?",
    "People: When did I talk to or interact with person with role X?",
)

TIME_PERIODS = ("daytime", "nighttime", "twilight", "uncertain")
SCENES = ("indoor", "outdoor", "mixed")
