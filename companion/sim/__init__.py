"""The digital twin: a simulated table (virtual grid, rendered camera, scripted players)."""
