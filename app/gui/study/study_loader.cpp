#include "app/gui/study/study_loader.h"

#include <QFileInfo>
#include <QFutureWatcher>
#include <QInputDialog>
#include <QMessageBox>
#include <QSettings>
#include <QWidget>
#include <QtConcurrent/QtConcurrent>

#include <algorithm>
#include <cstring>

#include "app/gui/base/error_text.h"
#include "app/gui/base/job.h"
#include "app/gui/base/workbench.h"
#include "app/gui/study/label_table_memory.h"
#include "app/gui/study/recent_studies.h"
#include "app/gui/study/session_files.h"
#include "app/gui/study/study_document.h"
#include "core/resample.h"
#include "io/base/regular_file.h"
#include "io/dicom/dicom_rtstruct.h"
#include "io/dicom/dicom_seg.h"
#include "io/labels/label_table_io.h"
#include "io/share/share_revisions.h"
#include "io/share/share_store.h"
#include "io/studies/study_store.h"
#include "io/volume/image_file.h"

namespace delineate::app::gui {

// What a background job hands back to the window (built on the worker, read on the GUI thread).
struct StudyLoader::Loaded {
  std::optional<core::ScalarImage> image;  // in its stored type (int16 for most CT)
  std::optional<core::LabelMap> labels;
  // The labels are on another grid than the image: told with both grids, resampled only when the user says so.
  bool offGrid = false;
  QString labelsName;                             // the label map as the window names it
  const char* stepName = "Open label map";        // the undo step that replaces the labels
  bool resampled = false;
  QString source;
  QString error;
  bool labelsOnly = false;
  std::string shareRevision;  // "study/set/rN" when the labels came from a share
  std::string revisionExtra;  // that revision's sidecar JSON (its label table)
  std::optional<core::LabelTable> segTable;  // a DICOM SEG's segments
  std::optional<core::LabelTable> mapTable;  // the table file beside a label map file (its names)
  QString tableProblem;                      // that file could not be read (the map still opens, unnamed)
  std::size_t flattened = 0;                 // voxels where overlapping segments were flattened (allowed)
  QString notes;  // what the window says after the labels open (an RT structure set's overlap and skipped contours)
  std::optional<io::DicomSeries> dicomSeries;  // the series a DICOM study came from (for SEG export)
  ShareTarget shareTarget;
  QString shareStudyEntry;  // a share study's recent-studies entry
  // A DICOM folder's index: the window picks the series, then loads it.
  std::vector<io::DicomSeries> series;
  QString folder;
  std::string labelsWithSeries;  // a label map to open with the series picked (openDicomFolder's)
};



namespace {

// A label map file's own names: the table file beside it, if any (io::findLabelTableBeside). Names are never
// borrowed from another table (issue 23: the CT engine's classes named a mouse atlas's structures).
void readTableBeside(const std::string& labelMap, std::optional<core::LabelTable>& table, QString& problem) {
  auto beside = io::readLabelTableBeside(labelMap);
  if (!beside) problem = fromError(beside.error());
  else if (*beside) table = std::move((*beside)->table);
}

// The sidecar of revision `number` for its table: a revision saved without one (by the CLI, or before tables travelled
// with revisions) takes the newest earlier revision's of its label set that has one, so the set keeps its names.
std::string extraWithTable(const io::RevisionList& list, int number) {
  const io::RevisionInfo* own = list.find(number);
  if (own && SessionFiles::tableFromRevisionExtra(own->extraJson)) return own->extraJson;
  for (auto it = list.revisions.rbegin(); it != list.revisions.rend(); ++it)
    if (it->number < number && SessionFiles::tableFromRevisionExtra(it->extraJson)) return it->extraJson;
  return own ? own->extraJson : std::string();
}

}  // namespace

bool StudyLoader::readLabelsWithImage(const std::string& labels, const core::Geometry& image, Loaded& r) {
  auto lab = io::readLabelFile(labels);
  if (!lab) {
    r.error = fromError(lab.error());
    return false;
  }
  r.offGrid = !lab->geometry().isCloseTo(image);
  r.labelsName = QString::fromStdString(labels);
  r.labels = std::move(lab).value();
  readTableBeside(labels, r.mapTable, r.tableProblem);
  return true;
}

StudyLoader::StudyLoader(StudyDocument& document, Workbench& bench, QObject* parent)
    : QObject(parent), m_document(document), m_bench(bench) {}

StudyLoader::~StudyLoader() = default;

void StudyLoader::startJob(const QString& what, std::function<std::shared_ptr<Loaded>(JobProgress&)> work) {
  auto job = m_bench.startProgress(what);
  m_loading = true;
  auto* watcher = new QFutureWatcher<std::shared_ptr<Loaded>>(this);
  connect(watcher, &QFutureWatcher<std::shared_ptr<Loaded>>::finished, this, [this, watcher, job] {
    auto result = watcher->result();
    watcher->deleteLater();
    if (!m_bench.finishProgress(job)) return;
    m_loading = false;
    if (job->cancelled()) {
      m_afterStudy = nullptr;
      Q_EMIT cancelled();
      m_bench.showStatus(tr("Cancelled"), 4000);
      return;
    }
    finishJob(std::move(result));
  });
  watcher->setFuture(QtConcurrent::run(&m_bench.workers(), [job, work = std::move(work)] {
    try {
      return work(*job);
    } catch (const std::bad_alloc&) {
      auto r = std::make_shared<Loaded>();
      r->error = QObject::tr("out of memory");
      return r;
    }
  }));
}


bool StudyLoader::openImage(const QString& imagePath, const QString& labelsPath) {
  if (m_bench.busy()) return false;
  m_afterStudy = nullptr;
  const std::string image = imagePath.toStdString(), labels = labelsPath.toStdString();
  startJob(tr("Loading %1").arg(QFileInfo(imagePath).fileName()), [image, labels, imagePath](JobProgress& progress) {
    auto r = std::make_shared<Loaded>();
    r->source = imagePath;
    progress.report(0.05, "read");
    auto img = io::readImageFileTyped(image);
    if (!img) {
      r->error = fromError(img.error());
      return r;
    }
    // All NaN or infinite: nothing to show or compute on; the open study stays.
    if (core::Status s = core::requireFiniteVoxels(*img, image); !s) {
      r->error = fromError(s.error());
      return r;
    }
    progress.report(labels.empty() ? 1.0 : 0.7, "read");
    if (!labels.empty() && !readLabelsWithImage(labels, img->geometry(), *r)) return r;
    r->image = std::move(img).value();
    return r;
  });
  return true;
}

bool StudyLoader::openLabels(const QString& labelsPath) {
  if (m_bench.busy() || !m_document.hasStudy()) return false;
  m_afterStudy = nullptr;
  const std::string labels = labelsPath.toStdString();
  const core::Geometry grid = m_document.session()->image().geometry();
  startJob(tr("Loading %1").arg(QFileInfo(labelsPath).fileName()), [labels, grid, labelsPath](JobProgress&) {
    auto r = std::make_shared<Loaded>();
    r->labelsOnly = true;
    r->source = labelsPath;
    auto lab = io::readLabelFile(labels);
    if (!lab) {
      r->error = fromError(lab.error());
      return r;
    }
    r->offGrid = !lab->geometry().isCloseTo(grid);
    r->labelsName = labelsPath;
    r->labels = std::move(lab).value();
    readTableBeside(labels, r->mapTable, r->tableProblem);
    return r;
  });
  return true;
}

bool StudyLoader::openDicomSeg(const QString& segPath, bool allowOverlap) {
  if (m_bench.busy() || !m_document.hasStudy()) return false;
  m_afterStudy = nullptr;
  const std::string path = segPath.toStdString();
  const core::Geometry grid = m_document.session()->image().geometry();
  startJob(tr("Loading %1").arg(QFileInfo(segPath).fileName()), [path, grid, segPath, allowOverlap](JobProgress&) {
    auto r = std::make_shared<Loaded>();
    r->labelsOnly = true;
    r->source = segPath;
    auto doc = io::readDicomSeg(path, grid);
    if (!doc) {
      r->error = fromError(doc.error());
      return r;
    }
    auto map = io::segToLabelMap(*doc, allowOverlap);
    if (!map) {
      r->error = QObject::tr("%1: %2").arg(segPath, fromError(map.error()));
      return r;
    }
    r->labels = std::move(map->first);
    r->segTable = std::move(map->second);
    r->flattened = doc->overlappingVoxels;
    return r;
  });
  return true;
}

namespace {

// An RT structure set read onto `grid` and flattened (the job of openRtStruct and openShareRtStruct).
void readRtStructInto(const QString& path, const core::Geometry& grid, const io::RtStructReadOptions& options,
                      QString& error, std::optional<core::LabelMap>& labels, std::optional<core::LabelTable>& table,
                      QString& notes) {
  auto doc = io::readRtStruct(path.toStdString(), grid, options);
  if (!doc) {
    error = fromError(doc.error());
    return;
  }
  io::RtFlattenReport report;
  auto map = io::rtStructToLabelMap(*doc, &report);
  if (!map) {
    error = QObject::tr("%1: %2").arg(path, fromError(map.error()));
    return;
  }
  labels = std::move(map->first);
  table = std::move(map->second);
  QStringList said;
  if (doc->overlappingVoxels > 0)
    said << QObject::tr("%1 voxels belonged to more than one ROI; each went to the smallest ROI holding it")
                .arg(doc->overlappingVoxels);
  for (const auto& w : doc->warnings) said << QString::fromStdString(w);
  if (!said.isEmpty()) notes = QObject::tr("%1: %2").arg(QFileInfo(path).fileName(), said.join(QStringLiteral("; ")));
}

}  // namespace

io::RtStructReadOptions StudyLoader::rtStructOptions() const {
  io::RtStructReadOptions options;
  if (const io::DicomSeries* dicom = m_document.dicomSource()) {
    options.referenceFrameOfReferenceUid = dicom->frameOfReferenceUid;
    options.referenceSeriesUid = dicom->seriesInstanceUid;
  }
  return options;
}

bool StudyLoader::openRtStruct(const QString& path) {
  if (m_bench.busy() || !m_document.hasStudy()) return false;
  m_afterStudy = nullptr;
  const core::Geometry grid = m_document.session()->image().geometry();
  startJob(tr("Loading %1").arg(QFileInfo(path).fileName()), [path, grid, options = rtStructOptions()](JobProgress&) {
    auto r = std::make_shared<Loaded>();
    r->labelsOnly = true;
    r->source = path;
    readRtStructInto(path, grid, options, r->error, r->labels, r->segTable, r->notes);
    return r;
  });
  return true;
}

bool StudyLoader::openShareRtStruct(const QString& root, const QString& study, const QString& series) {
  if (m_bench.busy() || !m_document.hasStudy()) return false;
  m_afterStudy = nullptr;
  const core::Geometry grid = m_document.session()->image().geometry();
  const std::string r = root.toStdString(), st = study.toStdString(), se = series.toStdString();
  startJob(tr("Opening the structure set %1 from the share").arg(series),
           [r, st, se, grid, options = rtStructOptions()](JobProgress& progress) {
             auto result = std::make_shared<Loaded>();
             result->labelsOnly = true;
             auto store = io::ShareStore::open(r);
             if (!store) {
               result->error = fromError(store.error());
               return result;
             }
             const std::string cacheFolder = io::defaultSeriesCacheFolder(*store, st, se);
             auto fetched = io::fetchSeries(*store, st, se, cacheFolder, &progress);
             if (!fetched) {
               result->error = fromError(fetched.error());
               return result;
             }
             auto index = io::indexDicomFolder(fetched->openPath);
             if (!index) {
               result->error = fromError(index.error());
               return result;
             }
             std::vector<std::string> files;
             for (const io::DicomSeries* s : index->allSeries())
               if (s->modality == "RTSTRUCT")
                 for (const auto& slice : s->slices) files.push_back(slice.path);
             if (files.size() != 1) {
               result->error = files.empty() ? QObject::tr("Series %1 of %2 holds no RT Structure Set")
                                                   .arg(QString::fromStdString(se), QString::fromStdString(st))
                                             : QObject::tr("Series %1 of %2 holds %3 RT Structure Sets; open one with "
                                                           "File > Open RT Structure Set from %4")
                                                   .arg(QString::fromStdString(se), QString::fromStdString(st))
                                                   .arg(files.size())
                                                   .arg(QString::fromStdString(fetched->openPath));
               return result;
             }
             result->source = QString::fromStdString(files.front());
             readRtStructInto(result->source, grid, options, result->error, result->labels, result->segTable,
                              result->notes);
             return result;
           });
  return true;
}

bool StudyLoader::openPath(const QString& path, const QString& labelsPath) {
  const QFileInfo info(path);
  if (info.isDir()) return openDicomFolder(path, labelsPath);
  // Through io, so that a copy sealed at rest (io/base/sealed_file.h) shows its content's header too.
  char head[132] = {};
  bool dicom = false;
  if (auto file = io::RandomAccessFile::open(path.toStdString(), "image")) {
    auto got = file->readAt(0, head, sizeof head);
    dicom = got && *got == sizeof head && std::memcmp(head + 128, "DICM", 4) == 0;
  }
  if (dicom) {
    // A DICOMDIR names the folder's series; any other DICOM file stands for its own series.
    const bool dicomdir = info.fileName().compare("DICOMDIR", Qt::CaseInsensitive) == 0;
    return openDicomFolder(info.absolutePath(), labelsPath, dicomdir ? QString() : info.absoluteFilePath());
  }
  return openImage(path, labelsPath);
}

bool StudyLoader::openDicomFolder(const QString& folder, const QString& labelsPath, const QString& seriesOf) {
  if (m_bench.busy()) return false;
  m_afterStudy = nullptr;
  const std::string path = folder.toStdString(), labels = labelsPath.toStdString();
  const std::string wantedFile = seriesOf.isEmpty() ? std::string() : QFileInfo(seriesOf).canonicalFilePath().toStdString();
  startJob(tr("Indexing %1").arg(folder), [path, folder, labels, wantedFile](JobProgress& progress) {
    auto r = std::make_shared<Loaded>();
    r->folder = folder;
    r->labelsWithSeries = labels;
    io::DicomScanOptions options;
    options.progress = &progress;
    auto index = io::indexDicomFolder(path, options);
    if (!index) {
      r->error = fromError(index.error());
      return r;
    }
    for (const io::DicomSeries* s : index->allSeries())
      if (s->isImage) r->series.push_back(*s);
    if (!wantedFile.empty()) {
      // The series holding the file that was opened, when the index has it (else the user chooses as for a folder).
      for (const io::DicomSeries& s : r->series) {
        const bool holds = std::any_of(s.slices.begin(), s.slices.end(), [&](const io::DicomSlice& slice) {
          return QFileInfo(QString::fromStdString(slice.path)).canonicalFilePath().toStdString() == wantedFile;
        });
        if (holds) {
          r->series = {s};
          break;
        }
      }
    }
    if (r->series.empty()) r->error = QObject::tr("%1: no image series found").arg(folder);
    return r;
  });
  return true;
}

bool StudyLoader::openShareRevision(const QString& root, const QString& study, const QString& labelSet, int revision) {
  if (m_bench.busy() || !m_document.hasStudy()) return false;
  m_afterStudy = nullptr;
  const std::string r = root.toStdString(), st = study.toStdString(), set = labelSet.toStdString();
  const core::Geometry grid = m_document.session()->image().geometry();
  // Labels of the same study keep knowing the series the open image is.
  const QString series = m_document.shareTarget().root == root && m_document.shareTarget().study == study
                             ? m_document.shareTarget().series
                             : QString();
  const QString what = revision > 0 ? tr("Loading %1 / %2 r%3").arg(study, labelSet).arg(revision)
                                    : tr("Loading %1").arg(study + " / " + labelSet);
  startJob(what, [r, st, set, revision, grid, series](JobProgress&) {
    auto result = std::make_shared<Loaded>();
    result->labelsOnly = true;
    result->source = QString::fromStdString(st + " / " + set + " r" + std::to_string(revision));
    auto store = io::ShareStore::open(r);
    if (!store) {
      result->error = fromError(store.error());
      return result;
    }
    auto folder = io::LabelSetRevisions::open(*store, st, set);
    if (!folder) {
      result->error = fromError(folder.error());
      return result;
    }
    auto list = folder->list();
    if (!list) {
      result->error = fromError(list.error());
      return result;
    }
    const int number = revision > 0 ? revision : list->latest();  // 0: the newest
    if (number == 0) {
      result->error = QObject::tr("%1 / %2 on %3 holds no revision")
                          .arg(QString::fromStdString(st), QString::fromStdString(set), QString::fromStdString(r));
      return result;
    }
    auto labels = folder->loadLabels(number);
    if (!labels) {
      result->error = fromError(labels.error());
      return result;
    }
    result->offGrid = !labels->geometry().isCloseTo(grid);
    result->labelsName = QObject::tr("%1 revision %2").arg(QString::fromStdString(st + "/" + set)).arg(number);
    result->labels = std::move(labels).value();
    result->revisionExtra = extraWithTable(*list, number);
    result->shareRevision = st + "/" + set + "/r" + std::to_string(number);
    result->shareTarget = ShareTarget{QString::fromStdString(r), QString::fromStdString(st), QString::fromStdString(set),
                                      number, series};
    return result;
  });
  return true;
}

bool StudyLoader::openShareStudy(const QString& root, const QString& study, const QString& series,
                                 const QString& labelSet, int revision, const QString& rtStructSeries) {
  if (m_bench.busy()) return false;
  m_afterStudy = nullptr;
  const std::string r = root.toStdString(), st = study.toStdString(), se = series.toStdString(),
                    set = labelSet.toStdString();
  // The local copies of share studies stay under this many bytes (Preferences file, "cache/seriesGB"; 20 GB).
  const std::uint64_t cacheBudget =
      std::uint64_t(std::max(1, QSettings().value("cache/seriesGB", 20).toInt())) * 1000 * 1000 * 1000;
  startJob(tr("Opening %1 from the share").arg(study), [r, st, se, set, revision, cacheBudget](JobProgress& progress) {
    auto result = std::make_shared<Loaded>();
    const auto fail = [&](const core::Error& e) {
      result->error = fromError(e);
      return result;
    };
    auto store = io::ShareStore::open(r);
    if (!store) return fail(store.error());
    // The series into the local cache, every file checked against its manifest (a second open reuses them).
    const std::string cacheFolder = io::defaultSeriesCacheFolder(*store, st, se);
    auto fetched = io::fetchSeries(*store, st, se, cacheFolder, &progress);
    if (!fetched) return fail(fetched.error());
    io::pruneSeriesCache(io::userCacheFolder() + "/studies", cacheBudget, cacheFolder);
    if (fetched->manifest.kind == "volume") {
      auto image = io::readImageFileTyped(fetched->openPath);
      if (!image) return fail(image.error());
      result->image = std::move(image).value();
      result->source = QString::fromStdString(fetched->openPath);
    } else {
      auto index = io::indexDicomFolder(fetched->openPath);
      if (!index) return fail(index.error());
      std::vector<const io::DicomSeries*> images;
      for (const io::DicomSeries* s : index->allSeries())
        if (s->isImage) images.push_back(s);
      // What File > Open DICOM Folder would ask about (a split series, gaps, unreadable files) is said with the
      // folder to open it from; the browser opens only what loads as one regular grid.
      if (images.size() != 1 || !images.front()->isRegular() || !images.front()->isComplete()) {
        result->error = QObject::tr("Series %1 of %2 is not one regular image (split, irregular or incomplete); open "
                                    "its verified copy with File > Open DICOM Folder: %3")
                            .arg(QString::fromStdString(se), QString::fromStdString(st),
                                 QString::fromStdString(fetched->openPath));
        return result;
      }
      io::DicomLoadOptions options;
      options.progress = &progress;
      auto loaded = io::loadDicomSeriesTyped(*images.front(), options);
      if (!loaded) return fail(loaded.error());
      result->image = std::move(loaded->image);
      result->dicomSeries = *images.front();
      result->source = QString::fromStdString(fetched->openPath + " #" + images.front()->seriesNumber);
    }
    if (core::Status s = core::requireFiniteVoxels(*result->image, fetched->openPath); !s) return fail(s.error());
    result->shareStudyEntry = QString::fromStdString("share:" + r + "#" + st + "/" + se + (set.empty() ? "" : "/" + set));
    result->shareTarget = ShareTarget{QString::fromStdString(r), QString::fromStdString(st), {}, 0,
                                      QString::fromStdString(se)};
    if (set.empty()) return result;
    auto folder = io::LabelSetRevisions::open(*store, st, set);
    if (!folder) return fail(folder.error());
    auto list = folder->list();
    if (!list) return fail(list.error());
    const int number = revision > 0 ? revision : list->latest();
    if (number == 0) return result;  // a label set without revisions: the image alone
    auto labels = folder->loadLabels(number);
    if (!labels) return fail(labels.error());
    result->offGrid = !labels->geometry().isCloseTo(result->image->geometry());
    result->labelsName = QObject::tr("%1 revision %2").arg(QString::fromStdString(st + "/" + set)).arg(number);
    result->labels = std::move(labels).value();
    result->revisionExtra = extraWithTable(*list, number);
    result->shareRevision = st + "/" + set + "/r" + std::to_string(number);
    result->shareTarget.labelSet = QString::fromStdString(set);
    result->shareTarget.baseRevision = number;
    return result;
  });
  // A structure set of the study instead of a label set: onto the image once it is open.
  if (!rtStructSeries.isEmpty())
    m_afterStudy = [this, root, study, rtStructSeries] { openShareRtStruct(root, study, rtStructSeries); };
  return true;
}

std::optional<const io::DicomSeries*> StudyLoader::chooseSeries(const std::vector<const io::DicomSeries*>& series) {
  if (series.size() == 1 || !m_bench.dialogsEnabled()) return series.front();
  QStringList items;
  for (const auto* s : series) {
    QString item = QString("%1 %2  %3  (%4 images)")
                       .arg(QString::fromStdString(s->seriesNumber), QString::fromStdString(s->modality),
                            QString::fromStdString(s->seriesDescription))
                       .arg(s->instanceCount);
    if (!s->isComplete())
      item += tr("  - incomplete: %1 unreadable file(s)").arg(static_cast<int>(s->unreadable.size()));
    else if (!s->issues.empty())
      item += tr("  - warning: %1").arg(QString::fromStdString(s->issues.front().detail));
    items << item;
  }
  bool ok = false;
  const QString chosen = QInputDialog::getItem(m_bench.widget(), tr("Open DICOM Series"), tr("Series:"), items, 0, false, &ok);
  if (!ok) return std::nullopt;
  return series[static_cast<std::size_t>(items.indexOf(chosen))];
}


void StudyLoader::loadSeries(const Loaded& index) {
  std::vector<const io::DicomSeries*> series;
  for (const auto& s : index.series) series.push_back(&s);
  auto chosen = chooseSeries(series);
  if (!chosen) return;
  const io::DicomSeries picked = **chosen;
  // A series with unreadable files is never opened as if complete (a lost first or last slice leaves a regular
  // grid): each file is named, and the user may load the rest knowingly (the CLI's --allow-unreadable).
  bool allowUnreadable = false;
  if (!picked.isComplete()) {
    QStringList files;
    for (const auto& f : picked.unreadable) files << QString::fromStdString(f.reason);
    const QString name = QString::fromStdString(picked.seriesNumber.empty() ? picked.key() : picked.seriesNumber);
    if (!m_bench.dialogsEnabled()) {
      m_bench.reportError(tr("Series %1 is incomplete and was not opened. These files of it or beside it cannot be "
                             "read:\n%2")
                              .arg(name, files.join("\n")));
      return;
    }
    if (QMessageBox::warning(m_bench.widget(), tr("Open DICOM Series"),
                             tr("Series %1 is incomplete. These files of it or beside it cannot be read:\n%2\n\n"
                                "Load the readable files anyway? The slices of the unreadable ones will be missing.")
                                 .arg(name, files.join("\n")),
                             QMessageBox::Yes | QMessageBox::No, QMessageBox::No) != QMessageBox::Yes)
      return;
    allowUnreadable = true;
  }
  bool allowIrregular = false;
  QStringList lines;  // the unreadable files were named above
  for (const auto& issue : picked.issues)
    if (issue.kind != io::SeriesIssueKind::UnreadableFiles) lines << QString::fromStdString(issue.detail);
  if (!lines.isEmpty() || !picked.isRegular()) {
    const QString text = tr("This series has problems:\n%1").arg(lines.join("\n"));
    if (!picked.isRegular()) {
      if (!m_bench.dialogsEnabled() ||
          QMessageBox::warning(m_bench.widget(), tr("Open DICOM Series"), text + tr("\n\nLoad it anyway?"),
                               QMessageBox::Yes | QMessageBox::No) != QMessageBox::Yes) {
        if (!m_bench.dialogsEnabled()) m_bench.reportError(text);
        return;
      }
      allowIrregular = true;
    } else if (m_bench.dialogsEnabled()) {
      QMessageBox::information(m_bench.widget(), tr("Open DICOM Series"), text);
    }
  }
  const QString source = index.folder + " #" + QString::fromStdString(picked.seriesNumber);
  startJob(tr("Loading series %1").arg(QString::fromStdString(picked.seriesNumber)),
           [picked, allowIrregular, allowUnreadable, source, labels = index.labelsWithSeries](JobProgress& progress) {
             auto r = std::make_shared<Loaded>();
             r->source = source;
             io::DicomLoadOptions options;
             options.progress = &progress;
             options.allowIrregular = allowIrregular;
             options.allowUnreadable = allowUnreadable;
             auto loaded = io::loadDicomSeriesTyped(picked, options);
             if (!loaded) {
               r->error = fromError(loaded.error());
               return r;
             }
             if (core::Status s = core::requireFiniteVoxels(loaded->image, source.toStdString()); !s) {
               r->error = fromError(s.error());
               return r;
             }
             if (!labels.empty() && !readLabelsWithImage(labels, loaded->image.geometry(), *r)) return r;
             r->image = std::move(loaded->image);
             r->dicomSeries = picked;
             return r;
           });
}

void StudyLoader::finishJob(std::shared_ptr<Loaded> result) {
  if (!result->error.isEmpty()) {
    m_afterStudy = nullptr;
    m_bench.reportError(result->error);
    return;
  }
  if (!result->series.empty()) {
    loadSeries(*result);
    return;
  }
  if (result->labelsOnly) {
    if (result->offGrid) offerResample(std::move(result));
    else finishLabels(*result);
    return;
  }
  if (!result->shareStudyEntry.isEmpty()) {
    finishShareStudy(std::move(result));
    return;
  }
  // A new study names only what its own labels name: the table beside its label map, else none (an engine adds the
  // names of the classes it writes when it writes them). A map on another grid comes later, resampled, with its table.
  const bool offGrid = result->labels && result->offGrid;
  core::LabelTable table = result->mapTable && !offGrid ? std::move(*result->mapTable) : core::LabelTable{};
  // A map without a table of its own takes the one last used when that names all its values (label_table_memory.h).
  QString tableFrom;
  if (result->labels && !offGrid) {
    if (!table.empty()) rememberLabelTable(table, result->labelsName);
    else if (result->tableProblem.isEmpty())
      if (auto remembered = rememberedTableFor(*result->labels)) {
        table = std::move(remembered->table);
        tableFrom = remembered->from;
      }
  }
  auto session = result->labels && !offGrid
                     ? core::AnnotationSession::create(std::move(*result->image), std::move(*result->labels), std::move(table))
                     : core::AnnotationSession::create(std::move(*result->image), std::move(table));
  if (!session) {
    m_bench.reportError(fromError(session.error()));
    return;
  }
  m_document.setStudy(std::move(session).value(), result->source, std::move(result->dicomSeries));
  m_bench.showStatus(tr("Opened %1").arg(result->source), 5000);
  if (!result->tableProblem.isEmpty())
    m_bench.showStatus(tr("The labels' table could not be read, their ids are unnamed: %1").arg(result->tableProblem), 10000);
  if (result->labels && !offGrid) rememberRecentLabels(m_document, result->labelsName);
  if (!tableFrom.isEmpty())
    m_bench.showStatus(tr("Opened %1; its labels are named by the table last used (%2)").arg(result->source, tableFrom),
                       10000);
  Q_EMIT studyLoaded();
  if (offGrid) offerResample(std::move(result));
  else runAfterStudy();
}

void StudyLoader::runAfterStudy() {
  if (auto after = std::exchange(m_afterStudy, nullptr)) after();
}

bool StudyLoader::openRecent(const QString& entry, const QString& labels) {
  // How the entry reopens: a share study (with its label set), a DICOM series through its folder, an image file.
  QString shareRoot, shareStudy, shareSeries, shareSet;
  if (entry.startsWith("share:")) {
    const qsizetype hash = entry.lastIndexOf('#');
    const QStringList parts = entry.mid(hash + 1).split('/');
    if (hash < 0 || parts.size() < 2) return false;
    shareRoot = entry.mid(6, hash - 6);
    shareStudy = parts[0];
    shareSeries = parts[1];
    shareSet = parts.size() > 2 ? parts[2] : QString();
  }
  const qsizetype dicom = entry.startsWith("share:") ? -1 : entry.lastIndexOf(" #");
  const auto share = parseShareLabelSet(labels);
  // Labels in the study's own share label set come with it in one step; a label file with an image or series too.
  const bool sameShareStudy = share && share->root == shareRoot && share->study == shareStudy;
  const QString labelFile = !labels.isEmpty() && !share ? labels : QString();
  bool started = false;
  if (!shareRoot.isEmpty())
    started = openShareStudy(shareRoot, shareStudy, shareSeries, sameShareStudy ? share->labelSet : shareSet);
  else if (dicom > 0)
    started = openDicomFolder(entry.left(dicom), labelFile);
  else
    started = openImage(entry, labelFile);
  if (!started) return false;
  // Labels elsewhere (a label set of another share or study) once the study is open.
  if (share && !sameShareStudy)
    m_afterStudy = [this, s = *share] { openShareRevision(s.root, s.study, s.labelSet, 0); };
  return true;
}

void StudyLoader::finishShareStudy(std::shared_ptr<Loaded> result) {
  // The image opens as a study; the revision then goes the way of every share revision (its table, its saved state,
  // another grid offered for resampling), so a share study behaves as one opened file by file.
  auto session = core::AnnotationSession::create(std::move(*result->image), core::LabelTable{});
  if (!session) {
    m_bench.reportError(fromError(session.error()));
    return;
  }
  m_document.setStudy(std::move(session).value(), result->source, std::move(result->dicomSeries));
  // The study and series now; the label set and its revision only once its labels are in (finishLabels), so labels
  // declined or refused never leave the window saving "the next revision" of a set it does not show.
  ShareTarget studyOnly = result->shareTarget;
  studyOnly.labelSet.clear();
  studyOnly.baseRevision = 0;
  m_document.setShareTarget(studyOnly);
  m_bench.showStatus(tr("Opened %1 from the share").arg(result->shareTarget.study), 5000);
  Q_EMIT shareStudyOpened(result->shareStudyEntry);
  Q_EMIT studyLoaded();
  if (!result->labels) {
    runAfterStudy();
    return;
  }
  result->labelsOnly = true;
  result->source = result->labelsName;
  if (result->offGrid) offerResample(std::move(result));
  else finishLabels(*result);
}

QString StudyLoader::gridText(const core::Geometry& g) {
  const auto n = [](double v) { return QString::number(v, 'g', 6); };
  const core::Size3& d = g.dimensions();
  const core::Vec3 &s = g.spacingMm(), &o = g.originLps();
  return tr("%1 x %2 x %3 voxels, spacing %4 x %5 x %6 mm, origin (%7, %8, %9) mm LPS, axes %10")
      .arg(d[0])
      .arg(d[1])
      .arg(d[2])
      .arg(n(s[0]), n(s[1]), n(s[2]), n(o[0]), n(o[1]), n(o[2]), QString::fromStdString(g.orientationCode()));
}

void StudyLoader::offerResample(std::shared_ptr<Loaded> result) {
  const core::AnnotationSession* session = m_document.session();
  if (!session || !result->labels) return;
  const core::Geometry image = session->image().geometry();
  const core::Geometry& map = result->labels->geometry();
  const QString text = tr("%1 is on another grid than the image.\nLabel map: %2\nImage: %3")
                           .arg(result->labelsName, gridText(map), gridText(image));
  // Nearest neighbour invents nothing only where the map has a voxel for every voxel of the image.
  if (!core::coversVoxelCentres(map, image)) {
    m_bench.reportError(text + "\n\n" + tr("It does not cover the image's space and was not opened."));
    return;
  }
  if (!m_bench.dialogsEnabled()) {
    m_bench.reportError(text + "\n\n" + tr("It was not opened."));
    return;
  }
  if (QMessageBox::question(m_bench.widget(), tr("Label Map on Another Grid"),
                            text + "\n\n" +
                                tr("It covers the image's space. Resample it onto the image's grid (nearest "
                                   "neighbour)? Undo takes the resampled labels back."),
                            QMessageBox::Yes | QMessageBox::No, QMessageBox::No) != QMessageBox::Yes)
    return;
  // The same result comes back with the labels resampled, so everything else it carries (table, SEG segments, share
  // revision) goes along without being copied field by field.
  startJob(tr("Resampling %1").arg(result->labelsName), [result, image](JobProgress&) {
    auto resampled = core::resampleNearest(*result->labels, image);
    if (!resampled) {
      auto failed = std::make_shared<Loaded>();
      failed->error = tr("%1: %2").arg(result->labelsName, fromError(resampled.error()));
      return failed;
    }
    result->labels = std::move(resampled).value();
    result->image.reset();
    result->labelsOnly = true;
    result->offGrid = false;
    result->resampled = true;
    result->stepName = "Resample label map";
    result->source = result->labelsName;
    result->tableProblem.clear();  // said when the map was read
    return result;
  });
}

void StudyLoader::finishLabels(Loaded& result) {
  // The new map's names come with it, in the same undo step: a SEG's segments, the table saved with a share
  // revision (none: unnamed), the table file beside a map file. A map file without one keeps the table the user
  // has (imported or edited for this study); ids it does not name are shown unnamed.
  // A map with no names of its own on a study with none takes the table last used when it names all its values
  // (label_table_memory.h); the table of a share revision or beside a map file becomes the one last used.
  core::LabelTable table = m_document.session()->table();
  if (result.segTable) table = std::move(*result.segTable);
  else if (!result.shareRevision.empty()) table = SessionFiles::tableFromRevisionExtra(result.revisionExtra).value_or(core::LabelTable{});
  else if (result.mapTable) table = std::move(*result.mapTable);
  const bool ownTable = !table.empty() && (result.segTable || !result.shareRevision.empty() || result.mapTable);
  QString tableFrom;
  if (ownTable && !result.segTable) {
    rememberLabelTable(table, result.shareRevision.empty() ? result.labelsName : QString::fromStdString(result.shareRevision));
  } else if (table.empty() && !result.segTable && result.tableProblem.isEmpty()) {
    if (auto remembered = rememberedTableFor(*result.labels)) {
      table = std::move(remembered->table);
      tableFrom = remembered->from;
    }
  }
  // The labels in the window stay when the new ones cannot replace them (reported).
  if (core::Status s = m_document.replaceLabels(std::move(*result.labels), std::move(table), result.stepName); !s) {
    m_bench.reportError(fromError(s.error()));
    return;
  }
  // Recent Studies reopens the study with these labels: a share revision's label set, a label map file.
  if (!result.shareRevision.empty())
    rememberRecentLabels(m_document, shareLabelSetLocation(result.shareTarget.root, result.shareTarget.study,
                                                           result.shareTarget.labelSet));
  else if (!result.segTable && QFileInfo(result.labelsName).isFile())
    rememberRecentLabels(m_document, QFileInfo(result.labelsName).absoluteFilePath());
  if (!result.shareRevision.empty()) {
    m_document.setShareTarget(result.shareTarget);
    // Resampled labels are not the revision's voxels: saving makes a new revision of that label set.
    if (!result.resampled) m_document.markSaved(result.shareRevision);
  }
  // Ids the map carries and its table does not name are counted and said (a value such as 255 left by another
  // tool), not only shown unnamed in the list. A map with no table at all names nothing; that is not news.
  const core::LabelTable& names = m_document.session()->table();
  QStringList unnamed;
  std::size_t unnamedCount = 0;
  if (!names.empty())
    for (const auto& [label, voxels] : m_document.voxelCounts()) {
      if (label == 0 || names.contains(label)) continue;
      if (++unnamedCount <= 5) unnamed << tr("%1 (%n voxel(s))", nullptr, static_cast<int>(std::min<std::size_t>(voxels, 2147483647))).arg(label);
    }
  if (unnamedCount > 5) unnamed << QStringLiteral("\u2026");
  if (unnamedCount > 0)
    m_bench.showStatus(tr("Labels from %1; %n value(s) the table does not name: %2", nullptr, static_cast<int>(unnamedCount))
                           .arg(result.source, unnamed.join(", ")),
                       15000);
  else if (!tableFrom.isEmpty())
    m_bench.showStatus(tr("Labels from %1, named by the table last used (%2)").arg(result.source, tableFrom), 10000);
  else
    m_bench.showStatus(tr("Labels from %1").arg(result.source), 5000);
  if (!result.tableProblem.isEmpty())
    m_bench.showStatus(tr("The labels' table could not be read, their ids are unnamed: %1").arg(result.tableProblem), 10000);
  if (!result.notes.isEmpty()) m_bench.showStatus(result.notes, 15000);
  if (result.flattened)
    m_bench.showStatus(tr("%1: %2 voxels belonged to more than one segment; the higher segment number was kept")
                           .arg(result.source)
                           .arg(result.flattened),
                       10000);
  Q_EMIT labelsLoaded();
}


}  // namespace delineate::app::gui
