#include "app/gui/training/training_panel.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QPixmap>
#include <QProcess>
#include <QFileDialog>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "app/gui/base/author_name.h"
#include "app/gui/base/error_text.h"
#include "app/gui/base/share_listing.h"
#include "app/gui/base/workbench.h"
#include "app/gui/training/training_run.h"
#include "core/label_table.h"
#include "io/base/file_modes.h"
#include "io/share/share_datasets.h"
#include "io/share/share_store.h"
#include "io/studies/checkpoint_fetch.h"
#include "io/studies/study_store.h"

namespace delineate::app::gui {

namespace {

QString duration(double seconds) {
  const long s = static_cast<long>(seconds + 0.5);
  return s >= 3600 ? QString("%1h%2m").arg(s / 3600).arg((s / 60) % 60, 2, 10, QChar('0'))
                   : QString("%1m%2s").arg(s / 60).arg(s % 60, 2, 10, QChar('0'));
}

QChart* lineChart(QLineSeries*& series, QValueAxis*& x, QValueAxis*& y) {
  auto* chart = new QChart;
  series = new QLineSeries(chart);
  chart->addSeries(series);
  x = new QValueAxis(chart);
  y = new QValueAxis(chart);
  x->setLabelFormat("%d");
  y->setLabelFormat("%.2g");
  y->setTickCount(3);
  x->setTickCount(5);
  QFont small = x->labelsFont();
  small.setPointSizeF(small.pointSizeF() * 0.8);
  x->setLabelsFont(small);
  y->setLabelsFont(small);
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  series->attachAxis(x);
  series->attachAxis(y);
  chart->legend()->hide();
  chart->setMargins(QMargins(2, 2, 2, 2));
  return chart;
}

}  // namespace

TrainingPanel::TrainingPanel(Workbench& bench, QWidget* parent)
    : QWidget(parent), m_bench(bench), m_run(std::make_unique<TrainingRun>()) {
  setObjectName("training-panel");
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  auto* form = new QFormLayout;
  layout->addLayout(form);
  auto named = [this](auto* w, const char* name) {
    w->setObjectName(name);
    return w;
  };
  m_dataset = named(new QComboBox(this), "train-dataset");
  m_dataset->addItem(QString(), QString());
  m_cases = named(new QLineEdit(this), "train-cases");
  // Fields shown for one choice only keep their place while hidden: choosing a dataset or a model never moves the
  // fields below under the pointer.
  for (QWidget* w : {static_cast<QWidget*>(m_cases)}) {
    QSizePolicy keep = w->sizePolicy();
    keep.setRetainSizeWhenHidden(true);
    w->setSizePolicy(keep);
  }
  auto* source = new QVBoxLayout;
  source->setContentsMargins(0, 0, 0, 0);
  source->addWidget(m_dataset);
  source->addWidget(m_cases);
  m_sourceLabel = new QLabel(this);
  form->addRow(m_sourceLabel, source);
  m_model = named(new QComboBox(this), "train-model");
  m_model->addItem(QString(), "segresnetds");
  m_model->addItem(QString(), "vista3d");
  m_modelLabel = new QLabel(this);
  form->addRow(m_modelLabel, m_model);
  m_checkpoint = named(new QLineEdit(this), "train-checkpoint");
  m_checkpoint->setText(QSettings().value("ai/checkpoint").toString());  // the engine's VISTA-3D, to start from
  {
    QSizePolicy keep = m_checkpoint->sizePolicy();
    keep.setRetainSizeWhenHidden(true);
    m_checkpoint->setSizePolicy(keep);
  }
  auto* checkpointRow = new QVBoxLayout;  // in a layout of its own: a form row alone would close while hidden
  checkpointRow->setContentsMargins(0, 0, 0, 0);
  checkpointRow->addWidget(m_checkpoint);
  form->addRow(QString(), checkpointRow);
  m_name = named(new QLineEdit(this), "train-name");
  m_nameLabel = new QLabel(this);
  form->addRow(m_nameLabel, m_name);
  m_labels = named(new QLineEdit(this), "train-labels");
  form->addRow(QString(), m_labels);
  m_iterations = named(new QSpinBox(this), "train-iterations");
  m_iterations->setRange(1, 10000000);
  m_iterations->setValue(1000);
  m_iterationsLabel = new QLabel(this);
  form->addRow(m_iterationsLabel, m_iterations);
  m_validation = named(new QSpinBox(this), "train-validation");
  m_validation->setRange(1, 10000000);
  m_validation->setValue(100);
  m_validationLabel = new QLabel(this);
  form->addRow(m_validationLabel, m_validation);
  m_device = named(new QComboBox(this), "train-device");
  m_device->addItem("cpu", "cpu");
  m_device->addItem("cuda", "cuda");
  // The device seen here: CUDA where the NVIDIA driver lists a GPU, else the CPU (delineate-train chooses its patch and
  // width by the device: 64^3 and 16 filters on the CPU, up to 128^3 and 32 filters on CUDA).
  if (!QDir("/proc/driver/nvidia/gpus").entryList(QDir::Dirs | QDir::NoDotAndDotDot).isEmpty()) m_device->setCurrentIndex(1);
  m_deviceLabel = new QLabel(this);
  form->addRow(m_deviceLabel, m_device);
  m_budget = named(new QLineEdit(this), "train-budget");
  m_budgetLabel = new QLabel(this);
  form->addRow(m_budgetLabel, m_budget);
  // Where it runs: here (a child process), or a Slurm cluster (submitted; its folder on storage the nodes mount).
  m_where = named(new QComboBox(this), "train-where");
  m_where->addItem(QString(), "local");
  m_where->addItem(QString(), "slurm");
  m_whereLabel = new QLabel(this);
  form->addRow(m_whereLabel, m_where);
  m_clusterFolder = named(new QLineEdit(QSettings().value("training/clusterFolder").toString(), this),
                          "train-cluster-folder");
  m_clusterFolderLabel = new QLabel(this);
  form->addRow(m_clusterFolderLabel, m_clusterFolder);
  m_slurm = named(new QLineEdit(QSettings().value("training/slurmOptions").toString(), this), "train-slurm");
  m_slurmLabel = new QLabel(this);
  form->addRow(m_slurmLabel, m_slurm);
  connect(m_where, &QComboBox::currentIndexChanged, this, [this, form] {
    const bool slurm = m_where->currentData().toString() == "slurm";
    form->setRowVisible(m_clusterFolder, slurm);
    form->setRowVisible(m_slurm, slurm);
  });
  form->setRowVisible(m_clusterFolder, false);
  form->setRowVisible(m_slurm, false);
  m_advanced = named(new QLineEdit(this), "train-advanced");
  m_advancedLabel = new QLabel(this);
  form->addRow(m_advancedLabel, m_advanced);
  m_deviceHint = named(new QLabel(this), "train-device-hint");
  // The other device's hint, hidden in the same place: the place is as high as the longer of the two, so choosing the
  // device never moves what is below it.
  m_otherDeviceHint = new QLabel(this);
  auto* hints = new QGridLayout;
  hints->setContentsMargins(0, 0, 0, 0);
  for (QLabel* l : {m_deviceHint, m_otherDeviceHint}) {
    l->setWordWrap(true);
    l->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    hints->addWidget(l, 0, 0);
  }
  QSizePolicy keep = m_otherDeviceHint->sizePolicy();
  keep.setRetainSizeWhenHidden(true);
  m_otherDeviceHint->setSizePolicy(keep);
  m_otherDeviceHint->hide();
  form->addRow(QString(), hints);

  auto* buttons = new QHBoxLayout;
  m_start = named(new QPushButton(this), "train-start");
  m_stop = named(new QPushButton(this), "train-stop");
  m_resume = named(new QPushButton(this), "train-resume");
  buttons->addWidget(m_start);
  buttons->addWidget(m_stop);
  buttons->addWidget(m_resume);
  layout->addLayout(buttons);
  auto* after = new QHBoxLayout;
  m_models = named(new QPushButton(this), "train-models");
  m_next = named(new QPushButton(this), "train-next-case");
  after->addWidget(m_models);
  after->addWidget(m_next);
  layout->addLayout(after);
  m_status = named(new QLabel(this), "train-status");
  m_status->setWordWrap(true);
  layout->addWidget(m_status);

  auto* lossView = named(new QChartView(lineChart(m_loss, m_lossX, m_lossY), this), "train-loss-chart");
  auto* diceView = named(new QChartView(lineChart(m_dice, m_diceX, m_diceY), this), "train-dice-chart");
  m_lossChart = lossView->chart();
  m_diceChart = diceView->chart();
  m_diceY->setRange(0, 1);
  m_diceY->setLabelFormat("%.1f");
  // Validations are few: each one a marker, so that a single one (no line yet) is seen too.
  m_dice->setPointsVisible(true);
  m_dice->setMarkerSize(7);
  // Plots, structures and the ranking share the dock's height in a splitter the user can move.
  auto* parts = named(new QSplitter(Qt::Vertical, this), "train-parts");
  parts->setChildrenCollapsible(false);
  layout->addWidget(parts, 1);
  for (QChartView* v : {lossView, diceView}) {
    v->setRenderHint(QPainter::Antialiasing);
    v->setMinimumHeight(110);
    parts->addWidget(v);
  }
  // A compact read-only list of three columns, one text line a row.
  auto list = [&](const char* name, int minimumHeight) {
    auto* t = named(new QTableWidget(0, 3, this), name);
    t->verticalHeader()->hide();
    t->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 4);
    t->setWordWrap(false);
    t->setShowGrid(false);
    t->horizontalHeader()->setStretchLastSection(true);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setMinimumHeight(minimumHeight);
    parts->addWidget(t);
    return t;
  };
  m_classes = list("train-classes", 80);
  m_ranking = list("train-ranking", 70);
  m_ranking->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_ranking->setSelectionMode(QAbstractItemView::SingleSelection);
  m_ranking->hide();  // until a ranking
  connect(m_ranking, &QTableWidget::cellDoubleClicked, this, [this](int row, int) { openRanked(row); });
  connect(m_models, &QPushButton::clicked, this, &TrainingPanel::registryRequested);
  connect(m_next, &QPushButton::clicked, this, [this] { rankNextCase(); });

