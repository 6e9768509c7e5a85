#pragma once
// The share store: a folder on a network share (NFS, SMB, sshfs) that holds studies, versioned label sets, model
// checkpoints, reports and the audit log. This is its foundation: opening a share safely and the one write path
// every file the app puts on the share goes through. Revisions, manifests, leases and conflicts build on it.
//
// Layout (created by initialize):
//   <root>/.delineate-share   sentinel (JSON: format, id). A share whose sentinel is missing is treated as not
//                             mounted: a detached mount point is an empty local folder, and writing there would put
//                             hours of work on the local disk where nobody looks for it. Nothing is written then.
//   <root>/studies/           per-study label sets and their revisions
//   <root>/checkpoints/       model checkpoints
//   <root>/reports/           exported reports
//   <root>/audit/             append-only audit logs, one per host (io/share/audit_log.h)
//
// Write path (writeFile): temp file in the target folder, write (hashing), fsync, close (both checked), read back
// and compare SHA-256, publish (rename, or link when the name must be new), fsync the folder; a publish that reports
// failure is re-checked against the target before failure is reported (io/base/atomic_file.h). The sentinel is checked
// before every write. Errors name the file and the reason; a failed write leaves what was there untouched.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "core/error.h"
#include "io/base/atomic_file.h"

namespace delineate::io {

struct ShareTrustCache;  // io/share/share_trust_internal.h

// JSON records on the share (the sentinel, revision records, report manifests) are a few kilobytes, a label table
// in a revision's "extra" at most a few megabytes: anything longer is not ours and is refused before it is parsed.
inline constexpr std::uintmax_t kMaxRecordBytes = std::uintmax_t(16) << 20;

// Exclusive claims. Revision numbers, report folders, leases and break markers are names on the share that exactly
// one writer may create; each is claimed by creating it (createExclusive). A writer that finds its name taken looks
// again (a fresh listing, the next number, the other holder's lease) and tries once more. Every such loop runs
// through claimExclusively, so they share one retry policy: kClaimAttempts rounds, then an error naming the folder.
inline constexpr int kClaimAttempts = 256;

// One exclusive create: the name is ours now, or another writer had created it first.
enum class Claim { Created, Taken };

// What a file of the store is: a record (JSON: metadata, review steps, manifests, leases) or content (patient data).
enum class ShareFile { Record, Content };

class ShareStore {
 public:
  static constexpr const char* kSentinel = ".delineate-share";

  // Creates the layout and the sentinel in an existing folder (idempotent: an existing store is opened as it is).
  static core::Result<ShareStore> initialize(const std::string& root);
  // Opens an existing store: NotFound naming the root when the sentinel is missing ("not mounted?").
  static core::Result<ShareStore> open(const std::string& root);

  const std::string& root() const { return m_root; }
  const std::string& id() const { return m_id; }

  // NotFound when the sentinel has gone (the share was detached after opening).
  core::Status checkMounted() const;

  // Writes `relativePath` (folders below the root are created) through the verified write path and returns the
  // content's hex SHA-256. `mustBeNew`: refuse to replace an existing file (revisions are never overwritten).
  // `kind` Content: patient data (a revision's content, an imported instance), sealed under the
  // share's content key when the share encrypts its content (io/share/share_trust.h encryptShareContent), and
  // refused, naming the reason, when it does and this user cannot have the key. Records stay in the clear (their
  // signatures are checked by every member, and they name no patient beyond the study's name).
  core::Result<std::string> writeFile(const std::string& relativePath, const void* data, std::size_t size,
                                      bool mustBeNew = false, ShareFile kind = ShareFile::Record) const;

