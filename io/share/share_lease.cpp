#include "io/share/share_lease.h"

#include "io/share/share_catalogue.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "io/base/atomic_file.h"
#include "io/base/file_read.h"
#include "io/share/audit_log.h"
#include "io/base/posix_util.h"

namespace delineate::io {
namespace {

using core::ErrorCode;
using core::makeError;
using Clock = std::chrono::system_clock;

constexpr const char* kLeaseFile = "lease.json";
constexpr const char* kBreakMarker = "lease.breaking";

std::int64_t epochMs(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

std::string isoOf(std::int64_t ms) {
  const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  ::gmtime_r(&seconds, &tm);
  char buf[80];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(((ms % 1000) + 1000) % 1000));
  return buf;
}


// Whole small file; nullopt when it does not exist.
constexpr std::uintmax_t kMaxLeaseFileBytes = 64 * 1024;

core::Result<std::optional<std::string>> readSmallFile(const std::string& path) {
  return readWholeFileIfPresent(path, kMaxLeaseFileBytes, "lease file");
}

// "studies/<study>/labelsets/<name>" -> study and label set for audit records.
void splitFolder(const std::string& folder, std::string& study, std::string& labelSet) {
  const std::string prefix = "studies/";
  const auto mid = folder.find("/labelsets/");
  if (folder.rfind(prefix, 0) == 0 && mid != std::string::npos && mid > prefix.size()) {
    study = folder.substr(prefix.size(), mid - prefix.size());
    labelSet = folder.substr(mid + std::strlen("/labelsets/"));
  }
}

}  // namespace

ShareLease::ShareLease(const ShareStore& store, std::string folder, std::string user, LeasePolicy policy)
    : m_store(&store),
      m_folder(std::move(folder)),
      m_user(std::move(user)),
      m_host(localHostName()),
      m_policy(std::move(policy)),
      m_token(detail::randomHex(16)) {}

core::Result<ShareLease> ShareLease::prepare(const ShareStore& store, std::string folder, std::string user,
                                             LeasePolicy policy) {
  if (auto path = store.resolve(folder); !path) return path.error();
  if (policy.ttlSeconds <= 0 || policy.skewGraceSeconds < 0 || policy.heartbeatSeconds <= 0 ||
      policy.heartbeatSeconds >= policy.ttlSeconds)
    return makeError(ErrorCode::InvalidArgument, folder,
                     "lease policy: need 0 < heartbeat < ttl and a grace of at least 0 seconds");
  if (user.empty()) user = processUserName();
  return ShareLease(store, std::move(folder), std::move(user), std::move(policy));
}

Clock::time_point ShareLease::now() const { return m_policy.clock ? m_policy.clock() : Clock::now(); }

core::Result<std::optional<LeaseHolder>> ShareLease::readLease() const {
  auto path = m_store->resolve(m_folder + "/" + kLeaseFile);
  if (!path) return path.error();
  auto text = readSmallFile(*path);
  if (!text) return text.error();
  if (!text->has_value()) return std::optional<LeaseHolder>();
  LeaseHolder h;
  const auto j = nlohmann::json::parse(**text, nullptr, false);
  try {
    if (j.is_discarded() || !j.is_object()) throw std::runtime_error("not a JSON object");
    h.token = j.at("token").get<std::string>();
    h.user = j.at("user").get<std::string>();
    h.host = j.at("host").get<std::string>();
    h.pid = j.at("pid").get<long long>();
    h.acquiredIso = j.at("acquired").get<std::string>();
    h.lastSignMs = j.at("acquiredMs").get<std::int64_t>();
    h.ttlSeconds = j.at("ttlSeconds").get<int>();
  } catch (const std::exception& e) {
    // Leases are published whole, so this is damage or a foreign file. It must not lock the label set for ever:
    // it counts as a lease of our own ttl whose last sign of life is the file's modification time.
    struct stat st {};
    if (::stat(path->c_str(), &st) != 0) return std::optional<LeaseHolder>();
    h = LeaseHolder{};
    h.token = "unreadable";
    h.user = "?";
    h.host = "?";
    h.lastSignMs = static_cast<std::int64_t>(st.st_mtime) * 1000;
    h.acquiredIso = isoOf(h.lastSignMs);
    h.ttlSeconds = m_policy.ttlSeconds;
  }
  if (h.token != "unreadable") {
    auto beatPath = m_store->resolve(m_folder + "/lease-" + h.token + ".beat");
    if (!beatPath) return beatPath.error();
    auto beat = readSmallFile(*beatPath);
    if (beat && beat->has_value()) {
      const auto b = nlohmann::json::parse(**beat, nullptr, false);
      if (b.is_object() && b.contains("ms") && b["ms"].is_number_integer())
        h.lastSignMs = std::max(h.lastSignMs, b["ms"].get<std::int64_t>());
    }
  }
  if (h.ttlSeconds <= 0) h.ttlSeconds = m_policy.ttlSeconds;
  const std::int64_t deadline =
      h.lastSignMs + (static_cast<std::int64_t>(h.ttlSeconds) + m_policy.skewGraceSeconds) * 1000;
  h.expired = epochMs(now()) > deadline;
  // A holder on this very machine whose process is gone (killed, crashed) is dead at once, when the policy says so:
  // a batch job's study must not wait out the TTL after a cancelled task. A reused pid keeps it alive (the TTL
  // then decides): the mistake can only be waiting too long, never breaking a live lease.
  if (!h.expired && m_policy.breakWhenHolderGone && h.token != "unreadable" && h.host == m_host && h.pid > 0 &&
      h.pid != static_cast<long long>(::getpid()) && ::kill(static_cast<pid_t>(h.pid), 0) != 0 && errno == ESRCH) {
    h.expired = true;
    h.processGone = true;
  }
  return std::optional<LeaseHolder>(h);
}

core::Result<bool> ShareLease::tryCreate(bool replaceStale) {
  const std::int64_t ms = epochMs(now());
  const nlohmann::json j{{"format", 1},   {"token", m_token},         {"user", m_user},
                         {"host", m_host}, {"pid", static_cast<long long>(::getpid())},
                         {"acquired", isoOf(ms)}, {"acquiredMs", ms}, {"ttlSeconds", m_policy.ttlSeconds}};
  const std::string text = j.dump(2) + "\n";
  if (replaceStale) {
    auto written = m_store->writeFile(m_folder + "/" + kLeaseFile, text.data(), text.size());
    if (!written) return written.error();
  } else {
    auto claimed = m_store->createExclusive(m_folder + "/" + kLeaseFile, text.data(), text.size());
    if (!claimed) return claimed.error();
    if (*claimed == Claim::Taken) return false;
  }
  m_held = true;
  m_beats = 0;
  return true;
}

core::Result<LeaseResult> ShareLease::acquire() {
  if (core::Status s = m_store->checkMounted(); !s) return s.error();
  // One round: look at the lease; create it when there is none, break it when it expired. Losing either race
  // (someone created or broke it first) means looking again.
  const auto round = [&](int) -> core::Result<std::optional<LeaseResult>> {
    auto lease = readLease();
    if (!lease) return lease.error();
    if (!lease->has_value()) {
      auto created = tryCreate(false);
      if (!created) return created.error();
      if (*created) return std::optional<LeaseResult>(LeaseResult{LeaseOutcome::Acquired, std::nullopt, {}});
      return std::optional<LeaseResult>();  // someone else created it first: look at theirs
    }
    const LeaseHolder& holder = **lease;
    if (holder.token == m_token) {
      m_held = true;
      if (core::Status s = heartbeat(); !s) return s.error();
      return std::optional<LeaseResult>(LeaseResult{LeaseOutcome::Acquired, std::nullopt, {}});
    }
    if (!holder.expired) return std::optional<LeaseResult>(LeaseResult{LeaseOutcome::HeldByOther, holder, {}});
    auto broke = breakExpired(holder);
    if (!broke) return broke.error();
    if (*broke) return std::optional<LeaseResult>(LeaseResult{LeaseOutcome::Broke, holder, {}});
    // Another process holds the break marker: it is breaking this lease (or just did), and that holds us off. Its
    // lease, or the stale one it is still breaking, is the holder to tell; a lease gone meanwhile is looked at again.
    auto after = readLease();
    if (!after) return after.error();
    if (!after->has_value()) return std::optional<LeaseResult>();
    return std::optional<LeaseResult>(LeaseResult{LeaseOutcome::HeldByOther, **after, {}});
  };
  const bool wasHeld = m_held;
  auto result = claimExclusively<LeaseResult>(m_folder + "/" + kLeaseFile, "the lease", round);
  // The catalogue learns of a lease taken afresh (not of renewals): "who is editing" in the study browser.
  std::string study, labelSet;
  if (result && result->outcome != LeaseOutcome::HeldByOther && !wasHeld &&
      splitLabelSetFolder(m_folder, &study, &labelSet))
    result->catalogueWarning = appendCatalogueOrWarn(
        *m_store, catalogueLeaseRecord(study, labelSet, result->outcome == LeaseOutcome::Broke ? "broke" : "acquired",
                                       m_user, m_host));
  return result;
}

core::Result<bool> ShareLease::breakExpired(const LeaseHolder& stale) {
  const std::string markerRel = m_folder + "/" + kBreakMarker;
  auto markerPath = m_store->resolve(markerRel);
  if (!markerPath) return markerPath.error();
  const std::int64_t ms = epochMs(now());
  const std::string marker = nlohmann::json{{"token", m_token}, {"user", m_user}, {"host", m_host}, {"ms", ms}}.dump();
  // The break marker: ours when we create it; another breaker's marker means it is at work, or died at work, and
  // its marker goes only once it is stale.
  const auto claimMarker = [&](int) -> core::Result<std::optional<bool>> {
    auto claimed = m_store->createExclusive(markerRel, marker.data(), marker.size());
    if (!claimed) return claimed.error();
    if (*claimed == Claim::Created) return std::optional<bool>(true);
    auto text = readSmallFile(*markerPath);
    if (!text) return text.error();
    if (!text->has_value()) return std::optional<bool>();  // gone meanwhile: try again
    const auto j = nlohmann::json::parse(**text, nullptr, false);
    const std::int64_t since = j.is_object() && j.contains("ms") && j["ms"].is_number_integer() ? j["ms"].get<std::int64_t>() : 0;
    if (ms - since < static_cast<std::int64_t>(kBreakMarkerStaleSeconds) * 1000) return std::optional<bool>(false);
    if (::unlink(markerPath->c_str()) != 0 && errno != ENOENT)
      return makeError(ErrorCode::WriteFailed, *markerPath, std::string("cannot remove a stale break marker: ") +
                                                                std::strerror(errno));
    return std::optional<bool>();
  };
  auto ours = claimExclusively<bool>(*markerPath, "the lease's break marker", claimMarker);
  if (!ours) return ours.error();
  if (!*ours) return false;
  struct MarkerGuard {
    std::string path;
    ~MarkerGuard() { ::unlink(path.c_str()); }
  } guard{*markerPath};

  // With the marker ours, nobody else breaks: the lease is still the stale one we judged, or it was renewed or
  // replaced meanwhile and is left alone.
  auto again = readLease();
  if (!again) return again.error();
  if (!again->has_value()) return false;  // released meanwhile: the caller's next round creates one
  const LeaseHolder& now = **again;
  if (now.token != stale.token || !now.expired) return false;

  std::string study, labelSet;
  splitFolder(m_folder, study, labelSet);
  AuditRecord record;
  record.user = m_user;
  record.action = "lease-break";
  record.study = study;
  record.labelSet = labelSet;
  record.detail = std::string(now.processGone ? "broke the lease of a process that is gone, " : "broke the expired lease of ") + now.user + "@" + now.host + " (pid " + std::to_string(now.pid) +
                  ", token " + now.token + ", acquired " + now.acquiredIso + ", last sign of life " +
                  isoOf(now.lastSignMs) + ", ttl " + std::to_string(now.ttlSeconds) + " s) in " + m_folder;
  if (core::Status s = appendStoreAudit(m_store->root(), record); !s) return s.error();

  // Evidence first, then the stale lease is replaced by ours in one rename: there is no moment without a lease in
  // which a third process could create one while we break.
  auto leasePath = m_store->resolve(m_folder + "/" + kLeaseFile);
  if (!leasePath) return leasePath.error();
  auto staleText = readSmallFile(*leasePath);
  if (!staleText) return staleText.error();
  if (staleText->has_value()) {
    const std::string evidence = m_folder + "/lease-broken-" + std::to_string(ms) + "-" + now.token + ".json";
    if (auto kept = m_store->writeFile(evidence, (*staleText)->data(), (*staleText)->size(), true); !kept)
      return kept.error();
  }
  auto created = tryCreate(true);
  if (!created) return created.error();
  if (auto beat = m_store->resolve(m_folder + "/lease-" + now.token + ".beat"); beat) ::unlink(beat->c_str());
  return *created;
}

core::Status ShareLease::heartbeat() {
  auto lease = readLease();
  if (!lease) return lease.error();
  auto leasePath = m_store->resolve(m_folder + "/" + kLeaseFile);
  if (!leasePath) return leasePath.error();
  if (!lease->has_value() || (*lease)->token != m_token) {
    const bool wasHeld = m_held;
    m_held = false;
    if (!lease->has_value())
      return makeError(ErrorCode::WriteFailed, *leasePath,
                       wasHeld ? "our lease has gone (removed from the share): others may be editing this label set"
                               : "no lease is held");
    const LeaseHolder& other = **lease;
    return makeError(ErrorCode::WriteFailed, *leasePath,
                     "our lease was broken and is now held by " + other.user + "@" + other.host + " since " +
                         other.acquiredIso + ": the label set may be edited elsewhere, and a save becomes a conflict "
                         "revision if it was");
  }
  ++m_beats;
  const std::string text =
      nlohmann::json{{"ms", epochMs(now())}, {"beat", m_beats}, {"pid", static_cast<long long>(::getpid())}}.dump() +
      "\n";
  auto written = m_store->writeFile(m_folder + "/lease-" + m_token + ".beat", text.data(), text.size(), false);
  if (!written) return written.error();
  m_held = true;
  return core::Status::success();
}

core::Status ShareLease::release() {
  auto lease = readLease();
  if (!lease) return lease.error();
  m_held = false;
  if (!lease->has_value() || (*lease)->token != m_token) return core::Status::success();
  auto leasePath = m_store->resolve(m_folder + "/" + kLeaseFile);
  if (!leasePath) return leasePath.error();
  if (::unlink(leasePath->c_str()) != 0 && errno != ENOENT)
    return makeError(ErrorCode::WriteFailed, *leasePath, std::string("cannot release the lease: ") + std::strerror(errno));
  if (auto beat = m_store->resolve(m_folder + "/lease-" + m_token + ".beat"); beat) ::unlink(beat->c_str());
  m_releaseWarning.clear();
  std::string study, labelSet;
  if (splitLabelSetFolder(m_folder, &study, &labelSet))
    m_releaseWarning = appendCatalogueOrWarn(*m_store, catalogueLeaseRecord(study, labelSet, "released", m_user, m_host));
  return core::Status::success();
}

core::Result<std::optional<LeaseHolder>> ShareLease::current() const { return readLease(); }

}  // namespace delineate::io