  connect(m_start, &QPushButton::clicked, this, [this] { startRun(false); });
  connect(m_resume, &QPushButton::clicked, this, [this] { startRun(true); });
  connect(m_stop, &QPushButton::clicked, this, &TrainingPanel::stopRun);
  connect(m_model, QOverload<int>::of(&QComboBox::currentIndexChanged), this, [this] { updateState(); });
  connect(m_device, QOverload<int>::of(&QComboBox::currentIndexChanged), this, [this] { updateDeviceHint(); });
  connect(m_dataset, QOverload<int>::of(&QComboBox::currentIndexChanged), this, [this] {
    if (!m_dataset->currentData().toString().isEmpty() && m_name->text().isEmpty())
      m_name->setText(m_dataset->currentData().toString() + "-model");
    updateState();
  });
  connect(m_run.get(), &TrainingRun::progressed, this, &TrainingPanel::showProgress);
  connect(m_run.get(), &TrainingRun::warning, this, [this](const QString& w) { m_bench.showStatus(tr("Training: %1").arg(w), 8000); });
  connect(m_run.get(), &TrainingRun::finished, this, [this](bool ok) {
    m_stopping = false;
    const TrainingState& s = m_run->state();
    if (ok) {
      const QString outcome = outcomeText(s.outcome);
      m_status->setText(tr("Training %1 after %2 iterations; best validation Dice %3")
                            .arg(outcome)
                            .arg(s.iteration)
                            .arg(s.bestDice >= 0 ? QString::number(s.bestDice, 'f', 4) : tr("none")));
      if (m_run->request().share.isEmpty())
        m_status->setText(m_status->text() + "\n" +
                          tr("No share is open, so the model was not published: its checkpoints are in %1 (open or "
                             "create a share and train again to publish it)")
                              .arg(QDir::toNativeSeparators(m_run->request().output)));
    } else {
      m_status->setText(tr("Training failed: %1").arg(m_run->error()));
      m_bench.reportError(m_status->text());
    }
    updateState();
    Q_EMIT runFinished(ok);
  });
  retranslate();
  refreshDatasets();
  // A run this user started from an earlier window and kept going: followed again, its log replayed.
  const QStringList runs = TrainingRun::runningRuns();
  if (!runs.isEmpty() && m_run->attach(runs.front())) {
    m_name->setText(m_run->request().modelName);
    if (!m_run->state().iterations) m_status->setText(tr("Following the run %1 started earlier").arg(m_run->request().modelName));
    updateState();
  } else if (const QString last = TrainingRun::latestRun(); !last.isEmpty() && m_run->replay(last)) {
    // The last run, ended while no window followed it (or in an earlier session): its plots and outcome.
    const TrainingState& st = m_run->state();
    m_name->setText(m_run->request().modelName);
    showProgress();
    m_status->setText(tr("Last run %1: %2 after %3 iterations; best validation Dice %4")
                          .arg(m_run->request().modelName, st.outcome == "done" || st.outcome == "cancelled" || st.outcome == "stopped early"
                                                               ? outcomeText(st.outcome)
                                                               : st.outcome)
                          .arg(st.iteration)
                          .arg(st.bestDice >= 0 ? QString::number(st.bestDice, 'f', 4) : tr("none")));
    updateState();
  }
}

