#include "app/gui/pacs/pacs_browser.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDate>
#include <QFileDialog>
#include <QFormLayout>
#include <QFutureWatcher>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrent>

#include <algorithm>
#include <filesystem>
#include <set>

#include "app/gui/base/author_name.h"
#include "app/gui/base/error_text.h"
#include "app/gui/base/job.h"
#include "app/gui/base/workbench.h"
#include "app/gui/pacs/pacs_peer.h"
#include "app/gui/study/share_import.h"
#include "io/studies/study_import.h"

namespace delineate::app::gui {

namespace {

// A sink for one part of a longer job: fractions of part `index` of `count` reach `whole` scaled into its share.
class PartProgress final : public core::ProgressSink {
 public:
  PartProgress(core::ProgressSink& whole, int index, int count) : m_whole(whole), m_index(index), m_count(count) {}
  void report(double fraction, const std::string& stage) override {
    m_whole.report((m_index + std::clamp(fraction, 0.0, 1.0)) / m_count, stage);
  }
  bool cancelled() const override { return m_whole.cancelled(); }

 private:
  core::ProgressSink& m_whole;
  int m_index, m_count;
};

// Series a window cannot open as an image (the study's own results, reports, presentation states).
bool isImageSeries(const std::string& modality) {
  static const std::set<std::string> notImages{"SEG", "SR", "PR", "KO", "RTSTRUCT", "RTPLAN", "RTDOSE", "DOC", "REG"};
  return notImages.count(modality) == 0;
}

// "2024-01-02" or "20240102" -> "20240102"; empty stays empty; anything else -> nullopt.
std::optional<QString> dicomDate(const QString& typed) {
  const QString t = typed.trimmed();
  if (t.isEmpty()) return QString();
  for (const char* format : {"yyyy-MM-dd", "yyyyMMdd"}) {
    const QDate date = QDate::fromString(t, QString::fromLatin1(format));
    if (date.isValid()) return date.toString(QStringLiteral("yyyyMMdd"));
  }
  return std::nullopt;
}

QString text(const std::string& s) { return QString::fromStdString(s); }

// "20240102" -> "2024-01-02" for the table (other text as it came).
QString shownDate(const std::string& d) {
  const QDate date = QDate::fromString(text(d), QStringLiteral("yyyyMMdd"));
  return date.isValid() ? date.toString(Qt::ISODate) : text(d);
}

// A table item that sorts by `key` (numbers as numbers) while showing `shown`.
class SortItem : public QTableWidgetItem {
 public:
  SortItem(const QString& shown, const QVariant& key) : QTableWidgetItem(shown) { setData(Qt::UserRole + 1, key); }
  bool operator<(const QTableWidgetItem& other) const override {
    const QVariant a = data(Qt::UserRole + 1), b = other.data(Qt::UserRole + 1);
    if (a.typeId() == QMetaType::Int && b.typeId() == QMetaType::Int) return a.toInt() < b.toInt();
    return QString::localeAwareCompare(a.toString(), b.toString()) < 0;
  }
};

struct RetrieveOutcome {
  core::Status status;  // the first failure (the retrieve stops there; what arrived stays)
  io::RetrieveResult total;
  QStringList folders;  // the series' cache folders, in order
  std::vector<io::QueryMatch> series;
  bool imported = false;
  ShareImportOutcome import{core::makeError(core::ErrorCode::InvalidArgument, "", "not imported"), {}};
};

}  // namespace

struct PacsBrowserDialog::Impl {
  Workbench* bench = nullptr;
  QList<PacsServer> servers;
  QComboBox* server = nullptr;
  QLineEdit *name = nullptr, *patientId = nullptr, *accession = nullptr, *dateFrom = nullptr, *dateTo = nullptr,
            *description = nullptr, *share = nullptr;
  QComboBox* modality = nullptr;
  QPushButton *search = nullptr, *retrieve = nullptr, *cancel = nullptr, *open = nullptr, *browseShare = nullptr;
  QTableWidget *studies = nullptr, *series = nullptr;
  QCheckBox* import = nullptr;
  QProgressBar* progress = nullptr;
  QLabel* state = nullptr;
  QTimer* poll = nullptr;

