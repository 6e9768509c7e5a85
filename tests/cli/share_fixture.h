#pragma once
// A share store for CLI tests: made by `delineate-cli share init` (the subject), its label revisions written through
// io (the fixture). Include after cli_runner.h.

#include <filesystem>
#include <string>
#include <vector>

#include "io/share/share_revisions.h"
#include "tests/common/test_support.h"

namespace delineate::test {

// `dir`/store, initialised by the CLI; returns its path.
inline std::filesystem::path initCliShare(const ScratchDir& dir) {
  const std::filesystem::path root = dir / "store";
  std::filesystem::create_directories(root);
  REQUIRE(runCli("share init " + quoted(root.string())).exitCode == 0);
  return root;
}

// Saves 300 bytes of `fill` as the next revision of `study`/`labelSet` by `author`.
inline void saveBytesRevision(const std::filesystem::path& root, const std::string& study, const std::string& labelSet,
                              const std::string& author, std::uint8_t fill) {
  auto store = io::ShareStore::open(root.string());
  REQUIRE(store.ok());
  auto set = io::LabelSetRevisions::open(*store, study, labelSet);
  REQUIRE(set.ok());
  auto list = set->list();
  REQUIRE(list.ok());
  const std::vector<std::uint8_t> bytes(300, fill);
  REQUIRE(set->save(bytes.data(), bytes.size(), author, list->latest(), "").ok());
}

}  // namespace delineate::test