QString TrainingPanel::outcomeText(const QString& outcome) {
  return outcome == "done"            ? tr("done")
         : outcome == "cancelled"     ? tr("stopped (checkpoint saved)")
         : outcome == "stopped early" ? tr("stopped early")
                                      : tr("ended");
}

TrainingPanel::~TrainingPanel() {
  if (m_ranker) {  // a ranking only reads: it ends with the window
    m_ranker->disconnect(this);
    m_ranker->kill();
    m_ranker->waitForFinished(3000);
  }
}

void TrainingPanel::retranslate() {
  m_sourceLabel->setText(tr("Data:"));
  if (m_dataset->count() > 0) m_dataset->setItemText(0, tr("A case list file (below)"));
  m_cases->setPlaceholderText(tr("cases.json: image and label files (or choose a dataset of the share above)"));
  m_modelLabel->setText(tr("Model:"));
  m_model->setItemText(0, tr("New atlas network (SegResNetDS)"));
  m_model->setItemText(1, tr("Fine-tune VISTA-3D"));
  m_checkpoint->setPlaceholderText(tr("VISTA-3D checkpoint to fine-tune: a file (model.pt) or share:ROOT#MODEL"));
  m_nameLabel->setText(tr("Name:"));
  m_name->setPlaceholderText(tr("the model's name on the share (checkpoints/<name>/)"));
  m_labels->setPlaceholderText(tr("label table (names; optional)"));
  m_iterationsLabel->setText(tr("Iterations:"));
  m_validationLabel->setText(tr("Validate every:"));
  m_deviceLabel->setText(tr("Device:"));
  m_budgetLabel->setText(tr("Time budget:"));
  m_budget->setPlaceholderText(tr("e.g. 55m or 1h30m: the iterations that fit it (empty: the iterations above)"));
  m_whereLabel->setText(tr("Run on:"));
  m_where->setItemText(0, tr("This computer"));
  m_where->setItemText(1, tr("Slurm cluster"));
  m_clusterFolderLabel->setText(tr("Cluster folder:"));
  m_clusterFolder->setPlaceholderText(tr("a folder every cluster node mounts (the run's checkpoints and log go there)"));
  m_slurmLabel->setText(tr("Slurm:"));
  m_slurm->setPlaceholderText(tr("e.g. --gpus-per-node 1 --time 2:00:00 --partition gpu (--nodes, --tasks-per-node: "
                                 "one rank each)"));
  m_advancedLabel->setText(tr("Advanced:"));
  m_advanced->setPlaceholderText(tr("more delineate-train options, e.g. --patch 64,64,64 --init-filters 16 --learning-rate 1e-3"));
  updateDeviceHint();
  m_start->setText(tr("Start"));
  m_stop->setToolTip(tr("Validate the weights reached, save them as a checkpoint and end the run"));
  m_resume->setText(tr("Resume"));
  m_resume->setToolTip(tr("Continue the run from its newest checkpoint"));
  m_models->setText(tr("Models..."));
  m_models->setToolTip(tr("The share's trained models: metrics, datasets, comparison; choose the AI engine"));
  m_next->setText(tr("Next Case"));
  m_next->setToolTip(tr("Rank the share's studies without approved labels by this model's uncertainty and open the "
                        "most uncertain one"));
  m_ranking->setHorizontalHeaderLabels({tr("Study"), tr("Uncertainty"), tr("Labels")});
  m_lossChart->setTitle(tr("Loss"));
  m_diceChart->setTitle(tr("Validation Dice"));
  m_classes->setHorizontalHeaderLabels({tr("Id"), tr("Structure"), tr("Dice")});
  updateState();
}

