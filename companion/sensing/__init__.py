"""Sensing: the reed-switch grid, the camera and the GPIO the companion reads the table through."""
