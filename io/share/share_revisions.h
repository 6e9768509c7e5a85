#pragma once
// Versioned files in the share store: every save is a new revision, never an overwrite. Label sets and model
// checkpoints are both revision folders; they differ in their folder, their content's file type and what they add.
//
// Layout of a revision folder: r<NNNNNN>.json (metadata, the folder's manifest entry for that revision) and the
// content r<NNNNNN>.<suffix> (".nii.gz" for label sets, the checkpoint's own suffix for checkpoints).
// - The metadata holds the content's file name, SHA-256, size, author, time (UTC), base revision, message, conflict
//   marking and, for checkpoints, the caller's JSON sidecar ("extra": architecture, label table, provenance, metrics).
//   The set of metadata files is the folder's manifest: each entry is written once and never changed, so no shared
//   index file is rewritten on every save (a torn or lost update of one would hide every revision at once).
// - Saving claims the next number by publishing the metadata file under a new name (link(2): exclusive, also on
//   NFS); a writer that loses the race takes the next number. The content is published after it, also under a new
//   name. Large content (saveFile) is first streamed into a staging file ".upload-<random>.<suffix>" through the
//   verified write path (its hash comes from that pass, so nothing is read twice before the claim), then linked to
//   its revision name.
// - A revision exists when both files exist; metadata without content (a writer killed mid-save) is an incomplete
//   revision: never listed, never loaded, reported by list() in `incomplete`. Temporary and staging files a killed
//   writer left (".<name>.tmp-<random>", ".upload-<random>.<suffix>") are reported in `leftovers`; a metadata file
//   that cannot be read or parsed is reported in `damaged` with the reason and skipped: it hides no other revision,
//   and its number is never claimed again.
// - Conflicts: a save states the revision it was based on. If a newer revision appeared meanwhile (another
//   annotator or job saved), the save still becomes a new revision, marked `conflict` with the revision it raced,
//   so both edits are kept and the caller can tell the user. Numbers claimed by a save still in progress count as
//   newer, so two writers racing from the same base both learn of each other (the second is marked).
// - load() and copyOut() re-hash the content and refuse a file whose SHA-256 differs from its metadata (bit rot,
//   truncation, tampering), naming the file.

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/label_map.h"
#include "core/progress.h"
#include "io/share/share_store.h"
#include "io/trust/roster.h"

namespace delineate::io {

struct RevisionInfo {
  int number = 0;
  std::string content;  // file name of the content in the folder ("r000003.nii.gz")
  std::string sha256;
  std::uint64_t bytes = 0;
  std::string author;
  std::string time;  // UTC, ISO 8601
  int base = 0;      // 0: first revision
  std::string message;
  bool conflict = false;  // saved on `base` while `latestAtSave` had appeared
  int latestAtSave = 0;
  std::string extraJson;  // the caller's sidecar object as JSON text ("{}" when none)
  // Not stored: what the record's signature is worth (io/share/share_trust.h); "unsigned" on an unsigned store.
  RecordTrust trust;
  // Not stored: set by a label-set save whose revision is safe but whose study-catalogue record could not be written
  // (io/share/share_catalogue.h); the caller tells the user.
  std::string catalogueWarning;
};

struct RevisionList {
  std::vector<RevisionInfo> revisions;  // complete ones, by number
  std::vector<int> incomplete;          // claimed numbers without content (interrupted saves)
  struct Damaged {
    int number = 0;
    std::string reason;  // names the file
  };
  std::vector<Damaged> damaged;         // metadata that cannot be read: skipped, reported
  std::vector<std::string> leftovers;   // file names of interrupted writes (temporary, staging), sorted
  int latest() const { return revisions.empty() ? 0 : revisions.back().number; }
  const RevisionInfo* find(int number) const;
};

struct SaveRequest {
  std::string author;
  int baseRevision = 0;
  std::string message;
  std::string extraJson;  // optional JSON object stored with the revision
  // Asked before the revision's number is claimed (each round): once cancelled, the save ends with Cancelled and
  // leaves no revision, incomplete or complete. After the claim it finishes (a claimed number is never abandoned
  // by choice). A save blocked on a hung share checks it when the share answers again.
  const core::ProgressSink* progress = nullptr;
  // Non-zero: the revision must get this number; when another writer claimed it first, the save ends with
  // InvalidArgument ("changed meanwhile") instead of taking the next one (a roster version names its number).
  int expectedNumber = 0;
};

class RevisionFolder {
 public:
  // `folder` relative to the store; `suffix` (with its dot) names content files unless a save gives its own.
  // `kind`: the revisions' content is patient data (label sets, checkpoints, datasets), sealed under the share's
  // content key where the share encrypts its content (ShareStore::writeFile), or a record that stays in the clear
  // (the roster's own versions, which carry the wrapped content keys). The metadata's sha256 and bytes are the
  // content's, sealed or not, and load(), copyOut() and verify() decrypt a sealed content file as they read it.
  RevisionFolder(const ShareStore& store, std::string folder, std::string suffix, ShareFile kind = ShareFile::Content)
      : m_store(&store), m_folder(std::move(folder)), m_suffix(std::move(suffix)), m_kind(kind) {}