void TrainingPanel::refreshDatasets() {
  const QString root = QSettings().value("share/root").toString();
  listShareOnWorker(this, m_bench.workers(), root, io::listDatasets,
                    [this](const core::Result<std::vector<std::string>>& names) {
                      const QString current = m_dataset->currentData().toString();
                      while (m_dataset->count() > 1) m_dataset->removeItem(1);
                      if (names)
                        for (const auto& n : *names) m_dataset->addItem(QString::fromStdString(n), QString::fromStdString(n));
                      m_dataset->setCurrentIndex(std::max(0, m_dataset->findData(current)));
                      Q_EMIT datasetsListed();
                    });
}

bool TrainingPanel::startRun(bool resume) {
  if (m_run->running()) return false;
  TrainingRequest r;
  const QString root = QSettings().value("share/root").toString();
  r.dataset = m_dataset->currentData().toString();
  r.cases = r.dataset.isEmpty() ? m_cases->text().trimmed() : QString();
  if (r.dataset.isEmpty() && r.cases.isEmpty()) {
    m_status->setText(tr("Choose a dataset of the share or a case list file"));
    return false;
  }
  r.modelName = m_name->text().trimmed();
  if (r.modelName.isEmpty()) r.modelName = r.dataset.isEmpty() ? QFileInfo(r.cases).dir().dirName() + "-model" : r.dataset + "-model";
  if (!root.isEmpty()) r.share = root;
  else if (!r.dataset.isEmpty()) {
    m_status->setText(tr("No share is open to take the dataset from"));
    return false;
  }
  r.model = m_model->currentData().toString();
  r.checkpoint = r.model == "vista3d" ? m_checkpoint->text().trimmed() : QString();  // the field shows for VISTA-3D only
  if (r.model == "vista3d" && r.checkpoint.isEmpty()) {
    m_status->setText(tr("Fine-tuning VISTA-3D starts from a checkpoint: give its file"));
    return false;
  }
  r.labels = m_labels->text().trimmed();
  // A run publishes its checkpoints under the author's name: asked for now when none is set, as a save asks.
  if (!r.share.isEmpty() && !ensureAuthor(m_bench)) return false;
  r.author = authorName();
  r.device = m_device->currentData().toString();
  r.iterations = m_iterations->value();
  r.extra = QProcess::splitCommand(m_advanced->text());
  r.validationInterval = m_validation->value();
  r.timeBudget = m_budget->text().trimmed();
  // The run's folder on local disk, one per model name, so Resume finds its checkpoints; a Slurm run's on the
  // cluster's storage.
  r.output = QString::fromStdString(io::userCacheFolder()) + "/training/" + r.modelName;
  r.slurm = m_where->currentData().toString() == "slurm";
  if (r.slurm) {
    const QString folder = m_clusterFolder->text().trimmed();
    if (folder.isEmpty() || !QFileInfo(folder).isAbsolute()) {
      m_status->setText(tr("Choose a folder every cluster node mounts (an absolute path) for a Slurm run"));
      return false;
    }
    r.output = folder + "/" + r.modelName;
    r.slurmOptions = QProcess::splitCommand(m_slurm->text());
    QSettings().setValue("training/clusterFolder", folder);
    QSettings().setValue("training/slurmOptions", m_slurm->text());
  }
  // Local and the user's alone (io/base/file_modes.h): the run learns from patient data.
  (void)io::createFolders(r.output.toStdString(), io::FileAccess::Private);  // the run reports a folder it cannot use
  m_loss->clear();
  m_dice->clear();
  m_classes->setRowCount(0);
  m_stopping = false;
  if (!m_run->start(r, resume)) {
    m_status->setText(tr("Training could not start: %1").arg(m_run->error()));
    updateState();
    return false;
  }
  if (resume) showProgress();  // the earlier runs' plots and table, continued by this one
  m_status->setText(resume ? tr("Training %1: resuming from its newest checkpoint, reading the cases...").arg(r.modelName)
                           : tr("Training %1: reading the cases...").arg(r.modelName));
  if (r.slurm)
    m_status->setText(tr("Training %1: submitted to Slurm as job %2; it starts when the cluster runs it")
                          .arg(r.modelName, m_run->slurmJob()));
  if (r.share.isEmpty())
    m_status->setText(m_status->text() + "\n" + tr("No share is open: the model stays in its run folder, unpublished"));
  updateState();
  return true;
}

