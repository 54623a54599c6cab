"""The command line's subcommands that are not a stage's own (`cardc/cli.py`
is the entry point and builds the parser from them):

- `new`: `cardc new NAME` and `cardc schemas`
- `designer`: `cardc invariants` and `cardc view`
- `designer_guide`: `cardc guide [TOPIC]`
- `showcase`: what `./run` does (`python -m cardc.commands.showcase`)
- `cliargs`: the types of command-line values, shared with `cardc simulate`
"""