  std::vector<io::QueryMatch> studyMatches, seriesMatches;
  std::shared_ptr<JobProgress> job;  // the query or retrieve running, else null
  PacsServer searchedOn;             // the server the tables came from (retrieve asks the same one)
  QString searchedSecret;
  std::optional<PacsOpenRequest> openable;
  int generation = 0;  // bumped by a new search: a late series listing of the study before is dropped

  const PacsServer* chosenServer() const {
    const int i = server->currentIndex();
    return i >= 0 && i < servers.size() ? &servers[i] : nullptr;
  }
};

PacsBrowserDialog::PacsBrowserDialog(Workbench& bench, QWidget* parent) : QDialog(parent), d(std::make_unique<Impl>()) {
  d->bench = &bench;
  setWindowTitle(tr("Query/Retrieve from PACS"));
  setModal(false);
  resize(980, 640);

  d->server = new QComboBox(this);
  d->server->setMinimumWidth(280);
  d->name = new QLineEdit(this);
  d->name->setPlaceholderText(tr("Doe^J*"));
  d->patientId = new QLineEdit(this);
  d->accession = new QLineEdit(this);
  d->dateFrom = new QLineEdit(this);
  d->dateFrom->setPlaceholderText(tr("from YYYY-MM-DD"));
  d->dateTo = new QLineEdit(this);
  d->dateTo->setPlaceholderText(tr("to YYYY-MM-DD"));
  d->modality = new QComboBox(this);
  d->modality->setEditable(true);
  d->modality->addItem(tr("Any"), QString());
  for (const char* m : {"CT", "MR", "PT", "US", "CR", "DX", "MG", "NM", "XA", "SEG"})
    d->modality->addItem(QString::fromLatin1(m), QString::fromLatin1(m));
  d->description = new QLineEdit(this);
  d->search = new QPushButton(tr("&Search"), this);
  d->search->setDefault(true);

  auto* keys = new QGridLayout;
  keys->addWidget(new QLabel(tr("Server:"), this), 0, 0);
  keys->addWidget(d->server, 0, 1, 1, 3);
  keys->addWidget(new QLabel(tr("Patient name:"), this), 1, 0);
  keys->addWidget(d->name, 1, 1);
  keys->addWidget(new QLabel(tr("Patient ID:"), this), 1, 2);
  keys->addWidget(d->patientId, 1, 3);
  keys->addWidget(new QLabel(tr("Accession:"), this), 2, 0);
  keys->addWidget(d->accession, 2, 1);
  keys->addWidget(new QLabel(tr("Modality:"), this), 2, 2);
  keys->addWidget(d->modality, 2, 3);
  keys->addWidget(new QLabel(tr("Study date:"), this), 3, 0);
  auto* dates = new QHBoxLayout;
  dates->addWidget(d->dateFrom);
  dates->addWidget(d->dateTo);
  keys->addLayout(dates, 3, 1);
  keys->addWidget(new QLabel(tr("Description:"), this), 3, 2);
  keys->addWidget(d->description, 3, 3);
  keys->addWidget(d->search, 4, 3, Qt::AlignRight);

  d->studies = new QTableWidget(0, 8, this);
  d->studies->setHorizontalHeaderLabels({tr("Patient"), tr("Patient ID"), tr("Birth date"), tr("Study date"),
                                         tr("Description"), tr("Accession"), tr("Modalities"), tr("Series")});
  d->series = new QTableWidget(0, 4, this);
  d->series->setHorizontalHeaderLabels({tr("Number"), tr("Modality"), tr("Description"), tr("Instances")});
  for (QTableWidget* t : {d->studies, d->series}) {
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->verticalHeader()->hide();
    t->horizontalHeader()->setStretchLastSection(true);
    t->setSortingEnabled(true);
  }
  d->studies->setSelectionMode(QAbstractItemView::SingleSelection);
  d->series->setSelectionMode(QAbstractItemView::ExtendedSelection);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(d->studies);
  split->addWidget(d->series);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);

