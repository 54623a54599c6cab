"""The loading stage: YAML with locations, schema checks, a game's folder."""
