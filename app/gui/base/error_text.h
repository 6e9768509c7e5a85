#pragma once
// Lower layers' errors as the window shows them: "file: reason" (core::Error::describe), one place for every panel.
#include <QString>

#include "core/error.h"

namespace delineate::app::gui {

inline QString fromError(const core::Error& e) { return QString::fromStdString(e.describe()); }

}  // namespace delineate::app::gui
