#pragma once
// Versioned label sets in the share store: every save is a new revision, never an overwrite.
//
// Layout: <store>/studies/<study>/labelsets/<name>/r<NNNNNN>.json (metadata) and r<NNNNNN>.bin (content).
// - Saving claims the next number by publishing the metadata file under a new name (link(2): exclusive, also on
//   NFS); a writer that loses the race takes the next number. The metadata holds the content's SHA-256, author,
//   time (UTC), base revision and message. The content is published after it, also under a new name.
// - A revision exists when both files exist; metadata without content (a writer killed mid-save) is an incomplete
//   revision: never listed, never loaded, reported by list() in `incomplete`.
// - Conflicts: a save states the revision it was based on. If a newer revision appeared meanwhile (another
//   annotator or job saved), the save still becomes a new revision, marked `conflict` with the revision it raced,
//   so both edits are kept and the caller can tell the user. Numbers claimed by a save still in progress count as
//   newer, so two writers racing from the same base both learn of each other (the second is marked).
// - load() re-hashes the content and refuses a file whose SHA-256 differs from its metadata (bit rot, truncation,
//   tampering), naming the file.

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "io/share_store.h"

namespace delineate::io {

struct RevisionInfo {
  int number = 0;
  std::string sha256;
  std::uint64_t bytes = 0;
  std::string author;
  std::string time;  // UTC, ISO 8601
  int base = 0;      // 0: first revision
  std::string message;
  bool conflict = false;  // saved on `base` while `latestAtSave` had appeared
  int latestAtSave = 0;
};

struct RevisionList {
  std::vector<RevisionInfo> revisions;  // complete ones, by number
  std::vector<int> incomplete;          // claimed numbers without content (interrupted saves)
  int latest() const { return revisions.empty() ? 0 : revisions.back().number; }
};

class LabelSetRevisions {
 public:
  // study and label-set names: letters, digits, '-', '_', '.', at most 128 characters (they become folder names).
  static core::Result<LabelSetRevisions> open(const ShareStore& store, const std::string& study,
                                              const std::string& labelSet);

  core::Result<RevisionList> list() const;
  core::Result<RevisionInfo> save(const void* data, std::size_t size, const std::string& author, int baseRevision,
                                  const std::string& message) const;
  core::Result<std::vector<std::uint8_t>> load(int revision) const;

  const std::string& folder() const { return m_folder; }  // relative to the store root

 private:
  LabelSetRevisions(const ShareStore& store, std::string folder) : m_store(&store), m_folder(std::move(folder)) {}
  const ShareStore* m_store;
  std::string m_folder;
};

}  // namespace delineate::io
