#include "app/gui/study/study_browser.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QEventLoop>
#include <QFileDialog>
#include <QFormLayout>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrent>

#include <map>
#include <vector>

#include "app/gui/base/author_name.h"
#include "app/gui/base/error_text.h"
#include "io/base/process_info.h"
#include "io/share/share_datasets.h"
#include "io/share/share_lease.h"
#include "io/share/share_reviews.h"
#include "io/share/share_revisions.h"
#include "io/share/share_store.h"
#include "io/studies/study_index.h"
#include "io/studies/study_store.h"

namespace delineate::app::gui {
namespace {

// At most this many rows are shown; a search narrows them (the count of all matches is shown).
constexpr int kShownRows = 500;
constexpr int kPollMs = 3000;
constexpr int kOpenWaitMs = 5000;

// Columns and the index's sort key for each.
struct Column {
  const char* title;
  const char* sortKey;
};
const Column kColumns[] = {
    {QT_TRANSLATE_NOOP("delineate::app::gui::StudyBrowserDialog", "Patient ID"), "patientId"},
    {QT_TRANSLATE_NOOP("delineate::app::gui::StudyBrowserDialog", "Patient"), "patient"},
    {QT_TRANSLATE_NOOP("delineate::app::gui::StudyBrowserDialog", "Date"), "date"},
    {QT_TRANSLATE_NOOP("delineate::app::gui::StudyBrowserDialog", "Modality"), "modality"},
    {QT_TRANSLATE_NOOP("delineate::app::gui::StudyBrowserDialog", "Description"), "description"},
    {QT_TRANSLATE_NOOP("delineate::app::gui::StudyBrowserDialog", "Label sets"), "labels"},
    {QT_TRANSLATE_NOOP("delineate::app::gui::StudyBrowserDialog", "Latest revision"), "revision"},
    {QT_TRANSLATE_NOOP("delineate::app::gui::StudyBrowserDialog", "Review"), "review"},
    {QT_TRANSLATE_NOOP("delineate::app::gui::StudyBrowserDialog", "Editing"), "editing"},
    {QT_TRANSLATE_NOOP("delineate::app::gui::StudyBrowserDialog", "Study"), "study"},
};
constexpr int kColumnCount = int(sizeof kColumns / sizeof kColumns[0]);

QString qs(const std::string& s) { return QString::fromStdString(s); }

QString dateText(const std::string& d) {
  return d.size() == 8 ? qs(d.substr(0, 4) + "-" + d.substr(4, 2) + "-" + d.substr(6, 2)) : qs(d);
}

struct RefreshOutcome {
  QString error;
  QStringList problems;
};

struct RevisionChoice {
  std::string labelSet;
  io::RevisionInfo info;
  std::string review;  // none, submitted, approved, rejected
  std::string boundSeries;
};

struct StudyDetails {
  QString study;
  QString error;
  std::vector<io::SeriesManifest> series;
  std::vector<std::string> seriesInProgress;
  std::vector<RevisionChoice> revisions;  // newest first within each set
  QStringList editing;                    // "organs: ann@ws12"
  QStringList problems;
};

StudyDetails readDetails(const std::string& root, const std::string& study) {
  StudyDetails out;
  out.study = qs(study);
  auto store = io::ShareStore::open(root);
  if (!store) {
    out.error = fromError(store.error());
    return out;
  }
  auto listing = io::listStudy(*store, study);
  if (!listing) {
    out.error = fromError(listing.error());
    return out;
  }
  out.series = listing->series;
  out.seriesInProgress = listing->seriesInProgress;
  for (const auto& d : listing->damaged) out.problems << qs(d);
  for (const auto& set : listing->labelSets) {
    auto revisions = io::LabelSetRevisions::open(*store, study, set.name);
    if (!revisions) continue;
    auto list = revisions->list();
    if (!list) {
      out.problems << fromError(list.error());
      continue;
    }
    std::vector<io::RevisionReview> reviews;
    if (auto all = io::LabelSetReviews(*revisions).all()) reviews = std::move(all).value();
    for (auto it = list->revisions.rbegin(); it != list->revisions.rend(); ++it) {
      RevisionChoice c{set.name, *it, "none", {}};
      for (const auto& r : reviews)
        if (r.revision == it->number) c.review = io::reviewStateName(r.state);
      std::string boundStudy;
      io::parseLabelBinding(it->extraJson, &boundStudy, &c.boundSeries);
      out.revisions.push_back(std::move(c));
    }
    if (auto lease = io::ShareLease::prepare(*store, revisions->folder(), {}); lease)
      if (auto holder = lease->current(); holder && holder->has_value() && !(*holder)->expired)
        out.editing << qs(set.name + ": " + (*holder)->user + "@" + (*holder)->host);
  }
  return out;
}

}  // namespace

struct StudyBrowserDialog::Impl {
  QString root, error, indexPath;
  std::optional<io::ShareStore> store;
  std::optional<io::StudyIndex> index;  // this dialog's connection (searches); refreshes use their own
  QLineEdit* search = nullptr;
  QComboBox* modality = nullptr;
  QComboBox* status = nullptr;
  QLineEdit* dateFrom = nullptr;
  QLineEdit* dateTo = nullptr;
  QLabel* rootLabel = nullptr;
  QLabel* summary = nullptr;
  QTableWidget* table = nullptr;
  QComboBox* series = nullptr;
  QComboBox* revision = nullptr;
  QLabel* detail = nullptr;
  QPushButton* open = nullptr;
  QPushButton* makeDataset = nullptr;
  QLabel* datasetStatus = nullptr;
  bool saving = false;
  QString datasetMessage;
  QTimer poll;
  bool refreshing = false;
  int sortColumn = 2;  // date
  bool descending = true;
  int shown = 0, matching = 0;
  StudyDetails details;  // of the chosen study
  int detailsGeneration = 0;
};

StudyBrowserDialog::StudyBrowserDialog(QWidget* parent) : QDialog(parent), d(std::make_unique<Impl>()) {
  setWindowTitle(tr("Open from Share"));
  resize(1100, 640);
  auto* layout = new QVBoxLayout(this);

  auto* rootRow = new QHBoxLayout;
  d->rootLabel = new QLabel(this);
  d->rootLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* change = new QPushButton(tr("Share Folder..."), this);
  rootRow->addWidget(d->rootLabel, 1);
  rootRow->addWidget(change);
  layout->addLayout(rootRow);

  auto* filters = new QHBoxLayout;
  d->search = new QLineEdit(this);
  d->search->setPlaceholderText(tr("Search patient ID or name, description, study"));
  d->search->setClearButtonEnabled(true);
  d->modality = new QComboBox(this);
  d->modality->addItem(tr("Any modality"), QString());
  for (const char* m : {"CT", "MR", "PT", "NM", "US", "CR", "DX", "MG", "XA", "SEG"}) d->modality->addItem(m, QString(m));
  d->status = new QComboBox(this);
  d->status->addItem(tr("Any label status"), QString());
  d->status->addItem(tr("No labels"), QString("none"));
  d->status->addItem(tr("Being edited"), QString("editing"));
  d->status->addItem(tr("Has revisions"), QString("revisions"));
  d->status->addItem(tr("Submitted for review"), QString("submitted"));
  d->status->addItem(tr("Approved"), QString("approved"));
  d->dateFrom = new QLineEdit(this);
  d->dateFrom->setPlaceholderText(tr("from YYYY-MM-DD"));
  d->dateTo = new QLineEdit(this);
  d->dateTo->setPlaceholderText(tr("to YYYY-MM-DD"));
  for (QLineEdit* e : {d->dateFrom, d->dateTo}) e->setMaximumWidth(130);
  filters->addWidget(d->search, 1);
  filters->addWidget(d->modality);
  filters->addWidget(d->status);
  filters->addWidget(d->dateFrom);
  filters->addWidget(d->dateTo);
  layout->addLayout(filters);

  d->table = new QTableWidget(0, kColumnCount, this);
  QStringList headers;
  for (const Column& c : kColumns) headers << tr(c.title);
  d->table->setHorizontalHeaderLabels(headers);
  d->table->setSelectionBehavior(QAbstractItemView::SelectRows);
  d->table->setSelectionMode(QAbstractItemView::ExtendedSelection);  // several: a dataset of them
  d->table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  d->table->verticalHeader()->hide();
  d->table->horizontalHeader()->setSectionsClickable(true);
  d->table->horizontalHeader()->setSortIndicatorShown(true);
  d->table->horizontalHeader()->setSortIndicator(d->sortColumn, Qt::DescendingOrder);
  d->table->horizontalHeader()->setStretchLastSection(true);
  layout->addWidget(d->table, 1);
  d->summary = new QLabel(this);
  layout->addWidget(d->summary);
  d->datasetStatus = new QLabel(this);  // what Make Dataset saved (kept while the table refills)
  d->datasetStatus->setObjectName("browser-dataset-status");
  d->datasetStatus->setWordWrap(true);
  layout->addWidget(d->datasetStatus);

  auto* chooser = new QFormLayout;
  d->series = new QComboBox(this);
  d->revision = new QComboBox(this);
  d->detail = new QLabel(this);
  d->detail->setWordWrap(true);
  chooser->addRow(tr("Series:"), d->series);
  chooser->addRow(tr("Labels:"), d->revision);
  chooser->addRow(QString(), d->detail);
  layout->addLayout(chooser);

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, this);
  d->open = buttons->button(QDialogButtonBox::Open);
  d->open->setEnabled(false);
  d->makeDataset = buttons->addButton(tr("Make Dataset..."), QDialogButtonBox::ActionRole);
  d->makeDataset->setObjectName("browser-make-dataset");
  d->makeDataset->setToolTip(tr("A training dataset of the chosen studies' labels (choose several with Ctrl or Shift)"));
  d->makeDataset->setEnabled(false);
  connect(d->makeDataset, &QPushButton::clicked, this, [this] { askDataset(); });
  layout->addWidget(buttons);

  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(change, &QPushButton::clicked, this, [this] {
    const QString folder = QFileDialog::getExistingDirectory(this, tr("Share Folder"), d->root);
    if (!folder.isEmpty() && !setRoot(folder)) d->summary->setText(d->error);
  });
  connect(d->search, &QLineEdit::textChanged, this, [this] { fillTable(); });
  connect(d->modality, &QComboBox::currentIndexChanged, this, [this] { fillTable(); });
  connect(d->status, &QComboBox::currentIndexChanged, this, [this] { fillTable(); });
  connect(d->dateFrom, &QLineEdit::textChanged, this, [this] { fillTable(); });
  connect(d->dateTo, &QLineEdit::textChanged, this, [this] { fillTable(); });
  connect(d->table->horizontalHeader(), &QHeaderView::sectionClicked, this, [this](int c) { sortBy(c); });
  connect(d->table, &QTableWidget::itemSelectionChanged, this, [this] {
    d->makeDataset->setEnabled(!selectedStudies().isEmpty() && !d->saving);
    studyChosen();
  });
  connect(d->table, &QTableWidget::cellDoubleClicked, this, [this] {
    if (d->open->isEnabled()) accept();
  });
  connect(d->series, &QComboBox::currentIndexChanged, this, [this] { d->open->setEnabled(d->series->currentIndex() >= 0); });
  d->poll.setInterval(kPollMs);
  connect(&d->poll, &QTimer::timeout, this, [this] { startRefresh(); });
}