  core::Result<RevisionList> list() const;
  // A buffer in memory.
  core::Result<RevisionInfo> save(const void* data, std::size_t size, const SaveRequest& request) const;
  // A file streamed in blocks (checkpoints of hundreds of MB); `suffix` empty: the folder's.
  core::Result<RevisionInfo> saveFile(const std::string& sourcePath, const SaveRequest& request,
                                      const std::string& suffix = {}) const;
  // The verified content in memory (sizes are checked against the metadata before allocating).
  core::Result<std::vector<std::uint8_t>> load(int revision) const;
  // The verified content streamed to a local file (atomically: a damaged revision leaves `targetPath` untouched).
  // `access`: who may read the copy (io/base/file_modes.h): a path the user chose, or a local cache (Private).
  core::Result<RevisionInfo> copyOut(int revision, const std::string& targetPath,
                                     FileAccess access = FileAccess::Personal) const;
  // Re-hashes the content without keeping it.
  core::Result<RevisionInfo> verify(int revision) const;

  const std::string& folder() const { return m_folder; }  // relative to the store root
  const ShareStore& store() const { return *m_store; }

 protected:
  // The roster role a signer of this folder's revisions must hold (io/share/share_trust.h); empty: revisions here are
  // neither signed nor verified (the roster's own versions carry their own signatures).
  void setSignerRole(std::string role) { m_role = std::move(role); }
  // Revisions here hold patient data (label sets) or what was learnt from it (checkpoints): load() and copyOut()
  // write a "read" audit record (io/share/audit_log.h) naming `study` and `name` before they read, and refuse when it
  // cannot be written. verify() and list() read no content a person sees and write none.
  void setAuditedAs(std::string study, std::string name) {
    m_audited = true;
    m_auditStudy = std::move(study);
    m_auditName = std::move(name);
  }

 private:
  core::Result<RevisionInfo> claimAndPublish(RevisionInfo info, const std::string& suffix,
                                             const void* data, std::size_t size,
                                             const std::string& stagedPath, const SaveRequest& request) const;
  core::Result<RevisionInfo> info(int revision, std::string* contentPath) const;

  const ShareStore* m_store;
  std::string m_folder;
  std::string m_suffix;
  ShareFile m_kind = ShareFile::Content;
  std::string m_role;
  bool m_audited = false;
  std::string m_auditStudy, m_auditName;
  core::Status auditRead(int revision, const std::string& detail) const;
};

// study and label-set names: letters, digits, '-', '_', '.', at most 128 characters (they become folder names).
bool isValidShareName(const std::string& name);

// A label set: studies/<study>/labelsets/<name>/, content as .nii.gz (any NIfTI reader opens a revision directly).
class LabelSetRevisions : public RevisionFolder {
 public:
  static core::Result<LabelSetRevisions> open(const ShareStore& store, const std::string& study,
                                              const std::string& labelSet);

  // Every save also tells the study catalogue (a "labels" record; a failure there is info.catalogueWarning). The image
  // a revision is bound to is the "image" object of request.extraJson ({"study", "series", geometry}).
  core::Result<RevisionInfo> save(const void* data, std::size_t size, const SaveRequest& request) const;
  core::Result<RevisionInfo> save(const void* data, std::size_t size, const std::string& author, int baseRevision,
                                  const std::string& message) const {
    return save(data, size, SaveRequest{author, baseRevision, message, {}});
  }
  // The label map as a .nii.gz revision (gzip level 6: label maps are mostly runs and shrink ~100x).
  core::Result<RevisionInfo> saveLabels(const core::LabelMap& labels, const SaveRequest& request) const;
  core::Result<core::LabelMap> loadLabels(int revision) const;

  const std::string& study() const { return m_study; }
  const std::string& name() const { return m_name; }

 private:
  LabelSetRevisions(const ShareStore& store, std::string study, std::string name);
  std::string m_study;
  std::string m_name;
};

// Model checkpoints: checkpoints/<model>/, content with the checkpoint's own suffix (.pt, .safetensors), the
// training sidecar (architecture config, label table, provenance, metrics) in the metadata's "extra".
class ModelCheckpoints : public RevisionFolder {
 public:
  static core::Result<ModelCheckpoints> open(const ShareStore& store, const std::string& model);

 private:
  ModelCheckpoints(const ShareStore& store, const std::string& model) : RevisionFolder(store, "checkpoints/" + model, ".pt") {
    setSignerRole("trainer");
    setAuditedAs({}, model);
  }
};

}  // namespace delineate::io
