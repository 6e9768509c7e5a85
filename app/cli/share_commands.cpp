// share / checkpoint / audit: the share store from the command line (batch jobs, Slurm arrays, administrators).
// Every write goes through io/ (verified writes, new revisions only, conflicts marked) and is written to the audit
// log of this host.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "core/file_source.h"
#include "core/statistics.h"
#include "inference/checkpoint_engine.h"
#include "io/base/regular_file.h"
#include "io/labels/label_table_io.h"
#include "io/share/audit_log.h"
#include "io/volume/image_file.h"
#include "io/share/share_lease.h"
#include "io/share/share_reviews.h"
#include "io/share/share_revisions.h"
#include "io/share/share_store.h"
#include "io/share/share_trust.h"
#include "io/studies/study_store.h"

namespace delineate::app::cli {

void audit(const io::ShareStore& store, const std::string& action, const std::string& study, const std::string& labelSet,
           int revision, const std::string& detail) {
  io::AuditRecord r;
  r.action = action;
  r.study = study;
  r.labelSet = labelSet;
  r.revision = revision;
  r.detail = detail;
  // The change is made either way; a missing audit record is reported, not turned into a failed command.
  if (core::Status s = io::appendStoreAudit(store.root(), r); !s)
    std::fprintf(stderr, "warning: the audit record was not written: %s\n", s.error().describe().c_str());
}
namespace {

using namespace delineate::core;
using namespace delineate::io;


nlohmann::json revisionJson(const RevisionInfo& r) {
  nlohmann::json j{{"revision", r.number}, {"content", r.content},   {"sha256", r.sha256},
                   {"bytes", r.bytes},     {"author", r.author},     {"time", r.time},
                   {"base", r.base},       {"message", r.message},   {"conflict", r.conflict},
                   {"latestAtSave", r.latestAtSave}, {"trust", recordTrustJson(r.trust)}};
  const auto extra = nlohmann::json::parse(r.extraJson, nullptr, false);
  if (extra.is_object() && !extra.empty()) j["extra"] = extra;
  return j;
}

// A record's signature on its own line: on a signed share always, on an unsigned one only for a signed record.
void printTrustLine(const io::RecordTrust& t, bool signedStore, const char* indent = "        ") {
  if (t.state == io::TrustState::Unsigned && !signedStore) return;
  const bool good = t.state == io::TrustState::Signed;
  std::printf("%s%s%s\n", indent, good ? "" : "NOT TRUSTED: ", io::describeTrust(t).c_str());
}

void printRevisionLine(const RevisionInfo& r, bool signedStore) {
  std::printf("r%-6d %s  %-12s base %-6d %10llu B  %s%s%s\n", r.number, r.time.c_str(), r.author.c_str(), r.base,
              static_cast<unsigned long long>(r.bytes), r.sha256.substr(0, 12).c_str(),
              r.conflict ? ("  CONFLICT (r" + std::to_string(r.latestAtSave) + " was newer)").c_str() : "",
              r.message.empty() ? "" : ("  \"" + r.message + "\"").c_str());
  printTrustLine(r.trust, signedStore);
}

void reportConflict(const RevisionInfo& r) {
  if (!r.conflict) return;
  std::fprintf(stderr,
               "warning: saved as revision %d, marked as a CONFLICT: it was based on r%d but r%d had been saved "
               "meanwhile. Both are kept; compare them with 'delineate-cli share diff ... %d %d'.\n",
               r.number, r.base, r.latestAtSave, r.latestAtSave, r.number);
}

std::map<Label, std::uint64_t> countLabels(const LabelMap& m) {
  std::vector<std::uint64_t> counts(65536, 0);
  for (std::size_t i = 0; i < m.size(); ++i) ++counts[m[i]];
  std::map<Label, std::uint64_t> out;
  for (std::size_t l = 0; l < counts.size(); ++l)
    if (counts[l]) out[static_cast<Label>(l)] = counts[l];
  return out;
}

struct LabelSetArgs {
  std::optional<ShareStore> store;
  std::optional<LabelSetRevisions> set;
};

int openLabelSet(const LabelSetPath& path, LabelSetArgs& out) {
  auto store = ShareStore::open(path.root);
  if (!store) return fileError(store.error());
  out.store.emplace(std::move(store).value());
  auto set = LabelSetRevisions::open(*out.store, path.study, path.labelSet);
  if (!set) return fileError(set.error());
  out.set.emplace(std::move(set).value());
  return 0;
}

// `reviews`: the label set's reviewed revisions (label sets only; nullptr for checkpoints).
int printList(const RevisionFolder& folder, bool json, const std::vector<io::RevisionReview>* reviews = nullptr) {
  auto list = folder.list();
  if (!list) return fileError(list.error());
  auto reviewOf = [reviews](int number) -> const io::RevisionReview* {
    if (reviews)
      for (const auto& r : *reviews)
        if (r.revision == number) return &r;
    return nullptr;
  };
  if (json) {
    nlohmann::json j{{"folder", folder.folder()}, {"revisions", nlohmann::json::array()},
                     {"incomplete", list->incomplete}, {"damaged", nlohmann::json::array()},
                     {"leftovers", list->leftovers}};
    for (const auto& r : list->revisions) {
      j["revisions"].push_back(revisionJson(r));
      if (!reviews) continue;
      const io::RevisionReview* rv = reviewOf(r.number);
      nlohmann::json state{{"state", rv ? io::reviewStateName(rv->state) : "none"}};
      if (rv && rv->last()) state.update({{"by", rv->last()->user}, {"time", rv->last()->time}, {"comment", rv->last()->comment}});
      if (rv) state["notCounted"] = rv->notCounted();
      j["revisions"].back()["review"] = state;
    }
    for (const auto& d : list->damaged) j["damaged"].push_back({{"revision", d.number}, {"reason", d.reason}});
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  const bool signedStore = io::storeIsSigned(folder.store());
  std::printf("%s: %zu revision(s)\n", folder.folder().c_str(), list->revisions.size());
  for (const auto& r : list->revisions) {
    printRevisionLine(r, signedStore);
    const io::RevisionReview* rv = reviewOf(r.number);
    if (rv && rv->last())
      std::printf("        review: %s by %s, %s%s\n", io::reviewStateName(rv->state), rv->last()->user.c_str(),
                  rv->last()->time.c_str(), rv->last()->comment.empty() ? "" : (": \"" + rv->last()->comment + "\"").c_str());
    if (rv && rv->notCounted())
      std::printf("        review: %zu step(s) that do not count (see 'review show')\n", rv->notCounted());
  }
  for (int n : list->incomplete) std::printf("r%-6d incomplete (its save was interrupted; never loaded)\n", n);
  for (const auto& d : list->damaged) std::printf("r%-6d damaged, skipped: %s\n", d.number, d.reason.c_str());
  for (const auto& f : list->leftovers) std::printf("leftover %s (an interrupted write; not a revision)\n", f.c_str());
  return 0;
}

}  // namespace

int runShareInit(const ShareInitOptions& o) {
  auto store = ShareStore::initialize(o.root);
  if (!store) return fileError(store.error());
  std::printf("share store %s ready (id %s)\n", store->root().c_str(), store->id().c_str());
  return 0;
}

int runShareSave(const ShareSaveOptions& o) {
  LabelSetArgs ls;
  if (int rc = openLabelSet(o.set, ls)) return rc;
  auto labels = readLabelFile(o.labelFile);
  if (!labels) return fileError(labels.error());
  auto list = ls.set->list();
  if (!list) return fileError(list.error());
  const int base = o.base ? *o.base : list->latest();
  // Tell, do not block: a live lease means someone has the label set open; the save is a new revision regardless.
  if (auto lease = ShareLease::prepare(*ls.store, ls.set->folder(), {}); lease) {
    if (auto holder = lease->current(); holder && holder->has_value() && !(*holder)->expired)
      std::fprintf(stderr, "note: %s@%s is editing this label set (lease since %s)\n", (*holder)->user.c_str(),
                   (*holder)->host.c_str(), (*holder)->acquiredIso.c_str());
  }
  const std::string author = o.author.empty() ? authorName() : o.author;
  // Bound to the study's image: the named series, or the one on the labels' grid.
  std::vector<std::string> ambiguous;
  auto image = io::seriesForLabels(*ls.store, ls.set->study(), labels->geometry(), o.series, &ambiguous);
  if (!image) return fileError(image.error());
  if (!*image && ambiguous.size() > 1)
    std::fprintf(stderr, "note: not bound to an image: %zu series of %s share the labels' grid; name one with --series\n",
                 ambiguous.size(), ls.set->study().c_str());
  std::string extra = *image ? io::withLabelBinding({}, **image) : std::string();
  // The label table travels with every revision, as the window saves and reads it ("labelTable", a Slicer CSV colour
  // table): the one beside the label file, else the one the base revision carried (issue 41).
  std::string table;
  auto beside = io::readLabelTableBeside(o.labelFile);
  if (!beside) std::fprintf(stderr, "warning: label table not read: %s\n", beside.error().describe().c_str());
  else if (*beside)
    if (auto csv = io::writeLabelTableString((*beside)->table, io::LabelTableFormat::SlicerCsv)) table = *csv;
  if (const RevisionInfo* previous = list->find(base); table.empty() && previous) {
    const auto j = nlohmann::json::parse(previous->extraJson, nullptr, false);
    if (j.is_object() && j.contains("labelTable") && j["labelTable"].is_string()) table = j["labelTable"].get<std::string>();
  }
  if (!table.empty()) {
    auto j = extra.empty() ? nlohmann::json::object() : nlohmann::json::parse(extra, nullptr, false);
    if (j.is_object()) {
      j["labelTable"] = table;
      extra = j.dump();
    }
  }
  auto saved = ls.set->saveLabels(*labels, SaveRequest{author, base, o.message, extra});
  if (!saved) return fileError(saved.error());
  warnSignedAuthor(o.author, saved->author);
  if (!saved->catalogueWarning.empty()) std::fprintf(stderr, "warning: %s\n", saved->catalogueWarning.c_str());
  audit(*ls.store, "save", ls.set->study(), ls.set->name(), saved->number,
        "from " + o.labelFile + (saved->conflict ? " (conflict)" : ""));
  if (o.json) std::printf("%s\n", revisionJson(*saved).dump(2).c_str());
  else std::printf("saved revision %d of %s/%s (sha256 %s)\n", saved->number, ls.set->study().c_str(),
                   ls.set->name().c_str(), saved->sha256.c_str());
  reportConflict(*saved);
  return 0;
}

int runShareList(const ShareListOptions& o) {
  LabelSetArgs ls;
  if (int rc = openLabelSet(o.set, ls)) return rc;
  // A review record that cannot be read is said and the revisions are listed all the same.
  auto reviews = io::LabelSetReviews(*ls.set).all();
  if (!reviews) std::fprintf(stderr, "warning: review state not shown: %s\n", reviews.error().describe().c_str());
  return printList(*ls.set, o.json, reviews ? &*reviews : nullptr);
}

int runShareShow(const ShareShowOptions& o) {
  LabelSetArgs ls;
  if (int rc = openLabelSet(o.set, ls)) return rc;
  const int revision = o.revision;
  auto list = ls.set->list();
  if (!list) return fileError(list.error());
  auto labels = ls.set->loadLabels(revision);
  if (!labels) return fileError(labels.error());
  const RevisionInfo* info = list->find(revision);
  const auto counts = countLabels(*labels);
  const auto& g = labels->geometry();
  const double voxelMl = g.spacingMm()[0] * g.spacingMm()[1] * g.spacingMm()[2] / 1000.0;
  if (o.json) {
    nlohmann::json j = info ? revisionJson(*info) : nlohmann::json::object();
    j["labels"] = nlohmann::json::array();
    for (const auto& [l, n] : counts)
      if (l) j["labels"].push_back({{"label", l}, {"voxels", n}, {"volumeMl", double(n) * voxelMl}});
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  if (info) printRevisionLine(*info, io::storeIsSigned(*ls.store));
  std::printf("grid %lldx%lldx%lld, hash verified\nlabel     voxels        volume\n",
              static_cast<long long>(g.dimensions()[0]), static_cast<long long>(g.dimensions()[1]),
              static_cast<long long>(g.dimensions()[2]));
  // As delineate-cli info writes volumes: the unit fits the size (mL, or mm3 below 1 mL), three significant digits,
  // so a mouse structure does not read "0.000"; --json keeps mL at full precision.
  for (const auto& [l, n] : counts) {
    if (!l) continue;
    const core::VolumeText vt = core::volumeText(double(n) * voxelMl * 1000.0);
    std::printf("%5u %10llu %9.*f %s\n", l, static_cast<unsigned long long>(n), vt.decimals, vt.value,
                vt.millilitres ? "mL" : "mm3");
  }
  return 0;
}

int runShareDiff(const ShareDiffOptions& o) {
  LabelSetArgs ls;
  if (int rc = openLabelSet(o.set, ls)) return rc;
  const int ra = o.revisionA, rb = o.revisionB;
  auto la = ls.set->loadLabels(ra);
  if (!la) return fileError(la.error());
  auto lb = ls.set->loadLabels(rb);
  if (!lb) return fileError(lb.error());
  if (la->geometry().dimensions() != lb->geometry().dimensions() || !la->geometry().isCloseTo(lb->geometry()))
    return fileError(makeError(ErrorCode::GeometryMismatch, ls.set->folder(),
                               "revisions " + std::to_string(ra) + " and " + std::to_string(rb) +
                                   " are on different grids"));
  // Per label: voxels that became it and voxels that stopped being it.
  std::map<Label, std::pair<std::uint64_t, std::uint64_t>> changes;  // label -> (gained, lost)
  std::uint64_t changed = 0;
  for (std::size_t i = 0; i < la->size(); ++i) {
    const Label x = (*la)[i], y = (*lb)[i];
    if (x == y) continue;
    ++changed;
    ++changes[y].first;
    ++changes[x].second;
  }
  if (o.json) {
    nlohmann::json j{{"from", ra}, {"to", rb}, {"changedVoxels", changed}, {"labels", nlohmann::json::array()}};
    for (const auto& [l, c] : changes)
      j["labels"].push_back({{"label", l}, {"gained", c.first}, {"lost", c.second}});
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  std::printf("r%d -> r%d: %llu voxel(s) changed\nlabel     gained       lost\n", ra, rb,
              static_cast<unsigned long long>(changed));
  for (const auto& [l, c] : changes)
    std::printf("%5u %10llu %10llu\n", l, static_cast<unsigned long long>(c.first),
                static_cast<unsigned long long>(c.second));
  return 0;
}

int runShareGet(const ShareGetOptions& o) {
  LabelSetArgs ls;
  if (int rc = openLabelSet(o.set, ls)) return rc;
  const int revision = o.revision;
  const std::string& out = o.output;
  if (out.size() > 7 && out.compare(out.size() - 7, 7, ".nii.gz") == 0) {
    auto copied = ls.set->copyOut(revision, out);  // the revision's own bytes, verified
    if (!copied) return fileError(copied.error());
  } else {
    auto labels = ls.set->loadLabels(revision);
    if (!labels) return fileError(labels.error());
    if (Status s = writeLabelFile(out, *labels); !s) return fileError(s.error());
  }
  audit(*ls.store, "export", ls.set->study(), ls.set->name(), revision, "to " + out);
  std::printf("wrote revision %d to %s\n", revision, out.c_str());
  return 0;
}

int runShareRestore(const ShareRestoreOptions& o) {
  LabelSetArgs ls;
  if (int rc = openLabelSet(o.set, ls)) return rc;
  const int revision = o.revision;
  auto list = ls.set->list();
  if (!list) return fileError(list.error());
  auto bytes = ls.set->load(revision);  // verified; restored byte for byte
  if (!bytes) return fileError(bytes.error());
  const std::string message = o.message.empty() ? "restore of r" + std::to_string(revision) : o.message;
  const std::string author = o.author.empty() ? authorName() : o.author;
  // The restored revision keeps what the old one carried (its bound image, its label table).
  const RevisionInfo* old = list->find(revision);
  auto saved = ls.set->save(bytes->data(), bytes->size(),
                            SaveRequest{author, list->latest(), message, old ? old->extraJson : std::string()});
  if (!saved) return fileError(saved.error());
  if (!saved->catalogueWarning.empty()) std::fprintf(stderr, "warning: %s\n", saved->catalogueWarning.c_str());
  audit(*ls.store, "restore", ls.set->study(), ls.set->name(), saved->number, "restored r" + std::to_string(revision));
  std::printf("restored revision %d as revision %d\n", revision, saved->number);
  reportConflict(*saved);
  return 0;
}

int runShareLease(const LabelSetPath& o) {
  LabelSetArgs ls;
  if (int rc = openLabelSet(o, ls)) return rc;
  auto lease = ShareLease::prepare(*ls.store, ls.set->folder(), {});
  if (!lease) return fileError(lease.error());
  auto holder = lease->current();
  if (!holder) return fileError(holder.error());
  if (!holder->has_value()) {
    std::printf("no lease: nobody is editing %s\n", ls.set->folder().c_str());
    return 0;
  }
  const LeaseHolder& h = **holder;
  std::printf("%s by %s@%s (pid %lld) since %s, ttl %d s%s\n", h.expired ? "expired lease" : "leased", h.user.c_str(),
              h.host.c_str(), h.pid, h.acquiredIso.c_str(), h.ttlSeconds,
              h.expired ? " (the next editor breaks it, audited)" : "");
  return 0;
}

// ROOT MODEL: the store and its checkpoint folder.
struct CheckpointArgs {
  std::optional<ShareStore> store;
  std::optional<ModelCheckpoints> checkpoints;
};

int openCheckpoints(const std::string& root, const std::string& model, CheckpointArgs& out) {
  auto store = ShareStore::open(root);
  if (!store) return fileError(store.error());
  out.store.emplace(std::move(store).value());
  auto ckpts = ModelCheckpoints::open(*out.store, model);
  if (!ckpts) return fileError(ckpts.error());
  out.checkpoints.emplace(std::move(ckpts).value());
  return 0;
}

int runCheckpointList(const CheckpointListOptions& o) {
  CheckpointArgs c;
  if (int rc = openCheckpoints(o.root, o.model, c)) return rc;
  // A training run publishing to this model holds its lease (delineate-train): said before the list (stderr with
  // --json, so the JSON stays one document).
  if (auto lease = ShareLease::prepare(*c.store, c.checkpoints->folder(), {}); lease)
    if (auto holder = lease->current(); holder && holder->has_value() && !(*holder)->expired)
      std::fprintf(o.json ? stderr : stdout, "being trained by %s@%s (pid %lld) since %s\n", (*holder)->user.c_str(),
                   (*holder)->host.c_str(), static_cast<long long>((*holder)->pid), (*holder)->acquiredIso.c_str());
  return printList(*c.checkpoints, o.json);
}

int runCheckpointPut(const CheckpointPutOptions& o) {
  CheckpointArgs c;
  if (int rc = openCheckpoints(o.root, o.model, c)) return rc;
  std::string sidecar;
  if (!o.sidecar.empty()) {
    auto text = core::readInputFile(o.sidecar);  // a sealed run's sidecar reads as its content
    if (!text) return fileError(text.error());
    sidecar = *text;
    const auto j = nlohmann::json::parse(sidecar, nullptr, false);
    if (j.is_discarded() || !j.is_object())
      return fileError(makeError(ErrorCode::ParseError, o.sidecar, "the sidecar must be a JSON object"));
    sidecar = j.dump();
    // A sidecar that names an architecture is what engines will read the weights by: it must be one they can read.
    if (j.contains("architecture"))
      if (auto model = inference::parseCheckpointModel(sidecar, o.sidecar); !model) return fileError(model.error());
  }
  const std::string& file = o.file;
  // Only checkpoints go on the share as checkpoints: a file our reader takes (torch.save zip with a state_dict
  // pickle, or safetensors) with at least one tensor; anything else is refused naming the file, before it is stored.
  if (core::Status regular = io::checkRegularFile(file, "checkpoint"); !regular) return fileError(regular.error());
  if (core::Status checkpoint = inference::checkCheckpointFile(file); !checkpoint) return fileError(checkpoint.error());
  const auto dot = file.find_last_of('.');
  const std::string suffix =
      dot != std::string::npos && file.find('/', dot) == std::string::npos ? file.substr(dot) : "";
  auto list = c.checkpoints->list();
  if (!list) return fileError(list.error());
  const std::string author = o.author.empty() ? authorName() : o.author;
  auto saved = c.checkpoints->saveFile(file, SaveRequest{author, list->latest(), o.message, sidecar}, suffix);
  if (!saved) return fileError(saved.error());
  warnSignedAuthor(o.author, saved->author);
  audit(*c.store, "training", "", o.model, saved->number, "checkpoint " + saved->content + " from " + file);
  std::printf("stored checkpoint revision %d of %s (%llu bytes, sha256 %s)\n", saved->number, o.model.c_str(),
              static_cast<unsigned long long>(saved->bytes), saved->sha256.c_str());
  return 0;
}

int runCheckpointGet(const CheckpointGetOptions& o) {
  CheckpointArgs c;
  if (int rc = openCheckpoints(o.root, o.model, c)) return rc;
  auto copied = c.checkpoints->copyOut(o.revision, o.output);
  if (!copied) return fileError(copied.error());
  std::printf("wrote checkpoint revision %d (%llu bytes, hash verified) to %s\n", o.revision,
              static_cast<unsigned long long>(copied->bytes), o.output.c_str());
  return 0;
}

int runAuditVerify(const AuditVerifyOptions& o) {
  int rc = 0;
  for (const std::string& target : o.targets) {
    std::vector<std::string> files;
    if (auto store = ShareStore::open(target); store) {
      std::error_code ec;
      for (const auto& e : std::filesystem::directory_iterator(store->root() + "/audit", ec))
        if (e.path().extension() == ".jsonl") files.push_back(e.path().string());
      std::sort(files.begin(), files.end());
      if (files.empty()) std::printf("%s: no audit logs yet\n", target.c_str());
    } else {
      files.push_back(target);
    }
    for (const auto& f : files) {
      auto report = verifyAuditLog(f);
      if (!report) {
        rc = 1;
        std::fprintf(stderr, "error: %s\n", report.error().describe().c_str());
        continue;
      }
      if (report->ok()) {
        std::printf("%s: OK, %zu record(s), chain intact\n", f.c_str(), report->recordsChecked);
      } else {
        rc = 1;
        const auto& p = *report->firstBad;
        std::printf("%s: TAMPERED or damaged at line %d%s: %s (%zu record(s) before it verify)\n", f.c_str(), p.line,
                    p.seq ? (" (seq " + std::to_string(p.seq) + ")").c_str() : "", p.reason.c_str(),
                    report->recordsChecked);
      }
    }
  }
  return rc;
}

int runAuditShow(const AuditShowOptions& o) {
  auto store = ShareStore::open(o.root);
  if (!store) return fileError(store.error());
  if (!o.action.empty() && !io::isAuditAction(o.action))
    return usageError("audit show", "unknown action '" + o.action + "'");
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(store->root() + "/audit", ec))
    if (e.path().extension() == ".jsonl") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  // This user's own record of reads the share would not take (io::appendReadAudit).
  ec.clear();
  for (const auto& e : std::filesystem::directory_iterator(io::localAuditFolder(store->id()), ec))
    if (e.path().extension() == ".jsonl") files.push_back(e.path().string());
  std::vector<io::AuditRecord> records;
  std::vector<std::string> broken;
  for (const auto& f : files) {
    std::vector<io::AuditRecord> mine;
    auto report = io::readAuditLog(f, &mine);
    if (!report) return fileError(report.error());
    if (!report->ok())
      broken.push_back(f + ": TAMPERED or damaged at line " + std::to_string(report->firstBad->line) + ": " +
                       report->firstBad->reason + " (only the records before it are shown)");
    for (auto& r : mine) records.push_back(std::move(r));
  }
  // ISO 8601 UTC times compare as text; --to covers everything its prefix names (a day, an hour, a minute).
  const auto keep = [&](const io::AuditRecord& r) {
    return (o.study.empty() || r.study == o.study) && (o.user.empty() || r.user == o.user) &&
           (o.action.empty() || r.action == o.action) && (o.from.empty() || r.time >= o.from) &&
           (o.to.empty() || r.time.compare(0, o.to.size(), o.to) <= 0);
  };
  records.erase(std::remove_if(records.begin(), records.end(), [&](const auto& r) { return !keep(r); }), records.end());
  std::stable_sort(records.begin(), records.end(), [](const auto& a, const auto& b) {
    return a.time != b.time ? a.time < b.time : a.host != b.host ? a.host < b.host : a.seq < b.seq;
  });
  if (o.json) {
    nlohmann::json j{{"records", nlohmann::json::array()}, {"broken", broken}};
    for (const auto& r : records)
      j["records"].push_back({{"time", r.time}, {"user", r.user}, {"host", r.host}, {"seq", r.seq}, {"action", r.action},
                              {"study", r.study}, {"labelSet", r.labelSet}, {"revision", r.revision}, {"detail", r.detail}});
    std::printf("%s\n", j.dump(2).c_str());
    return broken.empty() ? 0 : 1;
  }
  for (const auto& r : records)
    std::printf("%s  %-10s %-12s %-11s %s%s%s  %s\n", r.time.c_str(), r.user.c_str(), r.host.c_str(), r.action.c_str(),
                r.study.c_str(), r.labelSet.empty() ? "" : (" / " + r.labelSet).c_str(),
                r.revision ? (" r" + std::to_string(r.revision)).c_str() : "", r.detail.c_str());
  std::printf("%zu record(s)\n", records.size());
  for (const auto& b : broken) std::printf("%s\n", b.c_str());
  return broken.empty() ? 0 : 1;
}

}  // namespace delineate::app::cli

namespace delineate::app::cli {
namespace {

nlohmann::json reviewRecordJson(const io::ReviewRecord& r) {
  return {{"revision", r.revision}, {"sequence", r.sequence}, {"action", io::reviewActionName(r.action)},
          {"user", r.user},         {"host", r.host},         {"time", r.time},
          {"comment", r.comment},   {"trust", recordTrustJson(r.trust)}, {"counted", r.counted},
          {"notCounted", r.notCounted}};
}

nlohmann::json reviewJson(const io::RevisionReview& r) {
  nlohmann::json j{{"revision", r.revision}, {"state", io::reviewStateName(r.state)}, {"history", nlohmann::json::array()}};
  for (const auto& h : r.history) j["history"].push_back(reviewRecordJson(h));
  return j;
}

void printReview(const io::RevisionReview& r, bool signedStore) {
  std::printf("r%-6d %s\n", r.revision, io::reviewStateName(r.state));
  for (const auto& h : r.history) {
    std::printf("        %d. %-8s %s on %s, %s%s\n", h.sequence, io::reviewActionName(h.action), h.user.c_str(),
                h.host.c_str(), h.time.c_str(), h.comment.empty() ? "" : (": \"" + h.comment + "\"").c_str());
    printTrustLine(h.trust, signedStore, "           ");
    if (!h.counted && h.trust.counts()) std::printf("           NOT COUNTED: %s\n", h.notCounted.c_str());
  }
}

}  // namespace

int runReview(const ReviewOptions& o) {
  LabelSetArgs ls;
  if (int rc = openLabelSet(o.set, ls)) return rc;
  const auto action = io::reviewActionFromName(o.action);
  if (!action) return usageError("review", "unknown step '" + o.action + "'");
  const io::LabelSetReviews reviews(*ls.set);
  auto recorded = reviews.record(o.revision, *action, o.user, o.comment);
  if (!recorded) return fileError(recorded.error());
  warnSignedAuthor(o.user, recorded->user);
  if (!recorded->catalogueWarning.empty()) std::fprintf(stderr, "warning: %s\n", recorded->catalogueWarning.c_str());
  audit(*ls.store, "review", ls.set->study(), ls.set->name(), o.revision,
        std::string(io::reviewActionName(*action)) + " by " + recorded->user +
            (o.comment.empty() ? std::string() : ": " + o.comment));
  if (o.json) {
    std::printf("%s\n", reviewRecordJson(*recorded).dump(2).c_str());
    return 0;
  }
  std::printf("r%d of %s/%s: %s by %s\n", o.revision, ls.set->study().c_str(), ls.set->name().c_str(),
              io::reviewActionName(*action), recorded->user.c_str());
  return 0;
}

int runReviewShow(const ReviewOptions& o) {
  LabelSetArgs ls;
  if (int rc = openLabelSet(o.set, ls)) return rc;
  const io::LabelSetReviews reviews(*ls.set);
  std::vector<io::RevisionReview> shown;
  if (o.revision > 0) {
    auto list = ls.set->list();
    if (!list) return fileError(list.error());
    if (!list->find(o.revision))
      return fileError(core::makeError(core::ErrorCode::NotFound, ls.set->folder(),
                                       "there is no revision " + std::to_string(o.revision)));
    auto one = reviews.review(o.revision);
    if (!one) return fileError(one.error());
    shown.push_back(std::move(one).value());
  } else {
    auto all = reviews.all();
    if (!all) return fileError(all.error());
    shown = std::move(all).value();
  }
  if (o.json) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& r : shown) j.push_back(reviewJson(r));
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  if (shown.empty()) std::printf("no reviews\n");
  const bool signedStore = io::storeIsSigned(*ls.store);
  for (const auto& r : shown) printReview(r, signedStore);
  return 0;
}

}  // namespace delineate::app::cli