StudyBrowserDialog::~StudyBrowserDialog() = default;

bool StudyBrowserDialog::setRoot(const QString& root) {
  // Opening reads the share's sentinel: on a worker, waited for a few seconds at most, so a hung mount costs the
  // user a message rather than a frozen window (the worker ends whenever the share answers).
  struct Opened {
    std::optional<io::ShareStore> store;
    std::optional<io::StudyIndex> index;
    QString error;
  };
  auto future = QtConcurrent::run([r = root.toStdString()] {
    auto out = std::make_shared<Opened>();
    auto store = io::ShareStore::open(r);
    if (!store) {
      out->error = fromError(store.error());
      return out;
    }
    out->store.emplace(std::move(*store));
    auto index = io::StudyIndex::open(*out->store);
    if (!index) out->error = fromError(index.error());
    else out->index.emplace(std::move(*index));
    return out;
  });
  QFutureWatcher<std::shared_ptr<Opened>> watcher;
  QEventLoop wait;
  QTimer::singleShot(kOpenWaitMs, &wait, &QEventLoop::quit);
  connect(&watcher, &QFutureWatcher<std::shared_ptr<Opened>>::finished, &wait, &QEventLoop::quit);
  watcher.setFuture(future);
  if (!future.isFinished()) wait.exec(QEventLoop::ExcludeUserInputEvents);
  if (!future.isFinished()) {
    d->error = tr("%1: the share does not answer (a hung network mount?)").arg(root);
    return false;
  }
  const std::shared_ptr<Opened> opened = future.result();
  if (!opened->error.isEmpty()) {
    d->error = opened->error;
    return false;
  }
  auto& store = opened->store;
  auto& index = opened->index;
  d->root = root;
  d->indexPath = QString::fromStdString(index->path());
  d->store.emplace(std::move(*store));
  d->index.emplace(std::move(*index));
  d->rootLabel->setText(tr("Share: %1").arg(root));
  d->table->setRowCount(0);
  fillTable();  // what the index already knows, at once
  startRefresh();
  d->poll.start();
  return true;
}

