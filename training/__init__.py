"""Training of French and German policies with sb3-contrib MaskablePPO (self-play with an opponent pool)."""