void TrainingPanel::stopRun() {
  if (!m_run->running()) return;
  m_run->stop();
  // Until the program ends (it validates the weights it stops with and saves them: seconds on the CPU), the dock says
  // so and Stop cannot be pressed again.
  m_stopping = true;
  m_status->setText(tr("Stopping: validating and saving a checkpoint..."));
  updateState();
}

void TrainingPanel::updateDeviceHint() {
  const QString cpu = tr("On the CPU the patch defaults to 64x64x64 voxels: smaller patches make training on the CPU "
                         "feasible (about 0.6 iterations/s on a mouse atlas, against 0.07-0.18 at 96x96x80).");
  const QString gpu = tr("On a GPU the patch defaults to the cases' size, up to 128 voxels a side, and the network to "
                         "32 filters.");
  const bool onCpu = m_device->currentData().toString() == "cpu";
  m_deviceHint->setText(onCpu ? cpu : gpu);
  m_otherDeviceHint->setText(onCpu ? gpu : cpu);
}

void TrainingPanel::showProgress() {
  const TrainingState& s = m_run->state();
  QString text = tr("it %1/%2  loss %3  %4 it/s  ETA %5  data wait %6%  %7")
                     .arg(s.iteration)
                     .arg(s.iterations)
                     .arg(s.loss, 0, 'f', 4)
                     .arg(s.iterationsPerSecond, 0, 'f', 2)
                     .arg(duration(s.etaSeconds))
                     .arg(100 * s.dataWaitFraction, 0, 'f', 1)
                     .arg(s.device);
  if (!s.validations.empty()) text += tr("  validation Dice %1").arg(s.validations.back().second, 0, 'f', 4);
  if (s.residentBytes > 0) text += tr("  memory %1 GB").arg(s.residentBytes / 1073741824.0, 0, 'f', 2);
  if (s.deviceUsedBytes > 0) text += tr("  GPU memory in use %1 GB").arg(s.deviceUsedBytes / 1073741824.0, 0, 'f', 2);
  if (!s.lastCheckpoint.isEmpty()) text += tr("  last %1").arg(QFileInfo(s.lastCheckpoint).fileName());
  if (!m_stopping) m_status->setText(text);  // while stopping, the status says so until the program ends
  // The plots: every report's loss, every validation's mean Dice.
  m_loss->clear();
  double top = 0;
  for (const auto& [it, loss] : s.losses) {
    m_loss->append(it, loss);
    top = std::max(top, loss);
  }
  m_lossX->setRange(0, std::max(1, s.iterations));
  // Ticks at round iterations (1, 2 or 5 times a power of ten; four to ten of them), not at fifths of the run.
  const int n = std::max(1, s.iterations);
  double step = std::pow(10.0, std::floor(std::log10(static_cast<double>(n))));
  if (n / step < 2) step /= 5;
  else if (n / step < 4) step /= 2;
  step = std::max(1.0, step);
  for (QValueAxis* axis : {m_lossX, m_diceX}) {
    axis->setTickType(QValueAxis::TicksDynamic);
    axis->setTickAnchor(0);
    axis->setTickInterval(step);
  }
  m_lossY->setRange(0, top > 0 ? top * 1.05 : 1);
  m_dice->clear();
  for (const auto& [it, dice] : s.validations) m_dice->append(it, dice);
  m_diceX->setRange(0, std::max(1, s.iterations));
  if (!s.perClass.empty()) {
    m_classes->setRowCount(static_cast<int>(s.perClass.size()));
    int row = 0;
    for (const auto& [id, dice] : s.perClass) {
      QString name;
      for (const auto& l : s.labels)
        if (l.id == id) name = l.name;
      const core::Rgba c = core::LabelTable::defaultColor(static_cast<core::Label>(id));
      QPixmap swatch(12, 12);
      swatch.fill(QColor(c.r, c.g, c.b));
      auto* idItem = new QTableWidgetItem(QIcon(swatch), QString::number(id));
      m_classes->setItem(row, 0, idItem);
      m_classes->setItem(row, 1, new QTableWidgetItem(name));
      m_classes->setItem(row, 2, new QTableWidgetItem(QString::number(dice, 'f', 3)));
      ++row;
    }
    m_classes->resizeColumnToContents(0);
    m_classes->resizeColumnToContents(1);
  }
}