  d->import = new QCheckBox(tr("Import into the share:"), this);
  d->import->setToolTip(tr("Off: the series is kept in this computer's cache for a look, not imported"));
  d->share = new QLineEdit(QSettings().value("share/root").toString(), this);
  d->browseShare = new QPushButton(tr("Browse..."), this);
  d->import->setChecked(!d->share->text().isEmpty());
  auto* destination = new QHBoxLayout;
  destination->addWidget(d->import);
  destination->addWidget(d->share, 1);
  destination->addWidget(d->browseShare);

  d->retrieve = new QPushButton(tr("&Retrieve"), this);
  d->retrieve->setToolTip(tr("The chosen series, or all of the study's when none is chosen"));
  d->cancel = new QPushButton(tr("Cancel"), this);
  d->open = new QPushButton(tr("&Open"), this);
  d->progress = new QProgressBar(this);
  d->progress->setRange(0, 1000);
  d->progress->setTextVisible(false);  // shown while something runs, and after a retrieve
  d->state = new QLabel(this);
  d->state->setWordWrap(true);
  d->state->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* actions = new QHBoxLayout;
  actions->addWidget(d->progress, 1);
  actions->addWidget(d->cancel);
  actions->addWidget(d->retrieve);
  actions->addWidget(d->open);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(keys);
  layout->addWidget(split, 1);
  layout->addLayout(destination);
  layout->addLayout(actions);
  layout->addWidget(d->state);

  d->poll = new QTimer(this);
  d->poll->setInterval(100);
  connect(d->poll, &QTimer::timeout, this, &PacsBrowserDialog::pollProgress);
  connect(d->search, &QPushButton::clicked, this, [this] { search(); });
  for (QLineEdit* e : {d->name, d->patientId, d->accession, d->dateFrom, d->dateTo, d->description})
    connect(e, &QLineEdit::returnPressed, this, [this] { search(); });
  connect(d->studies, &QTableWidget::itemSelectionChanged, this, &PacsBrowserDialog::studyChosen);
  connect(d->retrieve, &QPushButton::clicked, this, [this] { retrieve(); });
  connect(d->cancel, &QPushButton::clicked, this, &PacsBrowserDialog::cancel);
  connect(d->open, &QPushButton::clicked, this, [this] { openRetrieved(); });
  connect(d->series, &QTableWidget::itemDoubleClicked, this, [this] { retrieve(); });
  connect(d->browseShare, &QPushButton::clicked, this, [this] {
    const QString folder = QFileDialog::getExistingDirectory(this, tr("Share to import into"), d->share->text());
    if (folder.isEmpty()) return;
    d->share->setText(folder);
    d->import->setChecked(true);
  });
  setRunning(false);
  d->open->setEnabled(false);
}

PacsBrowserDialog::~PacsBrowserDialog() {
  if (d->job) d->job->cancel();  // a worker still running finds its result dropped
}

void PacsBrowserDialog::setServers(const QList<PacsServer>& servers) {
  const QString current = d->server->currentText();
  d->servers = servers;
  d->server->clear();
  for (const PacsServer& s : servers) d->server->addItem(serverLabel(s));
  for (int i = 0; i < servers.size(); ++i)
    if (d->server->itemText(i) == current) d->server->setCurrentIndex(i);
  if (servers.isEmpty())
    showState(tr("No PACS server is set up: add one in Preferences, PACS Servers"), true);
}

bool PacsBrowserDialog::running() const { return d->job != nullptr; }

void PacsBrowserDialog::showState(const QString& message, bool error) {
  d->state->setStyleSheet(error ? QStringLiteral("color: #c0392b") : QString());
  d->state->setText(message);
}

void PacsBrowserDialog::setRunning(bool on) {
  d->search->setEnabled(!on);
  d->retrieve->setEnabled(!on);
  d->cancel->setEnabled(on);
  d->server->setEnabled(!on);
  if (on) {
    d->progress->setTextVisible(true);
    d->progress->setValue(0);
    d->progress->setFormat(QStringLiteral("%p%"));
    d->poll->start();
  } else {
    d->poll->stop();
    d->job.reset();
  }
}

bool PacsBrowserDialog::endQuery(const std::shared_ptr<JobProgress>& job) {
  if (d->job != job) return false;  // another job replaced it: its answer is stale
  setRunning(false);
  d->progress->setValue(0);
  d->progress->setTextVisible(false);  // a query's bar says nothing once it ended
  return true;
}

