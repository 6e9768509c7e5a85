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
#include "io/share/audit_log.h"
#include "io/volume/image_file.h"
#include "io/share/share_lease.h"
#include "io/share/share_revisions.h"
#include "io/share/share_store.h"

namespace delineate::app::cli {
namespace {

using namespace delineate::core;
using namespace delineate::io;

// Positional arguments and --name value options; flags listed in `flags` take no value.
struct Args {
  std::vector<std::string> positional;
  std::map<std::string, std::string> options;
  std::string error;
};

Args parseArgs(const std::vector<std::string>& args, const std::vector<std::string>& valued,
               const std::vector<std::string>& flags) {
  Args out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.rfind("--", 0) != 0) {
      out.positional.push_back(a);
      continue;
    }
    if (std::find(flags.begin(), flags.end(), a) != flags.end()) {
      out.options[a] = "1";
    } else if (std::find(valued.begin(), valued.end(), a) != valued.end()) {
      if (i + 1 >= args.size()) {
        out.error = a + " needs a value";
        return out;
      }
      out.options[a] = args[++i];
    } else {
      out.error = "unknown option " + a;
      return out;
    }
  }
  return out;
}

std::optional<int> parseRevision(const std::string& s) {
  try {
    std::size_t used = 0;
    const int v = std::stoi(s, &used);
    if (used == s.size() && v >= 1 && v <= 999999) return v;
  } catch (...) {
  }
  return std::nullopt;
}

void audit(const ShareStore& store, const std::string& action, const std::string& study, const std::string& labelSet,
           int revision, const std::string& detail) {
  auto log = AuditLog::open(store.root() + "/audit");
  AuditRecord r;
  r.action = action;
  r.study = study;
  r.labelSet = labelSet;
  r.revision = revision;
  r.detail = detail;
  core::Status s = log ? log->append(r) : core::Status(log.error());
  // The revision is saved either way; a missing audit record is reported, not turned into a failed save.
  if (!s) std::fprintf(stderr, "warning: the audit record was not written: %s\n", s.error().describe().c_str());
}

nlohmann::json revisionJson(const RevisionInfo& r) {
  nlohmann::json j{{"revision", r.number}, {"content", r.content},   {"sha256", r.sha256},
                   {"bytes", r.bytes},     {"author", r.author},     {"time", r.time},
                   {"base", r.base},       {"message", r.message},   {"conflict", r.conflict},
                   {"latestAtSave", r.latestAtSave}};
  const auto extra = nlohmann::json::parse(r.extraJson, nullptr, false);
  if (extra.is_object() && !extra.empty()) j["extra"] = extra;
  return j;
}

