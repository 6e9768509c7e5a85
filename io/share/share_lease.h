#pragma once
// Leases: "who is editing this label set". Advisory: a save never depends on holding one (saves re-check their base
// revision and become conflict revisions instead, io/share/share_revisions.h), but the app and the CLI tell a user who
// else has the label set open, and a crashed editor's lease runs out on its own.
//
// Files, in the label set's folder of the store:
//   lease.json             the lease: token (random), user, host, pid, acquired (UTC ISO and epoch ms), ttlSeconds.
//                          Created exclusively through the store's write path (link(2), which is atomic on NFS where
//                          O_EXCL was not; rename after a check where a share has no hard links). Never rewritten.
//   lease-<token>.beat     the holder's heartbeat (epoch ms and a counter), replaced atomically by heartbeat().
//                          Only its holder writes it, so a late heartbeat can never overwrite a lease someone else
//                          took after a break (rewriting lease.json itself could).
//   lease.breaking         the marker a breaker holds (created exclusively) while it breaks an expired lease, so
//                          two hosts breaking at once cannot take each other's fresh lease. A marker older than
//                          kBreakMarkerStaleSeconds is itself stale (its breaker died) and is removed.
//   lease-broken-<time>-<token>.json   a broken lease, kept as evidence beside the audit record. The breaker
//                          replaces the stale lease.json with its own in one rename, so there is never a moment
//                          without a lease in which a third process could slip in.
//
// Expiry: a lease expires `ttlSeconds` after its latest sign of life (acquired, or the last heartbeat) as written by
// its holder's clock. Another host breaks it only once its own clock is past that by `skewGraceSeconds` more, so
// clocks that disagree by less than the grace never break a live lease. Every break is written to the store's audit
// log (action "lease-break", the holder, its last sign of life) before the lease is moved away; when the audit log
// cannot be written, the lease is not broken.
//
// A holder learns that its lease was broken (or vanished: a share restored from backup, an admin's rm) at its next
// heartbeat(), which then fails with a clear error: the label set may be edited elsewhere and its next save may
// become a conflict revision.

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "core/error.h"
#include "io/share/share_store.h"

namespace delineate::io {

struct LeasePolicy {
  int ttlSeconds = 120;        // a lease without a sign of life for this long has expired
  int heartbeatSeconds = 30;   // how often a holder should call heartbeat() (the caller's timer)
  int skewGraceSeconds = 30;   // extra time before another host may break an expired lease
  // A lease whose holder ran on this machine (same host name) and whose process no longer exists counts as expired
  // at once (batch jobs: a cancelled task's study is taken by the next run). Off for editors' leases.
  bool breakWhenHolderGone = false;
  // The wall clock; tests inject their own to step through expiry without sleeping.
  std::function<std::chrono::system_clock::time_point()> clock;
};

inline constexpr int kBreakMarkerStaleSeconds = 60;

struct LeaseHolder {
  std::string token;
  std::string user;
  std::string host;
  long long pid = 0;
  std::string acquiredIso;
  std::int64_t lastSignMs = 0;  // epoch ms of the acquisition or the last heartbeat, by the holder's clock
  int ttlSeconds = 0;
  bool expired = false;         // as judged now, grace included
  bool processGone = false;     // expired because its process on this machine is gone (breakWhenHolderGone)
};

enum class LeaseOutcome {
  Acquired,   // we hold it now (newly, or it was already ours)
  Broke,      // the previous holder's lease had expired: broken (audited), and we hold it now
  HeldByOther // someone else holds a live lease (or is breaking an expired one right now): see `holder`
};

struct LeaseResult {
  LeaseOutcome outcome = LeaseOutcome::HeldByOther;
  std::optional<LeaseHolder> holder;    // the other holder (HeldByOther), or the one whose lease was broken (Broke)
  // Set when the lease was taken but the study catalogue (io/share/share_catalogue.h) could not be told.
  std::string catalogueWarning;
};

class ShareLease {
 public:
  // `folder`: the label set's folder relative to the store (LabelSetRevisions::folder()). `user` empty: the login
  // name of the process. The lease is not taken yet.
  static core::Result<ShareLease> prepare(const ShareStore& store, std::string folder, std::string user,
                                          LeasePolicy policy = {});

  // Takes the lease when it is free or ours, breaks it when it has expired, and otherwise reports the holder.
  // Errors only for failures (share not mounted, I/O errors, an audit log that cannot be written for a break).
  core::Result<LeaseResult> acquire();
  // Renews our lease. Fails (Conflict-like WriteFailed naming lease.json) when the lease is no longer ours: it was
  // broken after expiry or removed; then held() turns false.
  core::Status heartbeat();
  // Gives the lease up (only if it is still ours; a lease someone else took is left alone). Idempotent.
  core::Status release();

  // The current lease on the label set, whoever holds it; nullopt when none.
  core::Result<std::optional<LeaseHolder>> current() const;

  bool held() const { return m_held; }
  // The catalogue warning of the last release() ("" when the catalogue was told, or the folder is not a label set).
  const std::string& releaseCatalogueWarning() const { return m_releaseWarning; }
  const std::string& token() const { return m_token; }
  const std::string& user() const { return m_user; }

 private:
  ShareLease(const ShareStore& store, std::string folder, std::string user, LeasePolicy policy);
  std::chrono::system_clock::time_point now() const;
  core::Result<std::optional<LeaseHolder>> readLease() const;
  core::Result<bool> tryCreate(bool replaceStale);
  core::Result<bool> breakExpired(const LeaseHolder& stale);

  const ShareStore* m_store;
  std::string m_folder;
  std::string m_user;
  std::string m_host;
  LeasePolicy m_policy;
  std::string m_token;
  bool m_held = false;
  std::uint64_t m_beats = 0;
  std::string m_releaseWarning;
};

}  // namespace delineate::io
