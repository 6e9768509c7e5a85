// study import | list | search | show | get | reindex: studies on the share (io/studies/).
#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "io/share/share_lease.h"
#include "io/share/share_reviews.h"
#include "io/share/share_revisions.h"
#include "io/share/share_store.h"
#include "io/studies/study_import.h"
#include "io/studies/study_index.h"
#include "io/studies/study_store.h"

namespace delineate::app::cli {
namespace {

using nlohmann::json;

json rowJson(const io::StudyRow& r) {
  return json{{"study", r.study},
              {"patientId", r.patientId},
              {"patientName", r.patientName},
              {"studyDate", r.studyDate},
              {"modalities", r.modalities},
              {"description", r.description},
              {"series", r.seriesCount},
              {"labelSets", r.labelSets},
              {"latestLabelSet", r.latestLabelSet},
              {"latestRevision", r.latestRevision},
              {"latestAuthor", r.latestAuthor},
              {"latestTime", r.latestTime},
              {"review", r.review},
              {"approved", r.approved},
              {"editing", r.editing},
              {"labelStatus", r.labelStatus()}};
}

std::string dateText(const std::string& d) {
  return d.size() == 8 ? d.substr(0, 4) + "-" + d.substr(4, 2) + "-" + d.substr(6, 2) : d;
}

std::string clip(const std::string& s, std::size_t n) { return s.size() <= n ? s : s.substr(0, n - 1) + "~"; }

void printRows(const std::vector<io::StudyRow>& rows) {
  std::printf("%-28s %-16s %-20s %-10s %-8s %-24s %6s  %-22s %-10s %s\n", "study", "patient ID", "patient name", "date",
              "modality", "description", "series", "latest labels", "review", "editing");
  for (const auto& r : rows) {
    const std::string latest = r.latestRevision ? r.latestLabelSet + " r" + std::to_string(r.latestRevision) : "-";
    std::printf("%-28s %-16s %-20s %-10s %-8s %-24s %6d  %-22s %-10s %s\n", clip(r.study, 28).c_str(),
                clip(r.patientId, 16).c_str(), clip(r.patientName, 20).c_str(), dateText(r.studyDate).c_str(),
                clip(r.modalities, 8).c_str(), clip(r.description, 24).c_str(), r.seriesCount, clip(latest, 22).c_str(),
                r.latestRevision ? r.review.c_str() : "-", r.editing.empty() ? "-" : r.editing.c_str());
  }
}

// Opens the store and its local index, catches up with the catalogue, says what is wrong with it on stderr.
int openIndex(const std::string& root, std::optional<io::ShareStore>& store, std::optional<io::StudyIndex>& index,
              io::CatalogueRefresh* refreshed = nullptr) {
  auto s = io::ShareStore::open(root);
  if (!s) return fileError(s.error());
  store.emplace(std::move(*s));
  auto i = io::StudyIndex::open(*store);
  if (!i) return fileError(i.error());
  index.emplace(std::move(*i));
  if (!index->setAside().empty())
    std::fprintf(stderr, "note: the local study index was damaged; it was moved to %s and is built again from the share\n",
                 index->setAside().c_str());
  auto r = index->refresh();
  if (!r) return fileError(r.error());
  for (const auto& p : r->newProblems) std::fprintf(stderr, "warning: skipped: %s\n", p.c_str());
  if (!r->compactWarning.empty()) std::fprintf(stderr, "warning: %s\n", r->compactWarning.c_str());
  auto all = index->problems();
  if (all && all->size() > r->newProblems.size())
    std::fprintf(stderr, "note: %zu damaged catalogue entries skipped in all (`study list --json` names them)\n", all->size());
  // A share written before the catalogue existed: its studies are folders the catalogue does not know yet.
  if (auto count = index->studyCount(); count && *count == 0) {
    if (auto names = io::listStudyNames(*store); names && !names->empty())
      std::fprintf(stderr,
                   "note: the share holds %zu study folders the catalogue does not list (a share written before the "
                   "catalogue existed?): run `delineate-cli study reindex %s` once\n",
                   names->size(), root.c_str());
  }
  if (refreshed) *refreshed = *r;
  return 0;
}

int printStudies(const io::StudyIndex& index, const io::StudyQuery& query, bool asJson) {
  auto rows = index.search(query);
  if (!rows) return query.status.empty() && query.dateFrom.empty() && query.dateTo.empty() && query.sortBy == "date"
                        ? fileError(rows.error())
                        : usageError("study search", rows.error().describe());
  if (asJson) {
    json a = json::array();
    for (const auto& r : *rows) a.push_back(rowJson(r));
    json out{{"studies", a}};
    if (auto problems = index.problems(); problems) out["skipped"] = *problems;
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    printRows(*rows);
    std::printf("%zu studies\n", rows->size());
  }
  return 0;
}

volatile std::sig_atomic_t g_signal = 0;

extern "C" void onInterrupt(int signal) {
  g_signal = signal;
  std::signal(signal, SIG_DFL);  // a second one ends the process as it would have
}

}  // namespace

InterruptSink::InterruptSink() {
  g_signal = 0;
  std::signal(SIGINT, onInterrupt);
  std::signal(SIGTERM, onInterrupt);
}

InterruptSink::~InterruptSink() {
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
}

bool InterruptSink::cancelled() const { return g_signal != 0; }
int InterruptSink::exitCode() const { return 128 + static_cast<int>(g_signal); }

int readDeidentifyOption(const io::ShareStore& store, bool deidentify, const std::string& keyFile,
                         const std::string& command, std::optional<io::DeidentifyKey>& key) {
  if (deidentify != !keyFile.empty()) return usageError(command, "--deidentify and --key-file go together");
  if (!deidentify) return 0;
  auto secret = io::readImportKey(store, keyFile);
  if (!secret) return fileError(secret.error());
  key = std::move(secret).value();
  return 0;
}

void auditImport(const io::ShareStore& store, const io::StudyImportReport& report, const std::string& how) {
  for (const auto& s : report.series)
    audit(store, "import", s.study, {}, 0,
          "series " + s.series + ": " + std::to_string(s.files) + " files (" + std::to_string(s.copied) + " copied)" +
              (how.empty() ? "" : ", " + how));
}

int importIntoShare(const StudyOptions& o, const std::string& command, io::StudyImportReport& out) {
  auto store = io::ShareStore::open(o.root);
  if (!store) return fileError(store.error());
  io::StudyImportOptions options;
  options.study = o.study;
  options.modality = o.modality;
  options.description = o.description;
  options.patientId = o.patientId;
  options.jobs = o.jobs;
  if (int rc = readDeidentifyOption(*store, o.deidentify, o.keyFile, command, options.deidentify)) return rc;
  InterruptSink interrupt;  // Ctrl-C or SIGTERM: stops between files, no temporary file left (run again to finish)
  options.progress = &interrupt;
  auto report = io::importStudies(*store, o.inputs, options);
  if (!report) {
    fileError(report.error());
    return interrupt.cancelled() ? interrupt.exitCode() : 1;
  }
  for (const auto& s : report->skipped) std::fprintf(stderr, "warning: not imported: %s\n", s.c_str());
  for (const auto& w : report->warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  auditImport(*store, *report);
  out = std::move(report).value();
  return 0;
}

std::string importReportJson(const io::StudyImportReport& report) {
  json a = json::array();
  for (const auto& s : report.series)
    a.push_back({{"study", s.study}, {"series", s.series}, {"kind", s.kind}, {"files", s.files}, {"copied", s.copied},
                 {"alreadyThere", s.alreadyThere}, {"duplicates", s.duplicates}, {"bytes", s.bytes},
                 {"importedBefore", s.manifestExisted}});
  return json{{"series", a}, {"skipped", report.skipped}, {"warnings", report.warnings}}.dump(2);
}

void printImportReport(const io::StudyImportReport& report) {
  int copied = 0, there = 0;
  for (const auto& s : report.series) {
    copied += s.copied;
    there += s.alreadyThere;
    std::printf("%s / %s  %s, %d files, %.1f MB: %d copied, %d already on the share%s%s\n", s.study.c_str(),
                s.series.c_str(), s.kind.c_str(), s.files, double(s.bytes) / 1e6, s.copied, s.alreadyThere,
                s.duplicates ? (", " + std::to_string(s.duplicates) + " identical files stored once").c_str() : "",
                s.manifestExisted ? " (imported before: same files)" : "");
  }
  std::printf("imported %zu series: %d files copied, %d already there\n", report.series.size(), copied, there);
}

int runStudyImport(const StudyOptions& o) {
  io::StudyImportReport report;
  if (int rc = importIntoShare(o, "study import", report)) return rc;
  if (o.json) {
    std::printf("%s\n", importReportJson(report).c_str());
    return 0;
  }
  printImportReport(report);
  return 0;
}

int runStudyList(const StudyOptions& o) {
  std::optional<io::ShareStore> store;
  std::optional<io::StudyIndex> index;
  if (int rc = openIndex(o.root, store, index)) return rc;
  io::StudyQuery q;
  q.sortBy = o.sortBy;
  q.limit = o.limit;
  return printStudies(*index, q, o.json);
}

int runStudySearch(const StudyOptions& o) {
  std::optional<io::ShareStore> store;
  std::optional<io::StudyIndex> index;
  for (const std::string* d : {&o.dateFrom, &o.dateTo})
    if (!d->empty() && io::normalizeStudyDate(*d).empty())
      return usageError("study search", "'" + *d + "' is not a date (YYYY-MM-DD or YYYYMMDD)");
  if (int rc = openIndex(o.root, store, index)) return rc;
  io::StudyQuery q;
  q.text = o.text;
  q.patient = o.patient;
  q.modality = o.modality;
  q.dateFrom = o.dateFrom;
  q.dateTo = o.dateTo;
  q.description = o.description;
  q.status = o.status;
  q.sortBy = o.sortBy;
  q.limit = o.limit;
  return printStudies(*index, q, o.json);
}

int runStudyShow(const StudyOptions& o) {
  auto store = io::ShareStore::open(o.root);
  if (!store) return fileError(store.error());
  auto listing = io::listStudy(*store, o.study);
  if (!listing) return fileError(listing.error());
  for (const auto& d : listing->damaged) std::fprintf(stderr, "warning: skipped: %s\n", d.c_str());
  // What the catalogue cannot say for sure: who holds a lease right now, and each latest revision's review.
  struct SetState {
    std::string review, editing;
  };
  std::vector<SetState> states;
  for (const auto& set : listing->labelSets) {
    SetState st{"none", ""};
    if (auto revisions = io::LabelSetRevisions::open(*store, o.study, set.name); revisions) {
      if (set.latestRevision)
        if (auto r = io::LabelSetReviews(*revisions).review(set.latestRevision); r)
          st.review = io::reviewStateName(r->state);
      if (auto lease = io::ShareLease::prepare(*store, revisions->folder(), {}); lease)
        if (auto holder = lease->current(); holder && holder->has_value() && !(*holder)->expired)
          st.editing = (*holder)->user + "@" + (*holder)->host;
    }
    states.push_back(st);
  }
  if (o.json) {
    json series = json::array(), sets = json::array();
    for (const auto& m : listing->series) {
      json s{{"series", m.series}, {"kind", m.kind}, {"modality", m.modality}, {"description", m.seriesDescription},
             {"seriesInstanceUid", m.seriesInstanceUid}, {"files", m.files.size()}, {"bytes", m.totalBytes()},
             {"patientId", m.patientId}, {"patientName", m.patientName}, {"studyDate", m.studyDate},
             {"studyDescription", m.studyDescription}, {"importedBy", m.importedBy}, {"time", m.time}};
      if (m.geometry) {
        const auto& d = m.geometry->dimensions();
        s["size"] = {d[0], d[1], d[2]};
      }
      series.push_back(s);
    }
    for (std::size_t i = 0; i < listing->labelSets.size(); ++i) {
      const auto& l = listing->labelSets[i];
      sets.push_back({{"labelSet", l.name}, {"latestRevision", l.latestRevision}, {"author", l.latestAuthor},
                      {"time", l.latestTime}, {"series", l.boundSeries}, {"review", states[i].review},
                      {"editing", states[i].editing}});
    }
    std::printf("%s\n", json{{"study", o.study}, {"series", series}, {"labelSets", sets},
                             {"seriesInProgress", listing->seriesInProgress}, {"leftovers", listing->leftovers},
                             {"skipped", listing->damaged}}
                            .dump(2)
                            .c_str());
    return 0;
  }
  std::printf("study %s\n", o.study.c_str());
  if (!listing->series.empty()) {
    const auto& m = listing->series.front();
    std::printf("  patient %s  %s  date %s  %s\n", m.patientId.empty() ? "-" : m.patientId.c_str(),
                m.patientName.c_str(), dateText(m.studyDate).c_str(), m.studyDescription.c_str());
  }
  std::printf("series (%zu)\n", listing->series.size());
  for (const auto& m : listing->series) {
    std::string grid = "no single grid";
    if (m.geometry) {
      const auto& d = m.geometry->dimensions();
      grid = std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" + std::to_string(d[2]);
    }
    std::printf("  %-40s %-6s %-4s %-24s %4zu files %8.1f MB  %s\n", m.series.c_str(), m.kind.c_str(),
                m.modality.c_str(), clip(m.seriesDescription, 24).c_str(), m.files.size(), double(m.totalBytes()) / 1e6,
                grid.c_str());
  }
  for (const auto& s : listing->seriesInProgress)
    std::printf("  %-40s (import not finished: no manifest yet)\n", s.c_str());
  if (!listing->leftovers.empty())
    std::printf("  %zu temporary files of copies in progress or interrupted (never part of a series): %s%s\n",
                listing->leftovers.size(), listing->leftovers.front().c_str(), listing->leftovers.size() > 1 ? " ..." : "");
  std::printf("label sets (%zu)\n", listing->labelSets.size());
  for (std::size_t i = 0; i < listing->labelSets.size(); ++i) {
    const auto& l = listing->labelSets[i];
    std::printf("  %-20s r%-4d %-12s %-24s on %-30s review %-9s %s\n", l.name.c_str(), l.latestRevision,
                l.latestAuthor.c_str(), l.latestTime.c_str(), l.boundSeries.empty() ? "(no bound image)" : l.boundSeries.c_str(),
                states[i].review.c_str(), states[i].editing.empty() ? "" : ("editing: " + states[i].editing).c_str());
  }
  return 0;
}

int runStudyGet(const StudyOptions& o) {
  auto store = io::ShareStore::open(o.root);
  if (!store) return fileError(store.error());
  InterruptSink interrupt;  // Ctrl-C or SIGTERM: stops, and the files this run wrote are removed
  // The folder the user named gets the instances as they are (plain, owner-only); the caches are sealed.
  auto fetched = io::fetchSeries(*store, o.study, o.series, o.output, &interrupt, io::FileAccess::Private);
  if (!fetched) {
    fileError(fetched.error());
    return interrupt.cancelled() ? interrupt.exitCode() : 1;
  }
  if (o.json)
    std::printf("%s\n", json{{"open", fetched->openPath}, {"files", fetched->manifest.files.size()},
                             {"copied", fetched->copied}, {"reused", fetched->reused}}
                            .dump(2)
                            .c_str());
  else
    std::printf("%s: %zu files verified (%d copied, %d already there)\n", fetched->openPath.c_str(),
                fetched->manifest.files.size(), fetched->copied, fetched->reused);
  return 0;
}

int runStudyReindex(const StudyOptions& o) {
  auto store = io::ShareStore::open(o.root);
  if (!store) return fileError(store.error());
  auto report = io::reindexStudies(*store);
  if (!report) return fileError(report.error());
  for (const auto& p : report->problems) std::fprintf(stderr, "warning: skipped: %s\n", p.c_str());
  audit(*store, "reindex", {}, {}, 0, std::to_string(report->studies) + " studies into " + report->snapshot);
  if (o.json)
    std::printf("%s\n", json{{"studies", report->studies}, {"series", report->series}, {"labelSets", report->labelSets},
                             {"snapshot", report->snapshot}, {"skipped", report->problems}}
                            .dump(2)
                            .c_str());
  else
    std::printf("catalogue snapshot %s: %d studies, %d series, %d label sets\n", report->snapshot.c_str(),
                report->studies, report->series, report->labelSets);
  return 0;
}

}  // namespace delineate::app::cli