void printRevisionLine(const RevisionInfo& r) {
  std::printf("r%-6d %s  %-12s base %-6d %10llu B  %s%s%s\n", r.number, r.time.c_str(), r.author.c_str(), r.base,
              static_cast<unsigned long long>(r.bytes), r.sha256.substr(0, 12).c_str(),
              r.conflict ? ("  CONFLICT (r" + std::to_string(r.latestAtSave) + " was newer)").c_str() : "",
              r.message.empty() ? "" : ("  \"" + r.message + "\"").c_str());
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

// ROOT STUDY LABELSET at the start of the positional arguments.
int openLabelSet(const Args& a, LabelSetArgs& out) {
  auto store = ShareStore::open(a.positional[0]);
  if (!store) return fileError(store.error());
  out.store.emplace(std::move(store).value());
  auto set = LabelSetRevisions::open(*out.store, a.positional[1], a.positional[2]);
  if (!set) return fileError(set.error());
  out.set.emplace(std::move(set).value());
  return 0;
}

// ROOT STUDY LABELSET REVISION ... with exactly `count` positional arguments; 0 when all are fine.
int openLabelSetRevision(const Args& a, std::size_t count, const char* usage, LabelSetArgs& ls, int& revision) {
  if (a.positional.size() != count) return usageError(usage);
  if (int rc = openLabelSet(a, ls)) return rc;
  const auto rev = parseRevision(a.positional[3]);
  if (!rev) return usageError("REVISION is a number from 1");
  revision = *rev;
  return 0;
}

int shareInit(const Args& a) {
  if (a.positional.size() != 1) return usageError("share init ROOT");
  auto store = ShareStore::initialize(a.positional[0]);
  if (!store) return fileError(store.error());
  std::printf("share store %s ready (id %s)\n", store->root().c_str(), store->id().c_str());
  return 0;
}

int shareSave(const Args& a) {
  if (a.positional.size() != 4) return usageError("share save ROOT STUDY LABELSET LABELFILE [--base N|latest] ...");
  LabelSetArgs ls;
  if (int rc = openLabelSet(a, ls)) return rc;
  auto labels = readLabelFile(a.positional[3]);
  if (!labels) return fileError(labels.error());
  auto list = ls.set->list();
  if (!list) return fileError(list.error());
  int base = list->latest();
  if (auto it = a.options.find("--base"); it != a.options.end() && it->second != "latest") {
    if (it->second == "0") base = 0;
    else if (auto b = parseRevision(it->second)) base = *b;
    else return usageError("--base takes a revision number, 0 or 'latest'");
  }
  // Tell, do not block: a live lease means someone has the label set open; the save is a new revision regardless.
  if (auto lease = ShareLease::prepare(*ls.store, ls.set->folder(), {}); lease) {
    if (auto holder = lease->current(); holder && holder->has_value() && !(*holder)->expired)
      std::fprintf(stderr, "note: %s@%s is editing this label set (lease since %s)\n", (*holder)->user.c_str(),
                   (*holder)->host.c_str(), (*holder)->acquiredIso.c_str());
  }
  const std::string author = a.options.count("--author") ? a.options.at("--author") : processUserName();
  const std::string message = a.options.count("--message") ? a.options.at("--message") : std::string();
  auto saved = ls.set->saveLabels(*labels, SaveRequest{author, base, message, {}});
  if (!saved) return fileError(saved.error());
  audit(*ls.store, "save", ls.set->study(), ls.set->name(), saved->number,
        "from " + a.positional[3] + (saved->conflict ? " (conflict)" : ""));
  if (a.options.count("--json")) std::printf("%s\n", revisionJson(*saved).dump(2).c_str());
  else std::printf("saved revision %d of %s/%s (sha256 %s)\n", saved->number, ls.set->study().c_str(),
                   ls.set->name().c_str(), saved->sha256.c_str());
  reportConflict(*saved);
  return 0;
}

int printList(const RevisionFolder& folder, bool json) {
  auto list = folder.list();
  if (!list) return fileError(list.error());
  if (json) {
    nlohmann::json j{{"folder", folder.folder()}, {"revisions", nlohmann::json::array()},
                     {"incomplete", list->incomplete}};
    for (const auto& r : list->revisions) j["revisions"].push_back(revisionJson(r));
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  std::printf("%s: %zu revision(s)\n", folder.folder().c_str(), list->revisions.size());
  for (const auto& r : list->revisions) printRevisionLine(r);
  for (int n : list->incomplete) std::printf("r%-6d incomplete (its save was interrupted; never loaded)\n", n);
  return 0;
}

int shareShow(const Args& a) {
  LabelSetArgs ls;
  int revision = 0;
  if (int rc = openLabelSetRevision(a, 4, "share show ROOT STUDY LABELSET REVISION", ls, revision)) return rc;
  auto list = ls.set->list();
  if (!list) return fileError(list.error());
  auto labels = ls.set->loadLabels(revision);
  if (!labels) return fileError(labels.error());
  const RevisionInfo* info = list->find(revision);
  const auto counts = countLabels(*labels);
  const auto& g = labels->geometry();
  const double voxelMl = g.spacingMm()[0] * g.spacingMm()[1] * g.spacingMm()[2] / 1000.0;
  if (a.options.count("--json")) {
    nlohmann::json j = info ? revisionJson(*info) : nlohmann::json::object();
    j["labels"] = nlohmann::json::array();
    for (const auto& [l, n] : counts)
      if (l) j["labels"].push_back({{"label", l}, {"voxels", n}, {"volumeMl", double(n) * voxelMl}});
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  if (info) printRevisionLine(*info);
  std::printf("grid %lldx%lldx%lld, hash verified\nlabel     voxels   volume (mL)\n",
              static_cast<long long>(g.dimensions()[0]), static_cast<long long>(g.dimensions()[1]),
              static_cast<long long>(g.dimensions()[2]));
  for (const auto& [l, n] : counts)
    if (l) std::printf("%5u %10llu %13.3f\n", l, static_cast<unsigned long long>(n), double(n) * voxelMl);
  return 0;
}

int shareDiff(const Args& a) {
  if (a.positional.size() != 5) return usageError("share diff ROOT STUDY LABELSET REV_A REV_B");
  LabelSetArgs ls;
  if (int rc = openLabelSet(a, ls)) return rc;
  const auto ra = parseRevision(a.positional[3]), rb = parseRevision(a.positional[4]);
  if (!ra || !rb) return usageError("revisions are numbers from 1");
  auto la = ls.set->loadLabels(*ra);
  if (!la) return fileError(la.error());
  auto lb = ls.set->loadLabels(*rb);
  if (!lb) return fileError(lb.error());
  if (la->geometry().dimensions() != lb->geometry().dimensions() || !la->geometry().isCloseTo(lb->geometry()))
    return fileError(makeError(ErrorCode::GeometryMismatch, ls.set->folder(),
                               "revisions " + a.positional[3] + " and " + a.positional[4] + " are on different grids"));
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
  if (a.options.count("--json")) {
    nlohmann::json j{{"from", *ra}, {"to", *rb}, {"changedVoxels", changed}, {"labels", nlohmann::json::array()}};
    for (const auto& [l, c] : changes)
      j["labels"].push_back({{"label", l}, {"gained", c.first}, {"lost", c.second}});
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  std::printf("r%d -> r%d: %llu voxel(s) changed\nlabel     gained       lost\n", *ra, *rb,
              static_cast<unsigned long long>(changed));
  for (const auto& [l, c] : changes)
    std::printf("%5u %10llu %10llu\n", l, static_cast<unsigned long long>(c.first),
                static_cast<unsigned long long>(c.second));
  return 0;
}

int shareGet(const Args& a) {
  LabelSetArgs ls;
  int revision = 0;
  if (int rc = openLabelSetRevision(a, 5, "share get ROOT STUDY LABELSET REVISION OUTPUT", ls, revision)) return rc;
  const std::string& out = a.positional[4];
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

int shareRestore(const Args& a) {
  LabelSetArgs ls;
  int revision = 0;
  if (int rc = openLabelSetRevision(a, 4, "share restore ROOT STUDY LABELSET REVISION [--message M]", ls, revision))
    return rc;
  auto list = ls.set->list();
  if (!list) return fileError(list.error());
  auto bytes = ls.set->load(revision);  // verified; restored byte for byte
  if (!bytes) return fileError(bytes.error());
  const std::string message =
      a.options.count("--message") ? a.options.at("--message") : "restore of r" + std::to_string(revision);
  const std::string author = a.options.count("--author") ? a.options.at("--author") : processUserName();
  auto saved = ls.set->save(bytes->data(), bytes->size(), SaveRequest{author, list->latest(), message, {}});
  if (!saved) return fileError(saved.error());
  audit(*ls.store, "restore", ls.set->study(), ls.set->name(), saved->number, "restored r" + std::to_string(revision));
  std::printf("restored revision %d as revision %d\n", revision, saved->number);
  reportConflict(*saved);
  return 0;
}

int shareLease(const Args& a) {
  if (a.positional.size() != 3) return usageError("share lease ROOT STUDY LABELSET");
  LabelSetArgs ls;
  if (int rc = openLabelSet(a, ls)) return rc;
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

int checkpointCommand(const std::string& sub, const Args& a) {
  if (a.positional.size() < 2) return usageError("checkpoint " + sub + " ROOT MODEL ...");
  auto store = ShareStore::open(a.positional[0]);
  if (!store) return fileError(store.error());
  auto ckpts = ModelCheckpoints::open(*store, a.positional[1]);
  if (!ckpts) return fileError(ckpts.error());
  if (sub == "list") return printList(*ckpts, a.options.count("--json") > 0);
  if (sub == "put") {
    if (a.positional.size() != 3) return usageError("checkpoint put ROOT MODEL FILE [--sidecar JSON] [--message M]");
    std::string sidecar;
    if (auto it = a.options.find("--sidecar"); it != a.options.end()) {
      std::ifstream in(it->second);
      if (!in) return fileError(makeError(ErrorCode::NotFound, it->second, "cannot open the sidecar"));
      std::stringstream text;
      text << in.rdbuf();
      sidecar = text.str();
      const auto j = nlohmann::json::parse(sidecar, nullptr, false);
      if (j.is_discarded() || !j.is_object())
        return fileError(makeError(ErrorCode::ParseError, it->second, "the sidecar must be a JSON object"));
      sidecar = j.dump();
    }
    const std::string& file = a.positional[2];
    const auto dot = file.find_last_of('.');
    const std::string suffix =
        dot != std::string::npos && file.find('/', dot) == std::string::npos ? file.substr(dot) : "";
    auto list = ckpts->list();
    if (!list) return fileError(list.error());
    const std::string author = a.options.count("--author") ? a.options.at("--author") : processUserName();
    const std::string message = a.options.count("--message") ? a.options.at("--message") : std::string();
    auto saved = ckpts->saveFile(file, SaveRequest{author, list->latest(), message, sidecar}, suffix);
    if (!saved) return fileError(saved.error());
    audit(*store, "training", "", a.positional[1], saved->number, "checkpoint " + saved->content + " from " + file);
    std::printf("stored checkpoint revision %d of %s (%llu bytes, sha256 %s)\n", saved->number, a.positional[1].c_str(),
                static_cast<unsigned long long>(saved->bytes), saved->sha256.c_str());
    return 0;
  }
  if (sub == "get") {
    if (a.positional.size() != 4) return usageError("checkpoint get ROOT MODEL REVISION OUTPUT");
    const auto rev = parseRevision(a.positional[2]);
    if (!rev) return usageError("REVISION is a number from 1");
    auto copied = ckpts->copyOut(*rev, a.positional[3]);
    if (!copied) return fileError(copied.error());
    std::printf("wrote checkpoint revision %d (%llu bytes, hash verified) to %s\n", *rev,
                static_cast<unsigned long long>(copied->bytes), a.positional[3].c_str());
    return 0;
  }
  return usageError("unknown checkpoint command '" + sub + "'");
}

}  // namespace

int runShare(const std::vector<std::string>& args) {
  if (args.empty()) return usageError("share needs a subcommand: init, save, list, show, diff, get, restore, lease, report, reports");
  const std::string sub = args[0];
  if (sub == "report") return runShareReport({args.begin() + 1, args.end()});
  if (sub == "reports") return runShareReports({args.begin() + 1, args.end()});
  const Args a = parseArgs({args.begin() + 1, args.end()}, {"--base", "--message", "--author"}, {"--json"});
  if (!a.error.empty()) return usageError(a.error);
  if (sub == "init") return shareInit(a);
  if (sub != "save" && sub != "list" && sub != "show" && sub != "diff" && sub != "get" && sub != "restore" &&
      sub != "lease")
    return usageError("unknown share command '" + sub + "'");
  if (a.positional.size() < 3) return usageError("share " + sub + " ROOT STUDY LABELSET ...");
  if (sub == "save") return shareSave(a);
  if (sub == "show") return shareShow(a);
  if (sub == "diff") return shareDiff(a);
  if (sub == "get") return shareGet(a);
  if (sub == "restore") return shareRestore(a);
  if (sub == "lease") return shareLease(a);
  if (a.positional.size() != 3) return usageError("share list ROOT STUDY LABELSET [--json]");
  LabelSetArgs ls;
  if (int rc = openLabelSet(a, ls)) return rc;
  return printList(*ls.set, a.options.count("--json") > 0);
}

int runCheckpoint(const std::vector<std::string>& args) {
  if (args.empty()) return usageError("checkpoint needs a subcommand: put, get, list");
  const Args a = parseArgs({args.begin() + 1, args.end()}, {"--sidecar", "--message", "--author"}, {"--json"});
  if (!a.error.empty()) return usageError(a.error);
  return checkpointCommand(args[0], a);
}

int runAudit(const std::vector<std::string>& args) {
  if (args.size() < 2 || args[0] != "verify") return usageError("audit verify LOGFILE|STORE_ROOT ...");
  int rc = 0;
  for (std::size_t i = 1; i < args.size(); ++i) {
    std::vector<std::string> files;
    if (auto store = ShareStore::open(args[i]); store) {
      std::error_code ec;
      for (const auto& e : std::filesystem::directory_iterator(store->root() + "/audit", ec))
        if (e.path().extension() == ".jsonl") files.push_back(e.path().string());
      std::sort(files.begin(), files.end());
      if (files.empty()) std::printf("%s: no audit logs yet\n", args[i].c_str());
    } else {
      files.push_back(args[i]);
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

}  // namespace delineate::app::cli
