#pragma once
// Files sealed at rest (io/base/sealed_file.h) as Delineate's own stores write them, for the suites that link io.
#include <filesystem>
#include <string>

#include "core/error.h"
#include "io/base/atomic_file.h"
#include "io/base/file_modes.h"

namespace delineate::test {

// `content` written to `path` sealed under this user's at-rest key (FileAccess::Sealed, atomically).
inline core::Status writeSealed(const std::filesystem::path& path, const std::string& content) {
  io::AtomicWriteOptions options;
  options.access = io::FileAccess::Sealed;
  return io::writeFileAtomically(path.string(), content.data(), content.size(), options);
}

}  // namespace delineate::test