void PacsBrowserDialog::pollProgress() {
  if (!d->job) return;
  d->progress->setValue(int(d->job->fraction() * 1000));
  // io's stage names in words: the PACS's transfer, then the import's scan and verified copies.
  const std::string stage = d->job->stage();
  QString words = tr("Working");
  if (stage == "query" || stage == "find") words = tr("Searching");
  else if (stage == "retrieve") words = tr("Retrieving");
  else if (stage == "scan" || stage == "copy") words = tr("Importing into the share");
  d->progress->setFormat(words + QStringLiteral(" %p%"));
}

void PacsBrowserDialog::cancel() {
  if (!d->job) return;
  d->job->cancel();
  showState(tr("Cancelling..."), false);
}

bool PacsBrowserDialog::search() {
  if (d->job) return false;
  const PacsServer* server = d->chosenServer();
  if (!server) {
    showState(tr("No PACS server is set up: add one in Preferences, PACS Servers"), true);
    return false;
  }
  const auto from = dicomDate(d->dateFrom->text()), to = dicomDate(d->dateTo->text());
  if (!from || !to) {
    showState(tr("Study date: '%1' is not a date (YYYY-MM-DD)").arg(!from ? d->dateFrom->text() : d->dateTo->text()),
              true);
    return false;
  }
  const ServerSecret secret = secretFor(*server);
  if (!secret.error.isEmpty()) {
    showState(secret.error, true);
    return false;
  }
  io::QueryKeys keys;
  keys.patientName = d->name->text().trimmed().toStdString();
  keys.patientId = d->patientId->text().trimmed().toStdString();
  keys.accessionNumber = d->accession->text().trimmed().toStdString();
  keys.studyDescription = d->description->text().trimmed().toStdString();
  // The combo is editable: a modality typed in is asked for as typed; "Any" (the first entry) asks for none.
  const QString modality = d->modality->currentText().trimmed();
  if (modality != d->modality->itemText(0)) keys.modality = modality.toUpper().toStdString();
  if (!from->isEmpty() || !to->isEmpty()) keys.studyDate = (*from + "-" + *to).toStdString();
  if (*from == *to && !from->isEmpty()) keys.studyDate = from->toStdString();

  d->searchedOn = *server;
  d->searchedSecret = secret.secret;
  ++d->generation;
  d->studyMatches.clear();
  d->seriesMatches.clear();
  d->studies->setRowCount(0);
  d->series->setRowCount(0);
  d->openable.reset();
  d->open->setEnabled(false);
  d->job = std::make_shared<JobProgress>();
  setRunning(true);
  showState(tr("Searching %1...").arg(server->name), false);
  const PacsServer peer = *server;
  const QString secretText = secret.secret;
  auto job = d->job;
  using Found = core::Result<std::vector<io::QueryMatch>>;
  auto* watcher = new QFutureWatcher<std::shared_ptr<Found>>(this);
  connect(watcher, &QFutureWatcher<std::shared_ptr<Found>>::finished, this, [this, watcher, job] {
    const std::shared_ptr<Found> found = watcher->result();
    watcher->deleteLater();
    if (!endQuery(job)) return;
    if (!*found) {
      showState(found->error().code == core::ErrorCode::Cancelled ? tr("Search cancelled")
                                                                   : tr("Search failed: %1").arg(fromError(found->error())),
                true);
      Q_EMIT searched(false);
      return;
    }
    d->studyMatches = std::move(**found);
    d->studies->setSortingEnabled(false);
    d->studies->setRowCount(int(d->studyMatches.size()));
    for (int row = 0; row < int(d->studyMatches.size()); ++row) {
      const io::QueryMatch& m = d->studyMatches[std::size_t(row)];
      QString name = text(m.patientName);
      name.replace('^', ' ');
      auto* first = new SortItem(name.trimmed(), name);
      first->setData(Qt::UserRole, row);
      d->studies->setItem(row, 0, first);
      d->studies->setItem(row, 1, new SortItem(text(m.patientId), text(m.patientId)));
      d->studies->setItem(row, 2, new SortItem(shownDate(m.patientBirthDate), text(m.patientBirthDate)));
      d->studies->setItem(row, 3, new SortItem(shownDate(m.studyDate), text(m.studyDate + m.studyTime)));
      d->studies->setItem(row, 4, new SortItem(text(m.studyDescription), text(m.studyDescription)));
      d->studies->setItem(row, 5, new SortItem(text(m.accessionNumber), text(m.accessionNumber)));
      const QString modalities = text(m.modalitiesInStudy).split('\\', Qt::SkipEmptyParts).join(QStringLiteral(", "));
      d->studies->setItem(row, 6, new SortItem(modalities, modalities));
      d->studies->setItem(row, 7, new SortItem(m.studySeries >= 0 ? QString::number(m.studySeries) : QString(),
                                               m.studySeries));
    }
    d->studies->setSortingEnabled(true);
    d->studies->sortByColumn(3, Qt::DescendingOrder);
    d->studies->resizeColumnsToContents();
    showState(tr("Studies found on %1: %2").arg(d->searchedOn.name).arg(d->studyMatches.size()), false);
    Q_EMIT searched(true);
  });
  watcher->setFuture(QtConcurrent::run(&d->bench->workers(), [peer, secretText, keys, job] {
    return std::make_shared<Found>(pacsFind(peer, secretText, io::QueryLevel::Study, keys, job.get()));
  }));
  return true;
}

