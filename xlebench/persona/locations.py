"""Location facts the offline persona generator draws on.

Meal times, working hours and commuting habits differ by country; these are broad, authored
tendencies (e.g. late dinners in Italy and Saudi Arabia, car commuting in the USA, buses and
walking in Rwanda and Colombia), used only to make synthetic days plausible.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass


@dataclass(frozen=True)
class LocationFacts:
    names: tuple[str, ...]
    wake: str
    lunch: str
    dinner: str
    commute: tuple[str, ...]  # scenario names, most likely first
    occupations: tuple[tuple[str, str, float], ...]  # (title, work scenario, weight)
    meal_out: str = "Eating at a restaurant"
    #: Family names: the second and later personas of one grid cell
    #: (``persona.per_cell``) are named in full, each a household of its own.
    families: tuple[str, ...] = ()


_OFFICE = ("office worker", "Working at desk", 3.0)
_STUDENT = ("university student", "Attending a lecture/class", 1.5)
_BUILDER = (
    "renovation worker",
    "jobs related to construction/renovation company\n(Director of work, tiler, plumber, "
    "Electrician, Handyman, etc)",
    1.5,
)
_MECHANIC = ("car mechanic", "Car mechanic", 1.0)
_CARPENTER = ("carpenter", "Carpenter", 1.0)
_FARMER = ("farmer", "Farmer", 1.0)
_BAKER = ("baker", "Baker", 0.7)
_ARTIST = ("illustrator", "Crafting/knitting/sewing/drawing/painting", 0.8)
_CARER = ("stay-at-home parent", "Household management - caring for kids", 1.0)
_BIKE = ("bicycle mechanic", "Bike mechanic", 0.5)
_SCOOTER = ("scooter mechanic", "Scooter mechanic", 0.5)

LOCATIONS: dict[str, LocationFacts] = {
    "USA": LocationFacts(
        ("Emily", "Jacob", "Maria", "Tyler", "Aisha", "Brandon"), "06:45", "12:15", "18:30",
        ("Car - commuting, road trip", "Walking on street"),
        (_OFFICE, _STUDENT, _BUILDER, _MECHANIC, _CARPENTER, _CARER, _BIKE),
        families=("Johnson", "Garcia", "Miller", "Davis", "Wilson", "Thompson", "Clark", "Lewis"),
    ),
    "UK": LocationFacts(
        ("Oliver", "Amelia", "Harry", "Isla", "George", "Priya"), "07:00", "12:30", "18:45",
        ("Bus", "Walking on street", "Bike"),
        (_OFFICE, _STUDENT, _BUILDER, _BAKER, _ARTIST, _CARER),
        families=("Smith", "Jones", "Taylor", "Brown", "Evans", "Walker", "Hughes", "Wright"),
    ),
    "Italy": LocationFacts(
        ("Giulia", "Marco", "Francesca", "Luca", "Chiara", "Matteo"), "07:00", "13:00", "20:15",
        ("Walking on street", "Car - commuting, road trip", "Bus"),
        (_OFFICE, _STUDENT, _ARTIST, _BAKER, _CARPENTER, _BUILDER, _CARER),
        families=("Rossi", "Russo", "Ferrari", "Esposito", "Bianchi", "Romano", "Colombo", "Ricci"),
    ),
    "India": LocationFacts(
        ("Ananya", "Rahul", "Priya", "Arjun", "Kavya", "Vikram"), "06:15", "13:30", "20:45",
        ("Bus", "Walking on street", "Car - commuting, road trip"),
        (_OFFICE, _STUDENT, _FARMER, _BUILDER, _CARER, _SCOOTER),
        families=("Sharma", "Patel", "Reddy", "Iyer", "Singh", "Nair", "Gupta", "Das"),
    ),
    "Japan": LocationFacts(
        ("Yuki", "Haruto", "Sakura", "Ren", "Aoi", "Sota"), "06:30", "12:00", "19:00",
        ("Walking on street", "Bus", "Bike"),
        (_OFFICE, _STUDENT, _ARTIST, _BAKER, _CARPENTER, _CARER),
        families=("Sato", "Suzuki", "Takahashi", "Tanaka", "Watanabe", "Ito", "Yamamoto", "Nakamura"),
    ),
    "KSA": LocationFacts(
        ("Omar", "Noura", "Faisal", "Layla", "Khalid", "Sara"), "06:00", "13:30", "21:00",
        ("Car - commuting, road trip", "Walking on street"),
        (_OFFICE, _STUDENT, _MECHANIC, _BUILDER, _CARER),
        families=("Al-Harbi", "Al-Otaibi", "Al-Qahtani", "Al-Ghamdi", "Al-Zahrani", "Al-Shehri", "Al-Dosari", "Al-Mutairi"),
    ),
    "Singapore": LocationFacts(
        ("Wei Ling", "Jun Jie", "Siti", "Ravi", "Mei", "Darren"), "06:45", "12:30", "19:30",
        ("Bus", "Walking on street"),
        (_OFFICE, _STUDENT, _BAKER, _CARER),
        meal_out="Eating in hawker center",
        families=("Tan", "Lim", "Lee", "Ng", "Wong", "Goh", "Chua", "Kumar"),
    ),
    "Colombia": LocationFacts(
        ("Valentina", "Santiago", "Camila", "Mateo", "Isabella", "Andrés"), "05:45", "12:30",
        "19:30", ("Bus", "Walking on street", "Bike"),
        (_OFFICE, _STUDENT, _FARMER, _BUILDER, _CARPENTER, _BIKE),
        families=("Rodríguez", "Gómez", "González", "Martínez", "López", "Hernández", "Díaz", "Moreno"),
    ),
    "Rwanda": LocationFacts(
        ("Aline", "Eric", "Grace", "Jean", "Diane", "Patrick"), "05:30", "12:30", "19:00",
        ("Walking on street", "Bus", "Bike"),
        (_FARMER, _STUDENT, _OFFICE, _BUILDER, _CARPENTER, _BIKE),
        families=("Uwimana", "Mukamana", "Niyonzima", "Habimana", "Uwase", "Nshimiyimana", "Mugisha", "Ingabire"),
    ),
}

DEFAULT_LOCATION = LocationFacts(
    ("Alex", "Sam", "Robin", "Kim"), "06:45", "12:30", "19:00",
    ("Walking on street", "Bus", "Car - commuting, road trip"),
    (_OFFICE, _STUDENT, _BUILDER, _CARER),
)


def facts_for(location: str) -> LocationFacts:
    """Facts for a location; unknown places get neutral defaults rather than an error."""
    return LOCATIONS.get(location, DEFAULT_LOCATION)


def unknown_location(name: str) -> str:
    """'not a known location; did you mean Japan?' (the 9 Ego4D countries are known)."""
    close = difflib.get_close_matches(str(name), list(LOCATIONS), n=1, cutoff=0.6)
    hint = f"did you mean {close[0]}? " if close else ""
    return (f"not a known location; {hint}choose from {', '.join(LOCATIONS)} (the countries "
            "of the Ego4D videos the matcher can keep)")
