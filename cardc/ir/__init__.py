"""What the compiler and the engine share about the compiled IR.

Today: the builtin functions of the effect language (`builtins.py`), each
declared once.  Neither the compiler nor the engine is imported here.
"""
