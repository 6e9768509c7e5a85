// batch: one engine over a cohort of studies on the share, each result a new label-set revision (batch.h).
//
// Per study: choose its image series; done already (a revision of this engine setup's key) -> skipped; labels by
// others and no --also-labelled -> skipped; take the label set's lease (someone editing it, or another batch process
// on it -> skipped, a watcher tries again later); look again now that we hold it; fetch the series verified into the
// local cache and read it; segment; save a revision bound to the series with the engine, model and settings, the
// label table and the statistics in its extra; audit; release. The model loads once; a reader thread prepares the next
// study (lease, fetch, read) while the engine works on the current one. One study failing is named and the rest go on.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <deque>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "app/cli/batch.h"
#include "app/cli/commands.h"
#include "app/cli/segment_output.h"
#include "core/statistics.h"
#include "inference/engine.h"
#include "io/base/atomic_file.h"
#include "io/base/process_info.h"
#include "io/base/sealed_file.h"
#include "io/base/sha256.h"
#include "io/cluster/slurm.h"
#include "io/labels/label_table_io.h"
#include "io/share/share_lease.h"
#include "io/share/share_revisions.h"
#include "io/share/share_store.h"
#include "io/studies/checkpoint_fetch.h"
#include "io/studies/study_index.h"
#include "io/report/statistics_report.h"
#include "io/studies/study_store.h"

namespace delineate::app::cli {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string duration(double seconds) {
  if (seconds < 0 || !std::isfinite(seconds)) return "?";
  const long long s = static_cast<long long>(seconds + 0.5);
  char text[32];
  if (s >= 3600) std::snprintf(text, sizeof text, "%lldh%02lldm", s / 3600, (s / 60) % 60);
  else if (s >= 60) std::snprintf(text, sizeof text, "%lldm%02llds", s / 60, s % 60);
  else std::snprintf(text, sizeof text, "%llds", s);
  return text;
}

struct StudyResult {
  std::string study, series;
  std::string status;  // segmented | done | skipped | failed
  int revision = 0;
  std::string reason;
  bool conflict = false;
  bool heldElsewhere = false;  // skipped: someone holds its lease (a watcher looks again later)
  double readSeconds = 0, segmentSeconds = 0, saveSeconds = 0;
  json labels = json::array();  // per label: label, name, voxels, volumeMl, mean, stddev, min, max
};

// Leases of the studies in flight (the one being segmented and the one read ahead), renewed by one thread: a study
// that takes longer than the lease's TTL (VISTA-3D on a CPU) keeps it.
class LeaseKeeper {
 public:
  LeaseKeeper() : m_thread([this] { loop(); }) {}
  ~LeaseKeeper() {
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      m_stop = true;
    }
    m_wake.notify_all();
    m_thread.join();
  }
  void hold(const std::shared_ptr<io::ShareLease>& lease) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_leases.insert(lease);
  }
  void release(const std::shared_ptr<io::ShareLease>& lease) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_leases.erase(lease);
    (void)lease->release();
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> lock(m_mutex);
    while (!m_stop) {
      m_wake.wait_for(lock, std::chrono::seconds(io::LeasePolicy{}.heartbeatSeconds));
      if (m_stop) break;
      for (const auto& l : m_leases)
        if (core::Status s = l->heartbeat(); !s)
          std::fprintf(stderr, "warning: %s\n", s.error().describe().c_str());
    }
  }
  std::mutex m_mutex;
  std::condition_variable m_wake;
  bool m_stop = false;
  std::set<std::shared_ptr<io::ShareLease>> m_leases;
  std::thread m_thread;
};

// A study made ready for the engine, or decided without it.
struct Prepared {
  StudyResult result;
  bool ready = false;
  io::SeriesManifest manifest;
  std::unique_ptr<core::ScalarImage> image;
  std::shared_ptr<io::ShareLease> lease;
  int base = 0;
};