QStringList StudyBrowserDialog::selectedStudies() const {
  QStringList out;
  for (const auto& index : d->table->selectionModel()->selectedRows())
    if (auto* item = d->table->item(index.row(), kColumnCount - 1)) out << item->text();
  out.sort();
  return out;
}

QPushButton* StudyBrowserDialog::makeDatasetButton() const { return d->makeDataset; }
QString StudyBrowserDialog::datasetMessage() const { return d->datasetMessage; }

void StudyBrowserDialog::askDataset() {
  const QStringList studies = selectedStudies();
  if (studies.isEmpty()) return;
  // The label sets the chosen studies hold (the table's column), the most common first.
  std::map<QString, int> sets;
  for (const auto& index : d->table->selectionModel()->selectedRows())
    if (auto* item = d->table->item(index.row(), 5))
      for (const QString& set : item->text().split(QRegularExpression("[,\\s]+"), Qt::SkipEmptyParts)) ++sets[set];
  QStringList names;
  for (const auto& [name, count] : sets) names << name;
  std::stable_sort(names.begin(), names.end(), [&](const QString& a, const QString& b) { return sets[a] > sets[b]; });
  QDialog ask(this);
  ask.setWindowTitle(tr("Make Dataset"));
  auto* form = new QFormLayout(&ask);
  auto* name = new QLineEdit(&ask);
  name->setObjectName("dataset-name");
  auto* labelSet = new QComboBox(&ask);
  labelSet->setEditable(true);
  labelSet->addItems(names);
  auto* approved = new QCheckBox(tr("Approved revisions only"), &ask);
  approved->setChecked(true);
  auto* validation = new QSpinBox(&ask);
  validation->setRange(0, 90);
  validation->setValue(20);
  validation->setSuffix(" %");
  name->setText(labelSet->currentText().isEmpty() ? QString("dataset") : labelSet->currentText() + "-set");
  form->addRow(tr("Studies (%1):").arg(studies.size()), new QLabel(studies.join(", ").left(200), &ask));
  form->addRow(tr("Name:"), name);
  form->addRow(tr("Label set:"), labelSet);
  form->addRow(QString(), approved);
  form->addRow(tr("Validation:"), validation);
  auto* box = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, &ask);
  form->addRow(box);
  connect(box, &QDialogButtonBox::accepted, &ask, &QDialog::accept);
  connect(box, &QDialogButtonBox::rejected, &ask, &QDialog::reject);
  if (ask.exec() != QDialog::Accepted) return;
  // The studies the dialog named (the table may have been refilled while it was open).
  makeDataset(name->text().trimmed(), labelSet->currentText().trimmed(), approved->isChecked(), validation->value(), studies);
}

