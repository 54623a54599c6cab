"""Where cardc finds the repository's folders.

cardc is installed editable from its repository, and the grammar, content,
generated bundles and print templates are repository folders rather than
package data, so every path is found relative to this package.
"""

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
GRAMMAR = REPO / "grammar"
CONTENT = REPO / "content"
GENERATED = REPO / "generated"
PRINT = REPO / "print"