bool TrainingPanel::rankNextCase() {
  if (m_ranker) return false;
  const QString root = QSettings().value("share/root").toString();
  if (root.isEmpty()) {
    m_status->setText(tr("No share is open to rank its studies"));
    return false;
  }
  const QString dataset = m_dataset->currentData().toString();
  QString name = m_name->text().trimmed();
  if (name.isEmpty() && !dataset.isEmpty()) name = dataset + "-model";
  if (name.isEmpty()) {
    m_status->setText(tr("Name the model that ranks the studies (Name:)"));
    return false;
  }
  QStringList args{"--rank", QString::fromStdString(io::formatCheckpointReference({root.toStdString(), name.toStdString(), 0})),
                   "--share", root, "--json", "--device", m_device->currentData().toString()};
  if (!dataset.isEmpty()) args << "--dataset" << dataset;
  m_ranker = new QProcess(this);
  m_ranker->setProcessChannelMode(QProcess::SeparateChannels);
  m_rankerPending.clear();
  m_rankerError.clear();
  m_rankRoot = root;
  m_rankLabelSet.clear();
  m_ranked.clear();
  m_ranking->setRowCount(0);
  connect(m_ranker, &QProcess::readyReadStandardOutput, this, &TrainingPanel::rankerOutput);
  connect(m_ranker, QOverload<int, QProcess::ExitStatus>::of(&QProcess::finished), this, &TrainingPanel::rankerEnded);
  connect(m_ranker, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
    if (e == QProcess::FailedToStart) {
      m_rankerError = tr("cannot start %1: %2").arg(TrainingRun::programPath(), m_ranker->errorString());
      rankerEnded();
    }
  });
  m_status->setText(tr("Ranking the studies without approved labels by %1...").arg(name));
  m_ranker->setProcessEnvironment(authorEnvironment());
  m_ranker->start(TrainingRun::programPath(), args);
  updateState();
  return true;
}

