#pragma once
// What a share store holds for the window's "Open Labels from Share": every label set revision under
// studies/<study>/labelsets/<set>/, newest first within a set.

#include <string>
#include <vector>

#include "core/error.h"
#include "io/share/share_revisions.h"

namespace delineate::app::gui {

struct ShareRevisionEntry {
  std::string study, labelSet;
  io::RevisionInfo info;
  bool signedStore = false;  // the share signs its records: an unsigned one is said as such
  // "study / set  r3  (author, time)  message  [signed by author]", for lists; a record whose signature does not
  // hold says NOT TRUSTED and why.
  std::string describe() const;
};

// Errors: the share is not mounted (no sentinel), a folder that cannot be listed.
core::Result<std::vector<ShareRevisionEntry>> listShareRevisions(const std::string& root);

}  // namespace delineate::app::gui