void PacsBrowserDialog::studyChosen() {
  d->series->setRowCount(0);
  d->seriesMatches.clear();
  if (d->job) return;  // the selection changes while a retrieve runs: its series stay as they were listed
  listSeries();
}

void PacsBrowserDialog::listSeries() {
  const QList<QTableWidgetItem*> chosen = d->studies->selectedItems();
  if (chosen.isEmpty()) return;
  const int index = d->studies->item(chosen.first()->row(), 0)->data(Qt::UserRole).toInt();
  if (index < 0 || index >= int(d->studyMatches.size())) return;
  const io::QueryMatch study = d->studyMatches[std::size_t(index)];
  io::QueryKeys keys;
  keys.studyInstanceUid = study.studyInstanceUid;
  d->job = std::make_shared<JobProgress>();
  setRunning(true);
  showState(tr("Listing the series of the study..."), false);
  const PacsServer peer = d->searchedOn;
  const QString secret = d->searchedSecret;
  auto job = d->job;
  const int generation = d->generation;
  using Found = core::Result<std::vector<io::QueryMatch>>;
  auto* watcher = new QFutureWatcher<std::shared_ptr<Found>>(this);
  connect(watcher, &QFutureWatcher<std::shared_ptr<Found>>::finished, this, [this, watcher, job, generation, study] {
    const std::shared_ptr<Found> found = watcher->result();
    watcher->deleteLater();
    if (!endQuery(job) || generation != d->generation) return;
    if (!*found) {
      showState(tr("The series could not be listed: %1").arg(fromError(found->error())), true);
      Q_EMIT seriesListed(false);
      return;
    }
    d->seriesMatches = std::move(**found);
    for (io::QueryMatch& m : d->seriesMatches) {
      // What the series-level answer leaves out comes from the study's own match.
      if (m.studyInstanceUid.empty()) m.studyInstanceUid = study.studyInstanceUid;
    }
    d->series->setSortingEnabled(false);
    d->series->setRowCount(int(d->seriesMatches.size()));
    for (int row = 0; row < int(d->seriesMatches.size()); ++row) {
      const io::QueryMatch& m = d->seriesMatches[std::size_t(row)];
      auto* first = new SortItem(text(m.seriesNumber), text(m.seriesNumber).toInt());
      first->setData(Qt::UserRole, row);
      d->series->setItem(row, 0, first);
      d->series->setItem(row, 1, new SortItem(text(m.modality), text(m.modality)));
      d->series->setItem(row, 2, new SortItem(text(m.seriesDescription), text(m.seriesDescription)));
      d->series->setItem(row, 3, new SortItem(m.instances >= 0 ? QString::number(m.instances) : QString(), m.instances));
    }
    d->series->setSortingEnabled(true);
    d->series->sortByColumn(0, Qt::AscendingOrder);
    d->series->resizeColumnsToContents();
    showState(tr("%n series in the study", nullptr, int(d->seriesMatches.size())), false);
    Q_EMIT seriesListed(true);
  });
  watcher->setFuture(QtConcurrent::run(&d->bench->workers(), [peer, secret, keys, job] {
    return std::make_shared<Found>(pacsFind(peer, secret, io::QueryLevel::Series, keys, job.get()));
  }));
}

