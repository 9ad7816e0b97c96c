"""Personas: who wears the camera. A grid of location x MBTI, or hand-written files."""
