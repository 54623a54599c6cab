"""The designer's project, and a game built in it: the glue between the
command line and the stages.

- `build`: find games by id or folder, compile one (`build_folder`,
  `compile_checked`), read a built bundle back (`load_bundle`)
- `overrides`: `--set PATH=VALUE`, one number changed for one run

Where cardc's own data and the project's folders are is the frontend's
(`cardc/load/paths.py`): the parser and the loader need it, and this
package stands on the compiler, so it cannot sit below them.
"""
from cardc.project.build import (
    NO_PROJECT,
    Built,
    UsageError,
    build_folder,
    built_from,
    bundle_bytes,
    bundle_path,
    compile_checked,
    current_project,
    game_folders,
    generated_dir,
    load_bundle,
    project_for,
)

__all__ = [
    "NO_PROJECT",
    "Built",
    "UsageError",
    "build_folder",
    "built_from",
    "bundle_bytes",
    "bundle_path",
    "compile_checked",
    "current_project",
    "game_folders",
    "generated_dir",
    "load_bundle",
    "project_for",
]
