"""The engine version written into saved states and records (a leaf module: nothing to import)."""

# ffo-engine-2: rail routes take control of the hexes they enter (R17); German retreats never end in
# the red row (R38)
ENGINE_VERSION = "ffo-engine-2"