bool PacsBrowserDialog::retrieve() {
  if (d->job) return false;
  if (d->seriesMatches.empty()) {
    showState(tr("Choose a study first (its series are listed below it)"), true);
    return false;
  }
  // The chosen series in the table's order, else all of them.
  std::vector<io::QueryMatch> series;
  std::set<int> rows;
  for (QTableWidgetItem* item : d->series->selectedItems()) rows.insert(item->row());
  for (int row : rows) series.push_back(d->seriesMatches[std::size_t(d->series->item(row, 0)->data(Qt::UserRole).toInt())]);
  if (series.empty()) series = d->seriesMatches;

  QStringList folders;
  for (const io::QueryMatch& s : series) {
    QString why;
    const QString folder = pacsCacheFolder(s.studyInstanceUid, s.seriesInstanceUid, &why);
    if (folder.isEmpty()) {
      showState(why, true);
      return false;
    }
    folders << folder;
  }
  const bool import = d->import->isChecked();
  const std::string root = d->share->text().trimmed().toStdString();
  if (import && root.empty()) {
    showState(tr("Choose the share to import into, or turn Import into the share off for a look"), true);
    return false;
  }
  io::StudyImportOptions options;
  if (import) {
    if (!ensureAuthor(*d->bench)) {
      showState(tr("No author name: the retrieve was not started"), true);
      return false;
    }
    options.author = authorName().toStdString();
    QSettings().setValue("share/root", d->share->text().trimmed());
  }
  d->openable.reset();
  d->open->setEnabled(false);
  d->job = std::make_shared<JobProgress>();
  setRunning(true);
  showState(tr("Retrieving %n series from %1...", nullptr, int(series.size())).arg(d->searchedOn.name), false);
  const PacsServer peer = d->searchedOn;
  const QString secret = d->searchedSecret;
  auto job = d->job;
  auto* watcher = new QFutureWatcher<std::shared_ptr<RetrieveOutcome>>(this);
  connect(watcher, &QFutureWatcher<std::shared_ptr<RetrieveOutcome>>::finished, this, [this, watcher, job, import] {
    const std::shared_ptr<RetrieveOutcome> out = watcher->result();
    watcher->deleteLater();
    if (d->job != job) return;
    setRunning(false);
    const io::RetrieveResult& r = out->total;
    QString summary = tr("Instances retrieved: %1 (%2 MB), already here: %3")
                          .arg(r.received)
                          .arg(double(r.bytes) / 1e6, 0, 'f', 1)
                          .arg(r.alreadyHere);
    if (!out->status) {
      const bool cancelled = out->status.error().code == core::ErrorCode::Cancelled;
      showState((cancelled ? tr("Retrieve cancelled: what arrived stays, Retrieve again finishes it")
                           : tr("Retrieve failed: %1").arg(fromError(out->status.error()))) +
                    "\n" + summary,
                true);
      Q_EMIT retrieved(false);
      return;
    }
    if (r.failed > 0) summary += "; " + tr("instances that did not arrive: %1 (Retrieve again asks for them)").arg(r.failed);
    for (const std::string& w : r.warnings) summary += "\n" + text(w);
    // The series to open: the first image series retrieved.
    std::size_t pick = 0;
    while (pick < out->series.size() && !isImageSeries(out->series[pick].modality)) ++pick;
    if (import) {
      if (!out->import.report) {
        showState(summary + "\n" + tr("Import into the share failed: %1").arg(fromError(out->import.report.error())), true);
        Q_EMIT retrieved(false);
        return;
      }
      const io::StudyImportReport& report = *out->import.report;
      int copied = 0;
      for (const auto& s : report.series) copied += s.copied;
      summary += "\n" + tr("Imported into the share: %n series, files copied: %1", nullptr, int(report.series.size())).arg(copied);
      if (!out->import.auditWarning.empty())
        summary += "\n" + tr("The audit record was not written: %1").arg(text(out->import.auditWarning));
      if (pick < out->series.size()) {
        const std::string study = io::shareNameFromUid(out->series[pick].studyInstanceUid);
        const std::string name = io::shareNameFromUid(out->series[pick].seriesInstanceUid);
        for (const auto& s : report.series)
          if (s.study == study && s.series == name)
            d->openable = PacsOpenRequest{{}, d->share->text().trimmed(), text(s.study), text(s.series)};
      }
    } else if (pick < out->series.size()) {
      d->openable = PacsOpenRequest{out->folders[int(pick)], {}, {}, {}};
    }
    d->open->setEnabled(d->openable.has_value() && r.failed == 0);
    d->progress->setValue(1000);
    showState(summary, r.failed > 0);
    Q_EMIT retrieved(r.failed == 0);
  });
  const std::string source = "PACS " + peer.address().toStdString();
  watcher->setFuture(QtConcurrent::run(&d->bench->workers(), [peer, secret, series, folders, job, import, root, options,
                                                              source]() mutable {
    auto out = std::make_shared<RetrieveOutcome>();
    out->series = series;
    out->folders = folders;
    const int parts = int(series.size()) + (import ? 1 : 0);
    for (std::size_t i = 0; i < series.size(); ++i) {
      PartProgress part(*job, int(i), parts);
      io::RetrieveRequest request{series[i].studyInstanceUid, series[i].seriesInstanceUid, {}};
      auto got = pacsRetrieve(peer, secret, request, folders[int(i)].toStdString(), &part);
      if (!got) {
        out->status = got.error();
        return out;
      }
      out->total.received += got->received;
      out->total.alreadyHere += got->alreadyHere;
      out->total.failed += got->failed;
      out->total.bytes += got->bytes;
      out->total.warnings.insert(out->total.warnings.end(), got->warnings.begin(), got->warnings.end());
    }
    if (import && out->total.failed == 0) {
      PartProgress part(*job, parts - 1, parts);
      options.progress = &part;
      std::vector<std::string> inputs;
      for (const QString& f : folders) inputs.push_back(f.toStdString());
      out->import = importIntoShareNow(root, inputs, options, {}, source);
      out->imported = true;
      // On the share now, verified: the cache's copy goes (patient data kept once). A failed import keeps it, so
      // Retrieve again resumes from what arrived.
      if (out->import.report)
        for (const QString& f : folders) {
          std::error_code ignored;
          std::filesystem::remove_all(f.toStdString(), ignored);
        }
    }
    return out;
  }));
  return true;
}