class BatchRun {
 public:
  BatchRun(const BatchOptions& o, io::ShareStore& store, inference::SegmentationEngine& engine,
           batch::EngineIdentity identity, core::ProgressSink& interrupt)
      : m_o(o), m_store(store), m_engine(engine), m_id(std::move(identity)), m_interrupt(interrupt),
        m_engineInfo(engine.info()), m_names(engineLabelTable(m_engineInfo)) {
    m_user = io::processUserName();
    m_author = o.author.empty() ? io::authorName() : o.author;
    if (auto placement = io::clusterPlacementFromEnvironment(); placement) m_placement = *placement;
  }

  // The studies in order; a reader thread prepares study i+1 while study i is segmented.
  std::vector<StudyResult> run(const std::vector<std::string>& studies) {
    std::vector<StudyResult> results;
    std::mutex mutex;
    std::condition_variable changed;
    std::deque<Prepared> queue;
    bool readerDone = false;
    std::thread reader([&] {
      for (const auto& study : studies) {
        if (m_interrupt.cancelled()) break;
        Prepared p = prepare(study);
        std::unique_lock<std::mutex> lock(mutex);
        // One study read ahead at most: two images in memory, never the cohort.
        changed.wait(lock, [&] { return queue.empty() || m_interrupt.cancelled(); });
        const bool stop = m_interrupt.cancelled();
        queue.push_back(std::move(p));
        changed.notify_all();
        if (stop) break;
      }
      std::lock_guard<std::mutex> lock(mutex);
      readerDone = true;
      changed.notify_all();
    });
    const auto start = Clock::now();
    int segmentedCount = 0;
    double segmentedSeconds = 0;
    for (;;) {
      Prepared p;
      {
        std::unique_lock<std::mutex> lock(mutex);
        changed.wait_for(lock, std::chrono::milliseconds(500),
                         [&] { return !queue.empty() || readerDone; });
        if (queue.empty()) {
          if (readerDone) break;
          continue;
        }
        p = std::move(queue.front());
        queue.pop_front();
        changed.notify_all();
      }
      if (m_interrupt.cancelled() && p.ready) {
        // Read ahead but not begun: nothing of it was written; its lease goes back.
        m_leases.release(p.lease);
        continue;
      }
      const auto t0 = Clock::now();
      StudyResult r = p.ready ? segmentAndSave(p) : std::move(p.result);
      if (r.status == "segmented") {
        ++segmentedCount;
        segmentedSeconds += since(t0) + r.readSeconds;
      }
      results.push_back(r);
      report(r, results.size(), studies.size(), segmentedCount, segmentedSeconds, since(start));
    }
    reader.join();
    return results;
  }

