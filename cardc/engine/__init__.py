"""The generic rules engine: it runs any compiled bundle and knows no game.

    game = Game.load("generated/<game>.json")
    st = game.new_state(players=4, seed=1)
    while not st.is_terminal():
        st.apply(0)          # or an agent's pick from st.legal_actions()
"""
from cardc.engine.errors import BadBundle, BundleMismatch, CorruptState, EngineError, EngineFault, IllegalAction
from cardc.engine.game import Game
from cardc.engine.state import State

__all__ = ["Game", "State", "EngineError", "EngineFault", "IllegalAction", "CorruptState",
           "BundleMismatch", "BadBundle"]
