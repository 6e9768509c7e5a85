#pragma once
// Where the window finds what is installed beside it (packaging/README.md): translations, the bundled sample study,
// the programs it runs. Installed, everything is found from the program's own folder (/usr/bin ->
// /usr/share/delineate). A build tree's paths are used only by a program that runs from that build tree: an installed
// window never looks into a build folder (which anyone might create on another machine, with a library in it).

#include <QString>

namespace delineate::app::gui {

// True when the running program lies inside the build tree it was built in.
bool runningFromBuildTree();

// The folder holding delineate_<lang>.qm: $DELINEATE_TRANSLATIONS, else ../share/delineate/translations from the
// program, else (in a build tree) the build's own; empty when none holds a translation (delineate-l10n not installed).
QString translationsDirectory();

// The bundled sample study (example_ct.nii.gz): installed under ../share/delineate/sample, or the source tree's
// resources/sample in a build tree; empty when absent.
QString sampleStudyPath();

// The known public models (known_models.json): ../share/delineate/models, or the source tree's resources/models in a
// build tree.
QString knownModelsPath();

}  // namespace delineate::app::gui