  // Watching: the catalogue's studies that match the filters, as they arrive, until a signal.
  std::vector<StudyResult> watch() {
    std::vector<StudyResult> results;
    std::set<std::string> settled;  // segmented, done, failed or skipped for good by this process
    auto index = io::StudyIndex::open(m_store);
    if (!index) {
      fileError(index.error());
      return results;
    }
    std::fprintf(stderr, "watching %s for studies%s (every %.0f s; Ctrl-C or SIGTERM stops after the current study)\n",
                 m_store.root().c_str(), filterText().c_str(), m_o.pollSeconds);
    while (!m_interrupt.cancelled()) {
      auto refreshed = index->refresh();
      if (!refreshed) {
        std::fprintf(stderr, "warning: catalogue: %s (trying again)\n", refreshed.error().describe().c_str());
      } else {
        for (const auto& p : refreshed->newProblems) std::fprintf(stderr, "warning: catalogue: skipped: %s\n", p.c_str());
        auto rows = index->search(batch::catalogueQuery(m_o));
        if (!rows) std::fprintf(stderr, "warning: catalogue: %s\n", rows.error().describe().c_str());
        std::vector<std::string> fresh;
        if (rows)
          for (const auto& row : *rows)
            if (!settled.count(row.study) && row.seriesCount > 0) fresh.push_back(row.study);
        if (!fresh.empty()) {
          for (auto& r : run(fresh)) {
            // Held by someone else: theirs for now, looked at again next round. The rest is settled.
            if (!r.heldElsewhere) settled.insert(r.study);
            results.push_back(std::move(r));
          }
        }
      }
      for (int i = 0; i < static_cast<int>(m_o.pollSeconds * 10) && !m_interrupt.cancelled(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return results;
  }

 private:
  std::string filterText() const {
    std::string t;
    if (!m_o.text.empty()) t += " text '" + m_o.text + "'";
    if (!m_o.patient.empty()) t += " patient '" + m_o.patient + "'";
    if (!m_o.modality.empty()) t += " modality " + m_o.modality;
    if (!m_o.dateFrom.empty()) t += " from " + m_o.dateFrom;
    if (!m_o.dateTo.empty()) t += " to " + m_o.dateTo;
    return t.empty() ? "" : " matching" + t;
  }

  // The study's image series to segment: those of the modality asked for, else all; a localizer of under 8 slices
  // only when nothing else is there; then the most voxels, ties by series name (never the listing's order).
  std::optional<io::SeriesManifest> chooseSeries(const io::StudyListing& listing, std::string& why) const {
    std::vector<const io::SeriesManifest*> images;
    for (const auto& m : listing.series)
      if (m.geometry && (m_o.modality.empty() || m.kind == "volume" || m.modality == m_o.modality)) images.push_back(&m);
    if (images.empty()) {
      why = listing.series.empty() ? "has no image series on the share"
                                   : "has no image series" + (m_o.modality.empty() ? std::string() : " of modality " + m_o.modality);
      // A manifest that cannot be read is the likelier story: say it.
      for (const auto& d : listing.damaged) why += "; damaged: " + d;
      for (const auto& s : listing.seriesInProgress) why += "; series " + s + " is still being imported (or its import was killed)";
      return std::nullopt;
    }
    const auto volume = [](const io::SeriesManifest* m) {
      const auto& d = m->geometry->dimensions();
      return std::make_pair(d[2] >= 8 || d[0] * d[1] < 64 ? 1 : 0, d[0] * d[1] * d[2]);
    };
    std::sort(images.begin(), images.end(), [&](auto* a, auto* b) {
      const auto va = volume(a), vb = volume(b);
      if (va != vb) return va > vb;
      return a->series < b->series;
    });
    return *images.front();
  }

  // Whether the label set is taken care of already: by this setup (done), or by others (skipped without
  // --also-labelled). Returns the result when so, and the newest revision in `latest`.
  std::optional<StudyResult> alreadyThere(const std::string& study, const std::string& series, int& latest) {
    StudyResult r;
    r.study = study;
    r.series = series;
    auto set = io::LabelSetRevisions::open(m_store, study, m_o.labelSet);
    if (!set) {
      r.status = "failed";
      r.reason = set.error().describe();
      return r;
    }
    auto list = set->list();
    if (!list) {
      r.status = "failed";
      r.reason = list.error().describe();
      return r;
    }
    latest = list->latest();
    if (const io::RevisionInfo* done = batch::batchRevision(*list, m_id.key, series)) {
      r.status = "done";
      r.revision = done->number;
      r.reason = "r" + std::to_string(done->number) + " by this engine setup" +
                 (done->number == latest ? "" : " (newer revisions by others since)");
      const json extra = json::parse(done->extraJson, nullptr, false);
      if (extra.is_object() && extra["batch"].contains("labels")) r.labels = extra["batch"]["labels"];
      return r;
    }
    if (latest > 0 && !m_o.alsoLabelled) {
      const auto& newest = list->revisions.back();
      r.status = "skipped";
      r.revision = latest;
      r.reason = "label set '" + m_o.labelSet + "' already holds r" + std::to_string(latest) + " by " + newest.author +
                 ", not by this engine setup (--also-labelled segments it anyway, as a new revision)";
      return r;
    }
    return std::nullopt;
  }

  Prepared prepare(const std::string& study) {
    Prepared p;
    p.result.study = study;
    const auto fail = [&](const std::string& reason) {
      p.result.status = "failed";
      p.result.reason = reason;
      return std::move(p);
    };
    auto listing = io::listStudy(m_store, study);
    if (!listing) return fail(listing.error().describe());
    std::string why;
    auto series = chooseSeries(*listing, why);
    if (!series) return fail("study " + study + " " + why);
    p.result.series = series->series;
    int latest = 0;
    if (auto there = alreadyThere(study, series->series, latest)) {
      p.result = std::move(*there);
      return p;
    }
    auto set = io::LabelSetRevisions::open(m_store, study, m_o.labelSet);
    if (!set) return fail(set.error().describe());
    io::LeasePolicy policy;
    policy.breakWhenHolderGone = true;
    auto lease = io::ShareLease::prepare(m_store, set->folder(), m_user, policy);
    if (!lease) return fail(lease.error().describe());
    auto shared = std::make_shared<io::ShareLease>(std::move(*lease));
    auto taken = shared->acquire();
    if (!taken) return fail(taken.error().describe());
    if (taken->outcome == io::LeaseOutcome::HeldByOther) {
      p.result.status = "skipped";
      p.result.heldElsewhere = true;
      p.result.reason = "being edited by " + taken->holder->user + "@" + taken->holder->host + " (pid " +
                        std::to_string(taken->holder->pid) + ")";
      return p;
    }
    m_leases.hold(shared);
    // Nothing is written for this study unless it is segmented: every other way out gives the lease back.
    const auto giveBack = [&] { m_leases.release(shared); };
    // Held now: another process may have finished it between our look and the lease.
    if (auto there = alreadyThere(study, series->series, latest)) {
      giveBack();
      p.result = std::move(*there);
      return p;
    }
    p.base = latest;
    const auto t0 = Clock::now();
    const std::string cache = io::defaultSeriesCacheFolder(m_store, study, series->series);
    auto fetched = io::fetchSeries(m_store, study, series->series, cache, &m_interrupt);
    if (!fetched) {
      giveBack();
      return fail(fetched.error().describe());
    }
    auto image = io::readFetchedSeries(*fetched, &m_interrupt);
    if (!image) {
      giveBack();
      return fail(image.error().describe());
    }
    p.image = std::make_unique<core::ScalarImage>(std::move(image).value());
    p.manifest = fetched->manifest;
    p.result.readSeconds = since(t0);
    p.lease = shared;
    p.ready = true;
    return p;
  }

  StudyResult segmentAndSave(Prepared& p) {
    StudyResult r = std::move(p.result);
    const auto fail = [&](const std::string& reason) {
      r.status = "failed";
      r.reason = reason;
      if (p.lease) m_leases.release(p.lease);
      return r;
    };
    const auto t0 = Clock::now();
    inference::SegmentationRequest request;
    request.classes = m_o.classes;
    auto patch = m_engine.segment(*p.image, request, &m_interrupt);
    if (!patch) return fail(core::makeError(patch.error().code, r.study + "/" + r.series, patch.error().detail).describe());
    auto labels = labelsOnGrid(p.image->geometry(), *patch, m_engineInfo.id);
    if (!labels) return fail(labels.error().describe());
    r.segmentSeconds = since(t0);
    const auto t1 = Clock::now();
    core::StatisticsOptions so;
    so.median = false;
    so.diameter = false;
    auto stats = core::computeLabelStatistics(*labels, *p.image, so);
    core::LabelTable present;
    r.labels = json::array();
    if (stats)
      for (const auto& s : *stats) {
        if (const core::LabelEntry* e = m_names.find(s.label)) (void)present.add(*e);
        r.labels.push_back({{"label", s.label},
                            {"name", io::labelDisplayName(m_names, s.label)},
                            {"voxels", s.voxelCount},
                            {"volumeMl", s.volumeMl},
                            {"mean", std::isfinite(s.mean) ? json(s.mean) : json(nullptr)},
                            {"stddev", std::isfinite(s.stddev) ? json(s.stddev) : json(nullptr)},
                            {"min", std::isfinite(s.min) ? json(s.min) : json(nullptr)},
                            {"max", std::isfinite(s.max) ? json(s.max) : json(nullptr)}});
      }
    json batchRecord = m_id.record;
    batchRecord["key"] = m_id.key;
    batchRecord["seconds"] = r.segmentSeconds;
    batchRecord["device"] = m_engineInfo.device.empty() ? "cpu" : m_engineInfo.device;
    batchRecord["host"] = io::localHostName();
    batchRecord["software"] = std::string("Delineate ") + DELINEATE_VERSION;
    if (!m_placement.jobId.empty()) {
      batchRecord["slurmJob"] = m_placement.jobId;
      if (m_placement.arrayTask) batchRecord["slurmTask"] = *m_placement.arrayTask;
    }
    batchRecord["labels"] = r.labels;
    json extra{{"batch", batchRecord}};
    if (!present.empty()) extra["labelTable"] = io::writeSlicerCsvString(present);
    io::SaveRequest save;
    save.author = m_author;
    save.baseRevision = p.base;
    save.message = m_o.message.empty()
                       ? "batch: " + m_engineInfo.id +
                             (m_id.record.contains("modelFile") ? " " + m_id.record["modelFile"].get<std::string>() : "")
                       : m_o.message;
    save.extraJson = io::withLabelBinding(extra.dump(), p.manifest);
    auto set = io::LabelSetRevisions::open(m_store, r.study, m_o.labelSet);
    if (!set) return fail(set.error().describe());
    auto saved = set->saveLabels(*labels, save);
    if (!saved) return fail(saved.error().describe());
    r.saveSeconds = since(t1);
    r.status = "segmented";
    r.revision = saved->number;
    r.conflict = saved->conflict;
    if (saved->conflict)
      r.reason = "saved on r" + std::to_string(saved->base) + " while r" + std::to_string(saved->latestAtSave) +
                 " had appeared: kept as a conflict revision";
    if (!saved->catalogueWarning.empty()) std::fprintf(stderr, "warning: %s\n", saved->catalogueWarning.c_str());
    audit(m_store, "save", r.study, m_o.labelSet, saved->number,
          "batch " + m_engineInfo.id + " (key " + m_id.key + ")" +
              (m_placement.jobId.empty() ? "" : ", Slurm job " + m_placement.jobId));
    m_leases.release(p.lease);
    p.image.reset();
    return r;
  }

  void report(const StudyResult& r, std::size_t position, std::size_t total, int segmented, double segmentedSeconds,
              double elapsed) {
    // ETA from the studies segmented so far (done and skipped ones cost next to nothing), over what is left.
    const std::size_t left = total - position;
    const double perStudy = segmented ? segmentedSeconds / segmented : 0;
    const std::string eta = segmented ? duration(perStudy * double(left)) : "?";
    std::string what;
    if (r.status == "segmented")
    {
      char times[96];
      std::snprintf(times, sizeof times, "read %.2f s, segmented %.2f s, saved %.2f s", r.readSeconds, r.segmentSeconds,
                    r.saveSeconds);
      what = "r" + std::to_string(r.revision) + " saved, " + std::to_string(r.labels.size()) + " labels (" + times +
             ")" + (r.conflict ? " as a conflict revision" : "");
    }
    else what = r.status + ": " + r.reason;
    const int width = static_cast<int>(std::to_string(total).size());
    std::fprintf(stderr, "[%*zu/%zu] %s: %s  |  elapsed %s, ETA %s\n", width, position, total, r.study.c_str(),
                 what.c_str(), duration(elapsed).c_str(), left ? eta.c_str() : "0s");
    if (m_o.json) {
      json line{{"event", "study"}, {"study", r.study},    {"series", r.series}, {"status", r.status},
                {"revision", r.revision}, {"reason", r.reason}, {"position", position}, {"total", total},
                {"etaSeconds", segmented && left ? json(perStudy * double(left)) : json(nullptr)}};
      std::printf("%s\n", line.dump().c_str());
      std::fflush(stdout);
    }
  }

  const BatchOptions& m_o;
  io::ShareStore& m_store;
  inference::SegmentationEngine& m_engine;
  batch::EngineIdentity m_id;
  core::ProgressSink& m_interrupt;
  inference::EngineInfo m_engineInfo;
  core::LabelTable m_names;  // the engine's classes by name, for every study's statistics and label table
  std::string m_user, m_author;
  io::ClusterPlacement m_placement;
  LeaseKeeper m_leases;
};

std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string numberText(const json& v) {
  if (v.is_null()) return "";
  char text[64];
  std::snprintf(text, sizeof text, "%.6g", v.get<double>());
  return text;
}

json resultJson(const StudyResult& r) {
  return json{{"study", r.study},   {"series", r.series},     {"status", r.status},
              {"revision", r.revision}, {"reason", r.reason}, {"conflict", r.conflict},
              {"readSeconds", r.readSeconds}, {"segmentSeconds", r.segmentSeconds}, {"saveSeconds", r.saveSeconds},
              {"labels", r.labels}};
}

json summaryJson(const BatchOptions& o, const batch::EngineIdentity& id, const std::vector<StudyResult>& results,
                 const std::map<std::string, int>& counts, double seconds, int exitCode) {
  json studies = json::array();
  for (const auto& r : results) studies.push_back(resultJson(r));
  return json{{"store", o.root},       {"labelSet", o.labelSet}, {"engine", id.record}, {"key", id.key},
              {"seconds", seconds},     {"counts", counts},       {"exitCode", exitCode},
              {"outcome", exitCode == batch::kComplete ? "complete" : exitCode == batch::kPartial ? "partial" : "failed"},
              {"studies", studies}};
}

core::Status writeText(const std::string& path, const std::string& text) {
  return io::writeFileAtomically(path, text.data(), text.size());
}

core::Status writeSummary(const std::string& path, const json& summary) {
  const bool csv = path.size() >= 4 && path.compare(path.size() - 4, 4, ".csv") == 0;
  if (!csv) return writeText(path, summary.dump(2) + "\n");
  std::string t = "study,series,status,revision,labels,volume_ml,read_s,segment_s,save_s,reason\n";
  for (const auto& s : summary["studies"]) {
    double ml = 0;
    for (const auto& l : s["labels"]) ml += l.value("volumeMl", 0.0);
    char numbers[160];
    std::snprintf(numbers, sizeof numbers, "%zu,%.6g,%.3f,%.3f,%.3f", s["labels"].size(), ml,
                  s["readSeconds"].get<double>(), s["segmentSeconds"].get<double>(), s["saveSeconds"].get<double>());
    t += csvField(s["study"]) + "," + csvField(s["series"]) + "," + s["status"].get<std::string>() + "," +
         std::to_string(s["revision"].get<int>()) + "," + numbers + "," + csvField(s["reason"]) + "\n";
  }
  return writeText(path, t);
}

core::Status writeStatistics(const std::string& path, const json& summary) {
  std::string t = "study,series,revision,label,name,voxels,volume_ml,mean,stddev,min,max\n";
  for (const auto& s : summary["studies"])
    for (const auto& l : s["labels"])
      t += csvField(s["study"]) + "," + csvField(s["series"]) + "," + std::to_string(s["revision"].get<int>()) + "," +
           std::to_string(l["label"].get<int>()) + "," + csvField(l.value("name", std::string())) + "," +
           std::to_string(l["voxels"].get<std::uint64_t>()) + "," + numberText(l["volumeMl"]) + "," +
           numberText(l["mean"]) + "," + numberText(l["stddev"]) + "," + numberText(l["min"]) + "," +
           numberText(l["max"]) + "\n";
  return writeText(path, t);
}

}  // namespace

// The engine setup's identity, without loading it: a classic engine by its id, a checkpoint by the SHA-256 of its
// weights (the same file under another name or path is the same setup; a share reference is fetched, verified, into
// the cache, and `checkpointFile` names the local copy), and the classes asked for.
core::Result<batch::EngineIdentity> batchEngineIdentity(const BatchOptions& o, std::string& checkpointFile) {
  batch::EngineIdentity id;
  std::vector<int> classes(o.classes.begin(), o.classes.end());
  std::sort(classes.begin(), classes.end());
  classes.erase(std::unique(classes.begin(), classes.end()), classes.end());
  json canonical{{"classes", classes}};
  id.record = json{{"engineArgument", o.engine}, {"classes", classes}};
  checkpointFile.clear();
  if (inference::createEngine(o.engine)) {
    canonical["engine"] = o.engine;
    id.record["engine"] = o.engine;
  } else {
    checkpointFile = o.engine;
    std::string note;
    auto local = io::resolveCheckpoint(checkpointFile, {}, &note);
    if (!local) return local.error();
    if (!note.empty()) std::fprintf(stderr, "warning: %s\n", note.c_str());
    checkpointFile = *local;
    auto hash = io::contentSha256(checkpointFile);  // the weights', also of a sealed cache copy (not its ciphertext)
    if (!hash) return hash.error();
    canonical["model"] = *hash;
    id.record["engine"] = "checkpoint";
    id.record["modelSha256"] = *hash;
    id.record["modelFile"] = std::filesystem::path(checkpointFile).filename().string();
  }
  const std::string text = canonical.dump();
  id.key = io::sha256Hex(text.data(), text.size()).substr(0, 16);
  return id;
}

int runBatchSlurm(const BatchOptions& o, io::ShareStore& store, const std::vector<std::string>& studies);

int runBatch(const BatchOptions& o) {
  if (o.root.empty()) return usageError("batch", "ROOT (the share store) is required");
  if (o.labelSet.empty() || !io::isValidShareName(o.labelSet))
    return usageError("batch", "--label-set '" + o.labelSet + "' is not a label-set name (letters, digits, '-', '_', '.')");
  int sliceIndex = o.sliceIndex, sliceCount = o.sliceCount;
  if (o.sliceFromSlurm) {
    // --slice slurm: this array task's share of the list.
    auto placement = io::clusterPlacementFromEnvironment();
    if (!placement) return fileError(placement.error());
    if (!placement->arrayTask || !placement->arrayTaskCount)
      return usageError("batch", "--slice slurm: not a Slurm array task (SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT unset)");
    sliceIndex = *placement->arrayTask;
    sliceCount = *placement->arrayTaskCount;
  }
  if (sliceCount < 1 || sliceIndex < 0 || sliceIndex >= sliceCount)
    return usageError("batch", "--slice K/N needs 0 <= K < N");
  if (o.watch && (o.slurm || sliceCount > 1))
    return usageError("batch", "--watch takes studies as they arrive: not with --slurm or --slice");
  auto opened = io::ShareStore::open(o.root);
  if (!opened) return fileError(opened.error());
  io::ShareStore store = std::move(*opened);
  const auto start = Clock::now();

  std::vector<std::string> studies;
  if (!o.watch) {
    if (int code = batch::resolveStudies(o, store, studies); code != 0) return code;
    if (sliceCount > 1) {
      std::vector<std::string> mine;
      for (std::size_t i = 0; i < studies.size(); ++i)
        if (static_cast<int>(i % static_cast<std::size_t>(sliceCount)) == sliceIndex) mine.push_back(studies[i]);
      studies = std::move(mine);
    }
  }
  if (o.slurm) return runBatchSlurm(o, store, studies);
  // An array task's summary goes to the job folder (batch status reads the failures there).
  std::string summaryPath = o.summary;
  if (summaryPath.empty() && !o.jobDir.empty()) {
    auto placement = io::clusterPlacementFromEnvironment();
    if (placement && placement->arrayTask)
      summaryPath = (std::filesystem::path(o.jobDir) / "results" /
                     ("task-" + std::to_string(*placement->arrayTask) + ".json")).string();
  }

  std::string checkpoint;
  auto identity = batchEngineIdentity(o, checkpoint);
  if (!identity) {
    if (identity.error().code == core::ErrorCode::NotFound && !io::parseCheckpointReference(o.engine))
      return usageError("batch", "unknown engine '" + o.engine + "' (classic, classic.threshold, a checkpoint file or "
                                 "share:ROOT#MODEL[@REV])");
    return fileError(identity.error());
  }
  // The engine loads once, before the first study (a checkpoint that will not run ends the batch at once).
  std::unique_ptr<inference::SegmentationEngine> engine;
  if (int code = createSegmentationEngine(checkpoint.empty() ? o.engine : checkpoint, o.device, "batch", engine,
                                          checkpoint);
      code != 0)
    return code;
  identity->record["engineId"] = engine->info().id;
  std::fprintf(stderr, "batch: %s%s on %s, label set '%s', key %s; %zu studies\n", engine->info().id.c_str(),
               checkpoint.empty() ? "" : (" (" + checkpoint + ")").c_str(),
               engine->info().device.empty() ? "cpu" : engine->info().device.c_str(), o.labelSet.c_str(),
               identity->key.c_str(), studies.size());

  InterruptSink interrupt;
  BatchRun run(o, store, *engine, *identity, interrupt);
  const std::vector<StudyResult> results = o.watch ? run.watch() : run.run(studies);

  std::map<std::string, int> counts;  // by status
  int held = 0;
  for (const auto& r : results) {
    ++counts[r.status];
    held += r.heldElsewhere;
  }
  const int finished = counts["segmented"] + counts["done"];
  int code = counts["failed"] == 0 ? batch::kComplete : finished > 0 ? batch::kPartial : batch::kFailed;
  const json summary = summaryJson(o, *identity, results, counts, since(start), code);
  if (!summaryPath.empty())
    if (core::Status s = writeSummary(summaryPath, summary); !s) {
      fileError(s.error());
      code = code == batch::kComplete ? batch::kFailed : code;
    }
  if (!o.statistics.empty())
    if (core::Status s = writeStatistics(o.statistics, summary); !s) {
      fileError(s.error());
      code = code == batch::kComplete ? batch::kFailed : code;
    }
  std::fprintf(stderr, "batch %s in %s: %d segmented, %d done before, %d skipped, %d failed%s\n",
               summary["outcome"].get<std::string>().c_str(), duration(since(start)).c_str(), counts["segmented"],
               counts["done"], counts["skipped"], counts["failed"],
               held ? (" (" + std::to_string(held) + " being edited elsewhere: run again later)").c_str() : "");
  for (const auto& r : results)
    if (r.status == "failed") std::fprintf(stderr, "  failed: %s: %s\n", r.study.c_str(), r.reason.c_str());
  if (o.json) std::printf("%s\n", json{{"event", "done"}, {"outcome", summary["outcome"]}, {"counts", counts}}.dump().c_str());
  if (interrupt.cancelled() && !o.watch) return interrupt.exitCode();
  return code;
}

}  // namespace delineate::app::cli