void StudyBrowserDialog::done(int result) {
  if (d->saving) return;  // a dataset being saved: its outcome is said here, then the dialog may close
  QDialog::done(result);
}

bool StudyBrowserDialog::makeDataset(const QString& name, const QString& labelSet, bool approvedOnly, int validationPercent,
                                     QStringList studies) {
  if (d->saving || !d->store) return false;
  if (studies.isEmpty()) studies = selectedStudies();
  if (studies.isEmpty() || name.isEmpty() || labelSet.isEmpty()) {
    d->datasetMessage = tr("A dataset needs chosen studies, a name and a label set");
    d->datasetStatus->setText(d->datasetMessage);
    return false;
  }
  d->saving = true;
  d->makeDataset->setEnabled(false);
  d->open->setEnabled(false);
  d->datasetStatus->setText(tr("Saving dataset %1...").arg(name));
  struct Saved {
    QString message;
    bool ok = false;
    int revision = 0;
  };
  std::vector<std::string> chosen;
  for (const QString& s : studies) chosen.push_back(s.toStdString());
  auto* watcher = new QFutureWatcher<std::shared_ptr<Saved>>(this);
  connect(watcher, &QFutureWatcher<std::shared_ptr<Saved>>::finished, this, [this, watcher, name] {
    const auto saved = watcher->result();
    watcher->deleteLater();
    d->saving = false;
    d->makeDataset->setEnabled(!selectedStudies().isEmpty());
    d->datasetMessage = saved->message;
    d->datasetStatus->setText(saved->message);
    d->open->setEnabled(d->series->currentIndex() >= 0);
    if (saved->ok) Q_EMIT datasetSaved(name, saved->revision);
    else Q_EMIT datasetFailed(saved->message);
  });
  watcher->setFuture(QtConcurrent::run([store = *d->store, chosen, n = name.toStdString(), set = labelSet.toStdString(),
                                        approvedOnly, validationPercent] {
    auto out = std::make_shared<Saved>();
    auto fail = [&](const core::Error& e) {
      out->message = tr("Dataset %1 not saved: %2").arg(QString::fromStdString(n), fromError(e));
      return out;
    };
    auto datasets = io::DatasetRevisions::open(store, n);
    if (!datasets) return fail(datasets.error());
    std::vector<std::string> skipped;
    auto entries = io::revisionsOfStudies(store, set, chosen, approvedOnly, &skipped);
    if (!entries) return fail(entries.error());
    if (entries->empty())
      return fail(core::makeError(core::ErrorCode::NotFound, set,
                                  approvedOnly ? "none of the chosen studies has an approved revision of it"
                                               : "none of the chosen studies has a revision of it"));
    const double v = validationPercent / 100.0;
    const double fractions[3] = {1.0 - v, v, 0.0};
    const bool movedToValidation = io::assignSplits(*entries, fractions, n);
    io::Dataset dataset;
    dataset.name = n;
    dataset.source = (approvedOnly ? "newest approved revisions of label set " : "newest revisions of label set ") + set +
                     " in studies chosen in the study browser, validation " + std::to_string(validationPercent) + "% keyed by '" + n + "'";
    dataset.entries = std::move(*entries);
    auto list = datasets->list();
    if (!list) return fail(list.error());
    io::SaveRequest request;
    request.author = authorName().toStdString();
    request.baseRevision = list->latest();
    auto info = datasets->saveDataset(dataset, request);
    if (!info) return fail(info.error());
    int validation = 0;
    for (const auto& e : dataset.entries) validation += e.split == "validation";
    out->ok = true;
    out->revision = info->number;
    out->message = tr("Saved dataset %1 version %2: %3 entries (%4 train, %5 validation)")
                       .arg(QString::fromStdString(n))
                       .arg(info->number)
                       .arg(dataset.entries.size())
                       .arg(static_cast<int>(dataset.entries.size()) - validation)
                       .arg(validation);
    // A small dataset: its validation share drew no study, so one validates (else the model is never measured).
    if (movedToValidation)
      out->message += "; " + tr("%1% of %2 studies rounds to none: one study validates so that the model is measured")
                                 .arg(validationPercent)
                                 .arg(dataset.entries.size());
    else if (validation == 0 && validationPercent > 0)
      out->message += "; " + tr("warning: no validation study (one study cannot both train and validate): the model "
                                "will not be validated");
    if (!skipped.empty()) {
      QStringList lines;
      for (const auto& s : skipped) lines << QString::fromStdString(s);
      out->message += "; " + tr("skipped %1").arg(lines.join("; "));
    }
    return out;
  }));
  return true;
}

