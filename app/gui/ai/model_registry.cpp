#include "app/gui/ai/model_registry.h"

#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPixmap>
#include <QPushButton>
#include <QSettings>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrent>

#include <cmath>
#include <map>

#include "app/gui/base/error_text.h"
#include "app/gui/base/workbench.h"
#include "core/label_table.h"
#include "io/share/share_store.h"
#include "io/studies/checkpoint_fetch.h"

namespace delineate::app::gui {

namespace {

struct Listing {
  QString root;
  core::Result<std::vector<io::CheckpointRevisionSummary>> revisions = std::vector<io::CheckpointRevisionSummary>{};
  std::map<std::string, std::string> trainingBy;  // model -> "user on host" while a run holds its lease
};

enum Column { Model, Revision, Architecture, Classes, BestDice, Dataset, Iteration, SavedBy, Saved, Status, Columns };

QTableWidgetItem* item(const QString& text) {
  auto* i = new QTableWidgetItem(text);
  i->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
  return i;
}

QTableWidgetItem* number(double value, int decimals) {
  auto* i = item(value < 0 ? QString() : QString::number(value, 'f', decimals));
  i->setData(Qt::UserRole, value);
  i->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return i;
}

}  // namespace

struct ModelRegistryDialog::Impl {
  Workbench& bench;
  QString root;
  std::vector<io::CheckpointRevisionSummary> revisions;
  std::map<std::string, std::string> trainingBy;
  QString error;
  QLabel* intro = nullptr;
  QTableWidget* models = nullptr;
  QLabel* summary = nullptr;
  QTableWidget* compare = nullptr;
  QPushButton* refresh = nullptr;
  QPushButton* use = nullptr;
  QPushButton* close = nullptr;
  bool listing = false, again = false;
  explicit Impl(Workbench& b) : bench(b) {}
};

ModelRegistryDialog::ModelRegistryDialog(Workbench& bench, QWidget* parent) : QDialog(parent), d(std::make_unique<Impl>(bench)) {
  setObjectName("model-registry");
  resize(900, 560);
  auto* layout = new QVBoxLayout(this);
  d->intro = new QLabel(this);
  d->intro->setWordWrap(true);
  layout->addWidget(d->intro);
  d->models = new QTableWidget(0, Columns, this);
  d->models->setObjectName("registry-models");
  d->models->setSelectionBehavior(QAbstractItemView::SelectRows);
  d->models->setSelectionMode(QAbstractItemView::ExtendedSelection);
  d->models->setEditTriggers(QAbstractItemView::NoEditTriggers);
  d->models->verticalHeader()->hide();
  d->models->setWordWrap(false);
  d->models->horizontalHeader()->setStretchLastSection(true);
  layout->addWidget(d->models, 3);
  d->summary = new QLabel(this);
  d->summary->setObjectName("registry-summary");
  d->summary->setWordWrap(true);
  layout->addWidget(d->summary);
  d->compare = new QTableWidget(0, 3, this);
  d->compare->setObjectName("registry-compare");
  d->compare->setEditTriggers(QAbstractItemView::NoEditTriggers);
  d->compare->verticalHeader()->hide();
  d->compare->setWordWrap(false);
  d->compare->setShowGrid(false);
  d->compare->horizontalHeader()->setStretchLastSection(true);
  layout->addWidget(d->compare, 2);
  auto* buttons = new QHBoxLayout;
  d->refresh = new QPushButton(this);
  d->refresh->setObjectName("registry-refresh");
  d->use = new QPushButton(this);
  d->use->setObjectName("registry-use");
  d->close = new QPushButton(this);
  buttons->addWidget(d->refresh);
  buttons->addStretch(1);
  buttons->addWidget(d->use);
  buttons->addWidget(d->close);
  layout->addLayout(buttons);
  connect(d->refresh, &QPushButton::clicked, this, &ModelRegistryDialog::refresh);
  connect(d->close, &QPushButton::clicked, this, &QDialog::close);
  connect(d->models, &QTableWidget::itemSelectionChanged, this, &ModelRegistryDialog::showChoice);
  connect(d->use, &QPushButton::clicked, this, [this] {
    const auto rows = d->models->selectionModel()->selectedRows();
    if (rows.size() == 1) Q_EMIT modelChosen(reference(rows.front().row()));
  });
  connect(d->models, &QTableWidget::cellDoubleClicked, this, [this](int row, int) { Q_EMIT modelChosen(reference(row)); });
  retranslate();
  refresh();
}

ModelRegistryDialog::~ModelRegistryDialog() = default;

QTableWidget* ModelRegistryDialog::models() const { return d->models; }
QTableWidget* ModelRegistryDialog::compare() const { return d->compare; }
QPushButton* ModelRegistryDialog::useButton() const { return d->use; }
QLabel* ModelRegistryDialog::summary() const { return d->summary; }

QString ModelRegistryDialog::reference(int row) const {
  if (row < 0 || row >= d->models->rowCount()) return {};
  return d->models->item(row, Model)->data(Qt::UserRole).toString();
}

void ModelRegistryDialog::retranslate() {
  setWindowTitle(tr("Model Registry"));
  d->intro->setText(tr("The share's trained models, every checkpoint revision. Choose one to see its Dice per structure, "
                       "two to compare them; \"Use as AI engine\" segments with the chosen one."));
  d->models->setHorizontalHeaderLabels({tr("Model"), tr("Revision"), tr("Architecture"), tr("Classes"), tr("Validation Dice"),
                                        tr("Dataset"), tr("Iteration"), tr("Saved by"), tr("Saved"), tr("Status")});
  d->refresh->setText(tr("Refresh"));
  d->use->setText(tr("Use as AI engine"));
  d->close->setText(tr("Close"));
  showChoice();
}

void ModelRegistryDialog::refresh() {
  if (d->listing) {  // listed again when the one running ends (a run may have published meanwhile)
    d->again = true;
    return;
  }
  d->listing = true;
  d->again = false;
  d->refresh->setEnabled(false);
  const QString root = QSettings().value("share/root").toString();
  using Result = std::shared_ptr<Listing>;
  auto* watcher = new QFutureWatcher<Result>(this);
  connect(watcher, &QFutureWatcher<Result>::finished, this, [this, watcher] {
    Result r = watcher->result();
    watcher->deleteLater();
    d->listing = false;
    d->refresh->setEnabled(true);
    d->root = r->root;
    d->error.clear();
    d->revisions.clear();
    if (r->root.isEmpty()) d->error = tr("No share is open: open a study from a share first (File > Open from Share)");
    else if (!r->revisions) d->error = fromError(r->revisions.error());
    else d->revisions = std::move(*r->revisions);
    d->trainingBy = std::move(r->trainingBy);
    fill();
    Q_EMIT listed();
    if (d->again) refresh();
  });
  watcher->setFuture(QtConcurrent::run(&d->bench.workers(), [root] {
    auto r = std::make_shared<Listing>();
    r->root = root;
    if (root.isEmpty()) return r;
    auto store = io::ShareStore::open(root.toStdString());
    if (!store) {
      r->revisions = store.error();
      return r;
    }
    r->revisions = io::listCheckpointRevisions(*store);
    if (r->revisions)  // each listed model's lease, once (not its revisions again)
      for (const auto& revision : *r->revisions)
        if (!r->trainingBy.count(revision.model)) r->trainingBy[revision.model] = io::checkpointTrainingBy(*store, revision.model);
    return r;
  }));
}

void ModelRegistryDialog::fill() {
  // The choice survives a refresh, by reference.
  QStringList chosen;
  for (const auto& index : d->models->selectionModel()->selectedRows()) chosen << reference(index.row());
  d->models->setSortingEnabled(false);
  d->models->clearContents();
  d->models->setRowCount(static_cast<int>(d->revisions.size()));
  int row = 0;
  // Newest first within a model: the latest revision is the one a user most often wants.
  std::vector<const io::CheckpointRevisionSummary*> order;
  for (const auto& r : d->revisions) order.push_back(&r);
  std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
    return a->model != b->model ? a->model < b->model : a->revision > b->revision;
  });
  for (const auto* r : order) {
    io::CheckpointReference ref{d->root.toStdString(), r->model, r->revision};
    auto* name = item(QString::fromStdString(r->model));
    name->setData(Qt::UserRole, QString::fromStdString(io::formatCheckpointReference(ref)));
    name->setToolTip(QString::fromStdString(r->message));
    d->models->setItem(row, Model, name);
    d->models->setItem(row, Revision, number(r->revision, 0));
    QString architecture = QString::fromStdString(r->architecture);
    if (!r->device.empty()) architecture += QString(" (%1%2)").arg(QString::fromStdString(r->device), r->precision.empty() ? QString() : ", " + QString::fromStdString(r->precision));
    d->models->setItem(row, Architecture, item(architecture));
    d->models->setItem(row, Classes, number(r->classes > 0 ? r->classes : -1, 0));
    auto* dice = number(r->dice, 3);
    QStringList tip;
    if (r->dice < 0 && r->iteration > 0) {
      // Saved between validations: no Dice of its own, and never an earlier validation's (other weights).
      dice->setText(tr("not validated"));
      tip << (r->lastValidationIteration > 0
                  ? tr("These weights (iteration %1) were not validated; the last validation, at iteration %2, measured "
                       "earlier weights")
                        .arg(r->iteration)
                        .arg(r->lastValidationIteration)
                  : tr("These weights (iteration %1) were not validated").arg(r->iteration));
    } else if (r->dice >= 0 && r->validatedIteration > 0) {
      tip << tr("Validated at iteration %1").arg(r->validatedIteration);
    }
    if (r->bestDice >= 0) tip << tr("The run's best validation Dice up to these weights: %1").arg(r->bestDice, 0, 'f', 3);
    dice->setToolTip(tip.join('\n'));
    d->models->setItem(row, BestDice, dice);
    QString dataset;
    if (!r->dataset.empty()) dataset = tr("%1 v%2").arg(QString::fromStdString(r->dataset)).arg(r->datasetRevision);
    else if (r->trainCases + r->validationCases > 0) dataset = tr("case list");
    if (r->trainCases + r->validationCases > 0) dataset += " " + tr("(%1 train, %2 validation)").arg(r->trainCases).arg(r->validationCases);
    d->models->setItem(row, Dataset, item(dataset.trimmed()));
    d->models->setItem(row, Iteration, item(r->iterations > 0 ? QString("%1/%2").arg(r->iteration).arg(r->iterations)
                                                              : r->iteration > 0 ? QString::number(r->iteration) : QString()));
    d->models->setItem(row, SavedBy, item(QString::fromStdString(r->author)));
    d->models->setItem(row, Saved, item(QString::fromStdString(r->time).left(16).replace('T', ' ')));
    const auto training = d->trainingBy.find(r->model);
    d->models->setItem(row, Status, item(training != d->trainingBy.end() && !training->second.empty() ? tr("being trained by %1").arg(QString::fromStdString(training->second))
                                                                          : QString()));
    ++row;
  }
  d->models->resizeColumnsToContents();
  for (int r = 0; r < d->models->rowCount(); ++r)
    if (chosen.contains(reference(r)))
      d->models->selectionModel()->select(d->models->model()->index(r, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
  showChoice();
}

void ModelRegistryDialog::showChoice() {
  std::vector<const io::CheckpointRevisionSummary*> chosen;
  for (const auto& index : d->models->selectionModel()->selectedRows()) {
    const QString ref = reference(index.row());
    for (const auto& r : d->revisions)
      if (QString::fromStdString(io::formatCheckpointReference({d->root.toStdString(), r.model, r.revision})) == ref) chosen.push_back(&r);
  }
  // The older (or first by name) first, whatever order the rows were clicked in: the difference is the second's gain.
  std::sort(chosen.begin(), chosen.end(), [](const auto* a, const auto* b) {
    return a->model != b->model ? a->model < b->model : a->revision < b->revision;
  });
  d->use->setEnabled(chosen.size() == 1);
  d->compare->setRowCount(0);
  if (!d->error.isEmpty()) {
    d->summary->setText(d->error);
    return;
  }
  if (chosen.empty()) {
    d->summary->setText(d->revisions.empty() ? tr("The share has no trained model yet: train one in the Training dock")
                                             : tr("Checkpoint revisions: %1. Choose one, or two to compare").arg(d->revisions.size()));
    d->compare->setColumnCount(3);
    d->compare->setHorizontalHeaderLabels({tr("Id"), tr("Structure"), tr("Dice")});
    return;
  }
  if (chosen.size() > 2) {
    d->summary->setText(tr("Choose one revision, or two to compare"));
    return;
  }
  auto label = [](const io::CheckpointRevisionSummary* r) { return QString("%1 r%2").arg(QString::fromStdString(r->model)).arg(r->revision); };
  // The structures of both, by id (a name from whichever has one).
  std::map<int, std::pair<QString, std::array<double, 2>>> rows;
  for (std::size_t k = 0; k < chosen.size(); ++k)
    for (const auto& c : chosen[k]->perClass) {
      auto& entry = rows.try_emplace(c.id, QString(), std::array<double, 2>{-1, -1}).first->second;
      if (entry.first.isEmpty()) entry.first = QString::fromStdString(c.name);
      entry.second[k] = c.dice;
    }
  const bool two = chosen.size() == 2;
  d->compare->setColumnCount(two ? 5 : 3);
  QStringList headers{tr("Id"), tr("Structure"), two ? label(chosen[0]) : tr("Dice")};
  if (two) headers << label(chosen[1]) << tr("Difference");
  d->compare->setHorizontalHeaderLabels(headers);
  d->compare->setRowCount(static_cast<int>(rows.size()));
  int row = 0, better = 0, worse = 0;
  for (const auto& [id, entry] : rows) {
    const core::Rgba c = core::LabelTable::defaultColor(static_cast<core::Label>(id));
    QPixmap swatch(12, 12);
    swatch.fill(QColor(c.r, c.g, c.b));
    auto* idItem = number(id, 0);
    idItem->setIcon(QIcon(swatch));
    d->compare->setItem(row, 0, idItem);
    d->compare->setItem(row, 1, item(entry.first));
    d->compare->setItem(row, 2, number(entry.second[0], 3));
    if (two) {
      d->compare->setItem(row, 3, number(entry.second[1], 3));
      if (entry.second[0] >= 0 && entry.second[1] >= 0) {
        const double delta = entry.second[1] - entry.second[0];
        // Within the shown precision: no change (not "-0.000").
        const QString shown = std::abs(delta) < 0.0005 ? QString::number(0.0, 'f', 3) : QString("%1%2").arg(delta > 0 ? "+" : "").arg(delta, 0, 'f', 3);
        auto* diff = item(shown);
        diff->setData(Qt::UserRole, delta);
        diff->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        if (delta > 0.0005) {
          diff->setForeground(QColor(0, 140, 0));
          ++better;
        } else if (delta < -0.0005) {
          diff->setForeground(QColor(200, 0, 0));
          ++worse;
        }
        d->compare->setItem(row, 4, diff);
      }
    }
    ++row;
  }
  d->compare->resizeColumnsToContents();
  const auto* a = chosen[0];
  if (!two) {
    QString text;
    if (a->dice < 0 && a->iteration > 0) {
      text = a->lastValidationIteration > 0
                 ? tr("%1: not validated (iteration %2; the last validation, at iteration %3, measured earlier weights)")
                       .arg(label(a))
                       .arg(a->iteration)
                       .arg(a->lastValidationIteration)
                 : tr("%1: not validated (iteration %2)").arg(label(a)).arg(a->iteration);
    } else {
      text = tr("%1: validation Dice %2 (structures: %3)")
                 .arg(label(a), a->dice >= 0 ? QString::number(a->dice, 'f', 3) : tr("none"))
                 .arg(a->perClass.size());
      if (a->validatedIteration > 0 && a->validatedIteration != a->iteration)
        text += " " + tr("validated at iteration %1").arg(a->validatedIteration);
      else if (a->iteration > 0) text += " " + tr("at iteration %1").arg(a->iteration);
    }
    if (!a->dataset.empty()) text += "; " + tr("learnt from dataset %1 version %2").arg(QString::fromStdString(a->dataset)).arg(a->datasetRevision);
    if (!a->author.empty()) text += "; " + tr("saved by %1").arg(QString::fromStdString(a->author));
    d->summary->setText(text);
  } else {
    const auto* b = chosen[1];
    d->summary->setText(tr("%1 against %2: validation Dice %3 and %4; structures better: %5, worse: %6")
                            .arg(label(b), label(a))
                            .arg(b->dice >= 0 ? QString::number(b->dice, 'f', 3) : b->iteration > 0 ? tr("none (not validated)") : tr("none"),
                                 a->dice >= 0 ? QString::number(a->dice, 'f', 3) : a->iteration > 0 ? tr("none (not validated)") : tr("none"))
                            .arg(better)
                            .arg(worse));
  }
}

}  // namespace delineate::app::gui
