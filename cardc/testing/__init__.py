"""What checks a game's rules, for designers and for cardc's own tests:

- `scenario`: rules scenarios (a start state, scripted decisions, expected
  results), run by `cardc scenario` and tests/test_scenarios.py
"""