QString StudyBrowserDialog::root() const { return d->root; }
QString StudyBrowserDialog::error() const { return d->error; }
QLineEdit* StudyBrowserDialog::searchField() const { return d->search; }
QComboBox* StudyBrowserDialog::modalityBox() const { return d->modality; }
QComboBox* StudyBrowserDialog::statusBox() const { return d->status; }
QLineEdit* StudyBrowserDialog::dateFromField() const { return d->dateFrom; }
QLineEdit* StudyBrowserDialog::dateToField() const { return d->dateTo; }
QTableWidget* StudyBrowserDialog::table() const { return d->table; }
QComboBox* StudyBrowserDialog::seriesBox() const { return d->series; }
QComboBox* StudyBrowserDialog::revisionBox() const { return d->revision; }
QLabel* StudyBrowserDialog::studyDetail() const { return d->detail; }
QPushButton* StudyBrowserDialog::openButton() const { return d->open; }
int StudyBrowserDialog::shownRows() const { return d->shown; }
int StudyBrowserDialog::matchingStudies() const { return d->matching; }

void StudyBrowserDialog::startRefresh() {
  if (d->refreshing || d->root.isEmpty()) return;
  d->refreshing = true;
  if (d->shown == 0) d->summary->setText(tr("Reading the share's catalogue..."));
  const std::string root = d->root.toStdString(), indexPath = d->indexPath.toStdString();
  auto* watcher = new QFutureWatcher<RefreshOutcome>(this);
  connect(watcher, &QFutureWatcher<RefreshOutcome>::finished, this, [this, watcher, root] {
    const RefreshOutcome outcome = watcher->result();
    watcher->deleteLater();
    d->refreshing = false;
    if (root != d->root.toStdString()) return;  // another share was chosen meanwhile
    if (!outcome.error.isEmpty()) {
      d->summary->setText(tr("The share's catalogue could not be read: %1").arg(outcome.error));
      return;
    }
    fillTable();
    if (!outcome.problems.isEmpty())
      d->summary->setText(d->summary->text() + "  " +
                          tr("%n damaged catalogue entries skipped: %1", nullptr, int(outcome.problems.size()))
                              .arg(outcome.problems.first()));
    Q_EMIT refreshed();
  });
  // Its own connection to the index: a search in the dialog never waits for this catch-up with the share.
  watcher->setFuture(QtConcurrent::run([root, indexPath] {
    RefreshOutcome out;
    auto store = io::ShareStore::open(root);
    if (!store) {
      out.error = fromError(store.error());
      return out;
    }
    auto index = io::StudyIndex::open(*store, indexPath);
    if (!index) {
      out.error = fromError(index.error());
      return out;
    }
    auto refreshed = index->refresh();
    if (!refreshed) {
      out.error = fromError(refreshed.error());
      return out;
    }
    for (const auto& p : refreshed->newProblems) out.problems << qs(p);
    return out;
  }));
}

