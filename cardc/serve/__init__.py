"""`cardc serve`: the designer's live workbench in the browser.

One local web server over the designer's project shows every card as the
printer draws it, the rulebook, a game against bots and a simulation, and
follows every save of a content file.  Module map:

  cli        the command: arguments, the socket, uvicorn
  workbench  the project's games, builds, the file watcher, the build version
  pictures   card pictures from the print renderer (PNG via pypdfium2), cached
  views      what the card and rulebook pages show (source listings, mentions)
  play       people's seats against bots: each seat's observation only, undo, step back
  board      the board a seat sees, from the grid and the content's `display`
  runs       games and simulations saved under generated/serve/, read back after a restart
  replay     the replay viewer: a finished game after N moves, from a seat or all
  simulate   background `cardc simulate` runs, one at a time, with progress and cancel
  guard      loopback only, same-origin POSTs, the Content-Security-Policy
  app        the Starlette routes and pages (templates/, static/)
"""
