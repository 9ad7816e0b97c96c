"""MultiHop-EgoQA: grounded questions whose answers need several moments of a day."""