void StudyBrowserDialog::sortBy(int column) {
  if (column < 0 || column >= kColumnCount) return;
  d->descending = column == d->sortColumn ? !d->descending : (column == 2 || column == 6);  // dates: newest first
  d->sortColumn = column;
  d->table->horizontalHeader()->setSortIndicator(column, d->descending ? Qt::DescendingOrder : Qt::AscendingOrder);
  fillTable();
}

void StudyBrowserDialog::fillTable() {
  if (!d->index) return;
  io::StudyQuery q;
  q.text = d->search->text().trimmed().toStdString();
  q.modality = d->modality->currentData().toString().toStdString();
  q.status = d->status->currentData().toString().toStdString();
  for (auto [field, target] : {std::pair{d->dateFrom, &q.dateFrom}, {d->dateTo, &q.dateTo}}) {
    const QString text = field->text().trimmed();
    const bool valid = text.isEmpty() || !io::normalizeStudyDate(text.toStdString()).empty();
    field->setStyleSheet(valid ? QString() : QStringLiteral("color: #c0392b"));
    if (valid) *target = text.toStdString();
  }
  q.sortBy = kColumns[d->sortColumn].sortKey;
  q.descending = d->descending;
  q.limit = kShownRows;
  auto rows = d->index->search(q);
  auto total = d->index->count(q);
  if (!rows || !total) {
    d->summary->setText(fromError(rows ? total.error() : rows.error()));
    return;
  }
  // The current row counts only while it is chosen (Ctrl+click leaves a row current but no longer chosen).
  const int current = d->table->currentRow();
  const QString selected = current >= 0 && d->table->item(current, kColumnCount - 1) &&
                                   d->table->selectionModel()->isRowSelected(current, QModelIndex())
                               ? d->table->item(current, kColumnCount - 1)->text()
                               : QString();
  const QStringList chosen = selectedStudies();  // every chosen study stays chosen (a dataset is made of them)
  const QSignalBlocker block(d->table);
  d->table->setRowCount(int(rows->size()));
  int reselect = -1;
  for (int r = 0; r < int(rows->size()); ++r) {
    const io::StudyRow& s = (*rows)[std::size_t(r)];
    const QString latest = s.latestRevision ? qs(s.latestLabelSet) + " r" + QString::number(s.latestRevision) : QString();
    const QString review = !s.latestRevision ? QString()
                           : s.review == "approved"  ? tr("approved")
                           : s.review == "submitted" ? tr("submitted")
                           : s.review == "rejected"  ? tr("sent back")
                                                     : tr("not reviewed");
    const QString cells[kColumnCount] = {qs(s.patientId), qs(s.patientName), dateText(s.studyDate), qs(s.modalities),
                                         qs(s.description), qs(s.labelSets), latest, review, qs(s.editing), qs(s.study)};
    for (int c = 0; c < kColumnCount; ++c) {
      auto* item = d->table->item(r, c);
      if (!item) d->table->setItem(r, c, item = new QTableWidgetItem);
      item->setText(cells[c]);
    }
    if (qs(s.study) == selected) reselect = r;
  }
  d->table->clearSelection();
  if (reselect >= 0) d->table->setCurrentCell(reselect, 0, QItemSelectionModel::Select | QItemSelectionModel::Rows);
  for (int r = 0; r < d->table->rowCount(); ++r)
    if (r != reselect && chosen.contains(d->table->item(r, kColumnCount - 1)->text()))
      d->table->selectionModel()->select(d->table->model()->index(r, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
  d->shown = int(rows->size());
  d->matching = *total;
  d->summary->setText(d->matching > d->shown ? tr("%1 of %2 studies shown: search to narrow them").arg(d->shown).arg(d->matching)
                                             : tr("%n studies", nullptr, d->matching));
  if (reselect < 0 && !selected.isEmpty()) studyChosen();
}

void StudyBrowserDialog::studyChosen() {
  const int row = d->table->currentRow();
  const bool selected = row >= 0 && d->table->selectionModel()->isRowSelected(row, QModelIndex());
  d->series->clear();
  d->revision->clear();
  d->open->setEnabled(false);
  if (!selected) {
    d->detail->clear();
    return;
  }
  const std::string study = d->table->item(row, kColumnCount - 1)->text().toStdString();
  const std::string root = d->root.toStdString();
  const int generation = ++d->detailsGeneration;
  d->detail->setText(tr("Reading %1 from the share...").arg(qs(study)));
  auto* watcher = new QFutureWatcher<StudyDetails>(this);
  connect(watcher, &QFutureWatcher<StudyDetails>::finished, this, [this, watcher, generation] {
    StudyDetails details = watcher->result();
    watcher->deleteLater();
    if (generation != d->detailsGeneration) return;  // another study was chosen meanwhile
    d->details = std::move(details);
    const StudyDetails& s = d->details;
    if (!s.error.isEmpty()) {
      d->detail->setText(s.error);
      return;
    }
    for (const auto& m : s.series) {
      if (m.modality == "RTSTRUCT") continue;  // offered below, with the labels to open on the image
      QString grid = tr("no single grid");
      if (m.geometry) {
        const auto& g = m.geometry->dimensions();
        grid = QString("%1 x %2 x %3").arg(g[0]).arg(g[1]).arg(g[2]);
      }
      d->series->addItem(tr("%1  %2  %3  (%4, %n file(s))", nullptr, int(m.files.size()))
                             .arg(qs(m.modality), qs(m.seriesDescription.empty() ? m.series : m.seriesDescription),
                                  qs(m.seriesNumber), grid),
                         qs(m.series));
    }
    const QString chosenSeries = d->series->currentData().toString();
    d->revision->addItem(tr("(the image only)"), QVariant());
    int preferred = 0, unbound = 0;
    for (const auto& r : s.revisions) {
      QString text = QString("%1 r%2  %3  %4").arg(qs(r.labelSet)).arg(r.info.number).arg(qs(r.info.author), qs(r.info.time));
      const QString review = r.review == "approved"    ? tr("approved")
                             : r.review == "submitted" ? tr("submitted")
                             : r.review == "rejected"  ? tr("sent back")
                                                       : QString();
      if (!review.isEmpty()) text += "  [" + review + "]";
      if (!r.boundSeries.empty() && qs(r.boundSeries) != chosenSeries) text += "  " + tr("(on another series)");
      if (!r.info.message.empty()) text += "  \"" + qs(r.info.message) + "\"";
      d->revision->addItem(text, QVariantList{qs(r.labelSet), r.info.number});
      if (preferred == 0 && qs(r.boundSeries) == chosenSeries) preferred = d->revision->count() - 1;
      if (unbound == 0 && r.boundSeries.empty()) unbound = d->revision->count() - 1;
    }
    // Structure sets of the study open onto the chosen image as its labels.
    for (const auto& m : s.series)
      if (m.modality == "RTSTRUCT")
        d->revision->addItem(tr("RT Structure Set: %1  %2").arg(qs(m.seriesDescription.empty() ? m.series : m.seriesDescription),
                                                             qs(m.seriesNumber)),
                             QVariantList{QStringLiteral("rtstruct"), qs(m.series), true});  // 3 items: never a revision
    d->revision->setCurrentIndex(preferred ? preferred : unbound);
    QStringList lines;
    if (!s.editing.isEmpty()) lines << tr("Being edited now: %1").arg(s.editing.join(", "));
    if (!s.seriesInProgress.empty()) lines << tr("%n series still being imported (not listed)", nullptr, int(s.seriesInProgress.size()));
    if (s.series.empty()) lines << tr("No image series in this study (a share written before studies held images?)");
    for (const QString& p : s.problems) lines << tr("Skipped: %1").arg(p);
    d->detail->setText(lines.join("\n"));
    d->open->setEnabled(d->series->currentIndex() >= 0);
    Q_EMIT studyDetailsRead();
  });
  watcher->setFuture(QtConcurrent::run([root, study] { return readDetails(root, study); }));
}

std::optional<ShareStudyChoice> StudyBrowserDialog::choice() const {
  if (d->series->currentIndex() < 0) return std::nullopt;
  ShareStudyChoice c;
  c.root = d->root;
  c.study = d->details.study;
  c.series = d->series->currentData().toString();
  const QVariantList rev = d->revision->currentData().toList();
  if (rev.size() == 3) {
    c.rtStructSeries = rev[1].toString();
  } else if (rev.size() == 2) {
    c.labelSet = rev[0].toString();
    c.revision = rev[1].toInt();
  }
  return c;
}

}  // namespace delineate::app::gui