bool PacsBrowserDialog::openRetrieved() {
  if (!d->openable) return false;
  Q_EMIT openRequested(*d->openable);
  return true;
}

QComboBox* PacsBrowserDialog::serverBox() const { return d->server; }
QLineEdit* PacsBrowserDialog::patientNameField() const { return d->name; }
QLineEdit* PacsBrowserDialog::patientIdField() const { return d->patientId; }
QLineEdit* PacsBrowserDialog::accessionField() const { return d->accession; }
QLineEdit* PacsBrowserDialog::dateFromField() const { return d->dateFrom; }
QLineEdit* PacsBrowserDialog::dateToField() const { return d->dateTo; }
QComboBox* PacsBrowserDialog::modalityBox() const { return d->modality; }
QLineEdit* PacsBrowserDialog::descriptionField() const { return d->description; }
QPushButton* PacsBrowserDialog::searchButton() const { return d->search; }
QTableWidget* PacsBrowserDialog::studyTable() const { return d->studies; }
QTableWidget* PacsBrowserDialog::seriesTable() const { return d->series; }
QCheckBox* PacsBrowserDialog::importBox() const { return d->import; }
QLineEdit* PacsBrowserDialog::shareField() const { return d->share; }
QPushButton* PacsBrowserDialog::retrieveButton() const { return d->retrieve; }
QPushButton* PacsBrowserDialog::cancelButton() const { return d->cancel; }
QPushButton* PacsBrowserDialog::openButton() const { return d->open; }
QProgressBar* PacsBrowserDialog::progressBar() const { return d->progress; }
QLabel* PacsBrowserDialog::stateLabel() const { return d->state; }

}  // namespace delineate::app::gui
