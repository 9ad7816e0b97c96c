"""Day plans: an agenda of the persona's day cut into plan chunks."""