  // A local file streamed in (blocks, hashed while written, read back and compared before it becomes visible), for
  // files of any size (DICOM instances, volumes). Returns the content's hex SHA-256. `mustBeNew` as for writeFile.
  // `expectedSha256` (hex, optional): refused before publishing when the content differs (Corrupt).
  core::Result<std::string> copyFileIn(const std::string& relativePath, const std::string& sourcePath,
                                       bool mustBeNew = false, const std::string& expectedSha256 = {},
                                       ShareFile kind = ShareFile::Record) const;
  // A file of the store streamed to a local file (atomically): refused, naming the file, when its size or SHA-256
  // differs from what its record says (bit rot, truncation, tampering); then `targetPath` is left untouched. A file
  // sealed under the share's content key is decrypted on the way (streamContentBlocks).
  // `access`: who may read the copy (io/base/file_modes.h): a path the user chose, or a local cache (Private).
  core::Status copyFileOut(const std::string& relativePath, const std::string& sha256, std::uint64_t bytes,
                           const std::string& targetPath, FileAccess access = FileAccess::Personal) const;

  // Creates `relativePath` and its missing parents as the store's folders: 02770, the group inherited (setgid), so
  // the share's group and nobody else may read what is put there (io/base/file_modes.h). Every folder of the
  // store is made here or by the write path, which calls it.
  core::Status makeFolder(const std::string& relativePath) const;

  // writeFile(mustBeNew) that tells a name another writer created first (Taken) from a failure (an error).
  core::Result<Claim> createExclusive(const std::string& relativePath, const void* data, std::size_t size) const;

  // Every later write through this store (writeFile, revision uploads) adds its phase times to *times; nullptr stops.
  // For benchmarks and diagnostics; the WritePhaseTimes must outlive the writes.
  void recordWriteTimes(WritePhaseTimes* times) { m_times = times; }
  WritePhaseTimes* writeTimes() const { return m_times; }

  // Absolute path of `relativePath`; InvalidArgument for absolute paths or ".." that would leave the store.
  core::Result<std::string> resolve(const std::string& relativePath) const;

  // The roster and this user's signing key as this store object (and its copies) read them first
  // (io/share/share_trust.h); shared between copies, safe from several threads.
  ShareTrustCache& trustCache() const { return *m_trust; }

 private:
  ShareStore(std::string root, std::string id);
  // The verified write path's writer for `relativePath` (folders created, the sentinel checked).
  core::Result<AtomicFileWriter> startWrite(const std::string& relativePath, bool mustBeNew,
                                            const std::string& expectedSha256 = {},
                                            ShareFile kind = ShareFile::Record) const;
  std::string m_root;
  std::string m_id;
  WritePhaseTimes* m_times = nullptr;
  std::shared_ptr<ShareTrustCache> m_trust;
};

// Streams `path` through `sink(block, n)` in blocks of 8 MiB (large enough for network shares). `expectedBytes`
// (UINT64_MAX: any) is checked as it goes and at the end: Corrupt naming the file when it differs.
using BlockSink = std::function<core::Status(const std::uint8_t*, std::size_t)>;
core::Status streamFileBlocks(const std::string& path, std::uint64_t expectedBytes, const BlockSink& sink);
// The same for a content file of `store`: one sealed under the share's content key (or any key this user holds) is
// decrypted as it is read, `expectedBytes` being the content's size; one this user cannot read is an error naming
// the file and why (a generation of the key this user was never given, or lost on removal from the roster).
core::Status streamContentBlocks(const ShareStore& store, const std::string& path, std::uint64_t expectedBytes,
                                 const BlockSink& sink);
// The size of the content of a store file (a sealed file's plaintext size), or an error naming it.
core::Result<std::uint64_t> contentFileSize(const std::string& path);

// Runs `round(attempt)` for attempt 0, 1, ... until it settles: a value when it has one (claimed, or found there is
// nothing to claim), no value when it lost a race and must look again, or an error, which ends the loop. After
// kClaimAttempts rounds without a value: WriteFailed naming `subject` ("could not claim <what> ...").
template <class T, class Round>
core::Result<T> claimExclusively(const std::string& subject, const std::string& what, Round&& round) {
  for (int attempt = 0; attempt < kClaimAttempts; ++attempt) {
    core::Result<std::optional<T>> settled = round(attempt);
    if (!settled) return settled.error();
    if (settled->has_value()) return std::move(**settled);
  }
  return core::makeError(core::ErrorCode::WriteFailed, subject,
                         "could not claim " + what + " after " + std::to_string(kClaimAttempts) +
                             " attempts (other writers took each one first)");
}

}  // namespace delineate::io
