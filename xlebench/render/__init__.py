"""Rendering life logs: output-time mapping, WebVTT clock, ffmpeg stitching, frame sampling."""