void TrainingPanel::rankerOutput() {
  if (!m_ranker) return;
  m_rankerPending += m_ranker->readAllStandardOutput();
  for (qsizetype end; (end = m_rankerPending.indexOf('\n')) >= 0;) {
    const QByteArray line = m_rankerPending.left(end).trimmed();
    m_rankerPending.remove(0, end + 1);
    if (!line.startsWith('{')) continue;
    const QJsonObject e = QJsonDocument::fromJson(line).object();
    const QString event = e.value("event").toString();
    if (event == "start") {
      m_rankLabelSet = e.value("labelSet").toString();
      const int candidates = e.value("candidates").toInt();
      m_status->setText(candidates == 1 ? tr("Ranking 1 study on %1...").arg(e.value("device").toString())
                                        : tr("Ranking %1 studies on %2...").arg(candidates).arg(e.value("device").toString()));
    } else if (event == "case") {
      m_status->setText(tr("Ranked %1 of %2: %3 (uncertainty %4)")
                            .arg(e.value("index").toInt())
                            .arg(e.value("of").toInt())
                            .arg(e.value("study").toString())
                            .arg(e.value("score").toDouble(), 0, 'f', 4));
    } else if (event == "skipped") {
      m_bench.showStatus(tr("Not ranked: %1: %2").arg(e.value("study").toString(), e.value("reason").toString()), 8000);
    } else if (event == "ranking") {
      m_ranked.clear();
      for (const QJsonValue& v : e.value("cases").toArray()) {
        const QJsonObject c = v.toObject();
        m_ranked.push_back({c.value("study").toString(), c.value("series").toString(), c.value("labels").toString(), c.value("score").toDouble()});
      }
    } else if (event == "error") {
      m_rankerError = e.value("subject").toString() + ": " + e.value("reason").toString();
    } else if (event == "cancelled") {
      m_rankerError = tr("the ranking was stopped");
    }
  }
}

