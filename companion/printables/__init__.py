"""Printables: true-scale board overlays, piece stickers and calibration targets as SVG."""
