#pragma once
// Small whole files into memory, bounded. Every io reader of a whole file (label tables, JSON records of revisions,
// leases, manifests and autosave journals, files published as reports) goes through here and names its cap, so no
// file, whether damaged, special, or growing while it is read, makes io allocate more than that cap.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.h"

namespace delineate::io {

// The whole file, at most `maxBytes` long. `what` names the kind of file in messages ("label table"). Errors name
// the file: NotFound (missing), ReadFailed (a folder, cannot open, read error), SizeLimit (longer than `maxBytes`,
// by its size or while it is read). Pipes and devices are read to their end, never waited on when nobody writes:
// that suits the store's own records. A reader of a user-given path (label tables) refuses pipes, sockets and devices
// first with checkRegularFile (io/base/regular_file.h), so a wrong path is named as such rather than read as empty.
core::Result<std::string> readWholeFile(const std::string& path, std::uintmax_t maxBytes, std::string_view what);

// As readWholeFile, but a missing file (also one removed between a listing and the open) is no value.
core::Result<std::optional<std::string>> readWholeFileIfPresent(const std::string& path, std::uintmax_t maxBytes,
                                                                std::string_view what);

// A secret (a de-identification key): readWholeFile's rules, and InvalidArgument naming the file unless it is a
// regular file that neither its group nor others may access at all (mode & 077 == 0; the error says which chmod
// fixes it). The mode is checked on the descriptor that is read, so a file swapped between the check and the read
// is not read.
core::Result<std::string> readSecretFile(const std::string& path, std::uintmax_t maxBytes, std::string_view what);

}  // namespace delineate::io