void TrainingPanel::rankerEnded() {
  if (!m_ranker) return;
  rankerOutput();
  const bool ok = m_rankerError.isEmpty() && m_ranker->exitStatus() == QProcess::NormalExit && m_ranker->exitCode() == 0;
  if (!ok && m_rankerError.isEmpty()) {
    const QString err = QString::fromUtf8(m_ranker->readAllStandardError()).trimmed();
    m_rankerError = err.isEmpty() ? tr("delineate-train ended without a ranking") : err.section('\n', -1);
  }
  m_ranker->deleteLater();
  m_ranker = nullptr;
  m_ranking->setRowCount(static_cast<int>(m_ranked.size()));
  int row = 0;
  for (const auto& c : m_ranked) {
    m_ranking->setItem(row, 0, new QTableWidgetItem(c.study));
    auto* score = new QTableWidgetItem(QString::number(c.score, 'f', 4));
    score->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    m_ranking->setItem(row, 1, score);
    m_ranking->setItem(row, 2, new QTableWidgetItem(c.labels == "none" ? tr("none") : c.labels));
    ++row;
  }
  m_ranking->resizeColumnToContents(0);
  m_ranking->setVisible(ok);
  if (!ok) {
    m_status->setText(tr("Ranking failed: %1").arg(m_rankerError));
    m_bench.reportError(m_status->text());
  } else if (m_ranked.empty()) {
    m_status->setText(tr("Every study of the share with an image has approved labels: nothing to rank"));
  } else {
    const QString study = m_ranked.front().study, score = QString::number(m_ranked.front().score, 'f', 4);
    m_status->setText(m_ranked.size() == 1 ? tr("Next case: %1 (uncertainty %2), the only study to label").arg(study, score)
                                           : tr("Next case: %1 (uncertainty %2), the most uncertain of %3 studies")
                                                 .arg(study, score)
                                                 .arg(m_ranked.size()));
  }
  updateState();
  Q_EMIT ranked(ok);
  if (ok && !m_ranked.empty()) openRanked(0);
}

void TrainingPanel::openRanked(int row) {
  if (row < 0 || row >= static_cast<int>(m_ranked.size())) return;
  m_ranking->selectRow(row);
  const RankedCase& c = m_ranked[static_cast<std::size_t>(row)];
  Q_EMIT openStudyRequested(m_rankRoot, c.study, c.series, c.labels == "none" ? QString() : m_rankLabelSet);
}

void TrainingPanel::updateState() {
  const bool running = m_run->running();
  m_next->setEnabled(m_ranker == nullptr);
  m_start->setEnabled(!running);
  m_resume->setEnabled(!running);
  m_stop->setEnabled(running && !m_stopping);
  m_stop->setText(m_stopping ? tr("Stopping...") : tr("Stop"));
  m_checkpoint->setVisible(m_model->currentData().toString() == "vista3d");
  m_cases->setVisible(m_dataset->currentData().toString().isEmpty());
  for (QWidget* w : {static_cast<QWidget*>(m_dataset), static_cast<QWidget*>(m_cases), static_cast<QWidget*>(m_model),
                     static_cast<QWidget*>(m_checkpoint), static_cast<QWidget*>(m_name), static_cast<QWidget*>(m_labels),
                     static_cast<QWidget*>(m_iterations), static_cast<QWidget*>(m_validation), static_cast<QWidget*>(m_device),
                     static_cast<QWidget*>(m_advanced), static_cast<QWidget*>(m_budget), static_cast<QWidget*>(m_where),
                     static_cast<QWidget*>(m_clusterFolder), static_cast<QWidget*>(m_slurm)})
    w->setEnabled(!running);
}

}  // namespace delineate::app::gui
