#include <algorithm>
#include <cmath>
#include <limits>

#include "app/gui/ai/ai_panel.h"
#include "app/gui/base/error_text.h"

#include <QAction>
#include <QComboBox>
#include <QHBoxLayout>
#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QToolButton>
#include <QSettings>
#include <QStandardItemModel>
#include <QStatusBar>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrent>

#include <filesystem>
#include <set>

#include <QMainWindow>

#include "app/gui/base/job.h"
#include "app/gui/base/known_classes.h"
#include "app/gui/base/share_listing.h"
#include "app/gui/base/workbench.h"
#include "app/gui/editing/edit_tools.h"
#include "app/gui/study/study_document.h"
#include "app/gui/views/view_panels.h"
#include "core/file_source.h"
#include "inference/engine_plugin.h"
#include "inference/guided_session.h"
#include "io/base/sealed_stream.h"
#include "io/dicom/dicom.h"
#include "io/share/share_store.h"
#include "io/studies/checkpoint_fetch.h"
#include "viewer/label_colors.h"

namespace delineate::app::gui {

namespace {


constexpr viewer::SliceOrientation kSliceViews[] = {viewer::SliceOrientation::Axial, viewer::SliceOrientation::Coronal,
                                                    viewer::SliceOrientation::Sagittal};

struct ClickResult {
  core::Status status;
  double ms = 0;
};

}  // namespace

AiPanel::AiPanel(StudyDocument& document, Workbench& bench, EditTools& tools, QWidget* parent)
    : QWidget(parent), m_document(document), m_bench(bench), m_tools(tools) {
  connect(&m_document, &StudyDocument::studyReplaced, this, &AiPanel::studyChanged);
  setObjectName("ai-panel");
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  // The model: the preferences' (VISTA-3D or the classic engine), or a trained one from the share's checkpoints.
  auto* modelRow = new QHBoxLayout;
  m_modelLabel = new QLabel(this);
  m_model = new QComboBox(this);
  m_model->setObjectName("ai-model");
  m_model->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_modelRefresh = new QPushButton(this);
  m_modelRefresh->setObjectName("ai-model-refresh");
  modelRow->addWidget(m_modelLabel);
  modelRow->addWidget(m_model, 1);
  modelRow->addWidget(m_modelRefresh);
  layout->addLayout(modelRow);
  connect(m_model, QOverload<int>::of(&QComboBox::activated), this, [this](int index) {
    const QString chosen = m_model->itemData(index).toString();
    if (chosen == QSettings().value("ai/model").toString()) return;
    QSettings().setValue("ai/model", chosen);
    rebuildEngine();
  });
  connect(m_modelRefresh, &QPushButton::clicked, this, [this] { refreshModels(); });
  m_engineLabel = new QLabel(this);
  m_engineLabel->setObjectName("ai-engine");
  m_engineLabel->setWordWrap(true);
  layout->addWidget(m_engineLabel);
  // Where VISTA-3D's weights come from: the window's AI > Get Models (setGetModelsAction).
  m_getModels = new QToolButton(this);
  m_getModels->setObjectName("ai-get-models");
  m_getModels->setToolButtonStyle(Qt::ToolButtonTextOnly);
  layout->addWidget(m_getModels, 0, Qt::AlignLeft);
  m_fit = new QLabel(this);
  m_fit->setObjectName("ai-fit");
  m_fit->setWordWrap(true);
  m_fit->setVisible(false);
  layout->addWidget(m_fit);
  auto button = [this, layout](const char* name) {
    auto* b = new QPushButton(this);
    b->setObjectName(name);
    layout->addWidget(b);
    return b;
  };
  m_everything = button("ai-everything");
  m_classesLabel = new QLabel(this);
  layout->addWidget(m_classesLabel);
  m_classes = new QListWidget(this);
  m_classes->setObjectName("ai-classes");
  m_classes->setMaximumHeight(140);
  layout->addWidget(m_classes);
  m_selected = button("ai-selected");
  m_clickButton = button("ai-click-mode");
  m_clickButton->setCheckable(true);
  auto* toolRow = new QHBoxLayout();
  m_toolLabel = new QLabel(this);
  toolRow->addWidget(m_toolLabel);
  const char* toolNames[4] = {"ai-tool-point", "ai-tool-box", "ai-tool-scribble", "ai-tool-lasso"};
  for (int i = 0; i < 4; ++i) {
    m_toolButtons[i] = new QToolButton(this);
    m_toolButtons[i]->setObjectName(toolNames[i]);
    m_toolButtons[i]->setCheckable(true);
    m_toolButtons[i]->setAutoExclusive(true);
    toolRow->addWidget(m_toolButtons[i]);
    connect(m_toolButtons[i], &QToolButton::clicked, this, [this, i] { setPromptTool(static_cast<SlicePanel::PromptTool>(i)); });
  }
  m_toolButtons[0]->setChecked(true);
  toolRow->addStretch(1);
  layout->addLayout(toolRow);
  m_clickHelp = new QLabel(this);
  m_clickHelp->setWordWrap(true);
  layout->addWidget(m_clickHelp);
  auto* targetRow = new QHBoxLayout();
  m_targetLabel = new QLabel(this);
  m_target = new QComboBox(this);
  m_target->setObjectName("ai-target");
  m_target->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_target->setMinimumContentsLength(12);
  targetRow->addWidget(m_targetLabel);
  targetRow->addWidget(m_target, 1);
  layout->addLayout(targetRow);
  auto* row = new QHBoxLayout();
  m_accept = new QPushButton(this);
  m_accept->setObjectName("ai-accept");
  m_discard = new QPushButton(this);
  m_discard->setObjectName("ai-discard");
  m_undoPoint = new QPushButton(this);
  m_undoPoint->setObjectName("ai-undo-point");
  row->addWidget(m_accept);
  row->addWidget(m_discard);
  row->addWidget(m_undoPoint);
  layout->addLayout(row);
  m_status = new QLabel(this);
  m_status->setObjectName("ai-status");
  m_status->setWordWrap(true);
  layout->addWidget(m_status);
  layout->addStretch(1);

  connect(m_everything, &QPushButton::clicked, this, [this] { segmentEverything(); });
  connect(m_selected, &QPushButton::clicked, this, [this] { segmentClasses(); });
  connect(m_clickButton, &QPushButton::toggled, this, [this](bool on) { setClickMode(on); });
  connect(m_accept, &QPushButton::clicked, this, [this] { acceptObject(); });
  connect(m_discard, &QPushButton::clicked, this, [this] { discardObject(); });
  connect(m_undoPoint, &QPushButton::clicked, this, [this] { undoPoint(); });
  connect(m_target, QOverload<int>::of(&QComboBox::activated), this, [this](int index) {
    m_chosenTarget = static_cast<core::Label>(m_target->itemData(index).toInt());
    updatePromptHints();
  });
  // The list follows the study's labels: a new study, a new table, a label added, renamed or removed by undo.
  connect(&m_document, &StudyDocument::tableChanged, this, &AiPanel::fillTargets);
  connect(&m_document, &StudyDocument::labelEntryChanged, this, &AiPanel::fillTargets);
  connect(&m_document, &StudyDocument::labelsReplaced, this, &AiPanel::fillTargets);
  connect(&m_document, &StudyDocument::edited, this, &AiPanel::fillTargets);

  // A works anywhere in the window; Return, Escape and Backspace only where the focus is in the views or this dock,
  // so they still reach a label name being edited, a dialog or a spin box.
  auto shortcut = [this](QKeySequence key, std::function<void()> fn) {
    auto* a = new QAction(this);
    a->setShortcut(key);
    connect(a, &QAction::triggered, this, std::move(fn));
    if (key == QKeySequence(Qt::Key_A)) {
      m_bench.widget()->addAction(a);
    } else {
      a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
      // The views: the window's central widget.
      if (auto* main = qobject_cast<QMainWindow*>(m_bench.widget())) main->centralWidget()->addAction(a);
      addAction(a);
    }
    m_actions.append(a);
  };
  shortcut(QKeySequence(Qt::Key_A), [this] { setClickMode(!m_clickMode); });
  shortcut(QKeySequence(Qt::Key_Return), [this] { acceptObject(); });
  shortcut(QKeySequence(Qt::Key_Escape), [this] { discardObject(); });
  shortcut(QKeySequence(Qt::Key_Backspace), [this] { undoPoint(); });
  // The prompt tools, window-wide like A (a text field keeps its letters: it takes them first).
  const Qt::Key toolKeys[4] = {Qt::Key_P, Qt::Key_X, Qt::Key_S, Qt::Key_L};
  for (int i = 0; i < 4; ++i) {
    auto* a = new QAction(this);
    a->setShortcut(QKeySequence(toolKeys[i]));
    connect(a, &QAction::triggered, this, [this, i] {
      setPromptTool(static_cast<SlicePanel::PromptTool>(i));
      setClickMode(true);
    });
    m_bench.widget()->addAction(a);
    m_actions.append(a);
  }
  m_model->addItem(QString(), QString());  // "From the preferences" (retranslate names it) until the share is listed
  retranslate();
  refreshModels();
}

AiPanel::~AiPanel() {
  ++m_generation;
  ++m_studyGeneration;
}

void AiPanel::retranslate() {
  m_modelLabel->setText(tr("Model:"));
  m_model->setToolTip(tr("The engine's model: the one set in the preferences, or a trained model from the share's "
                         "checkpoints (its newest revision)"));
  m_modelRefresh->setText(tr("Refresh"));
  m_modelRefresh->setToolTip(tr("List the share's models again"));
  if (m_model->count() > 0) m_model->setItemText(0, tr("From the preferences"));
  m_everything->setText(tr("Segment everything"));
  m_classesLabel->setText(tr("Classes:"));
  m_selected->setText(tr("Segment selected classes"));
  m_clickButton->setText(tr("Click mode (A)"));
  m_toolLabel->setText(tr("Prompt:"));
  const QString toolTexts[4] = {tr("Point"), tr("Box"), tr("Scribble"), tr("Lasso")};
  const QString toolTips[4] = {
      tr("Click on the object (positive) or beside it (negative) (P)"),
      tr("Drag a rectangle around the object in a slice: it bounds the object in that slice's two directions (X)"),
      tr("Paint a stroke over the object (positive) or over what is not (negative) (S)"),
      tr("Draw a closed contour around part of the object in a slice; its inside is the object, or not (L)")};
  for (int i = 0; i < 4; ++i) {
    m_toolButtons[i]->setText(toolTexts[i]);
    m_toolButtons[i]->setToolTip(toolTips[i]);
  }
  m_clickHelp->setText(tr("Left button: positive. Shift + left or right button: negative. A click gives a point; "
                          "a drag gives a box, scribble or lasso."));
  m_accept->setText(tr("Accept"));
  m_accept->setToolTip(tr("Write the object into the label chosen under \"Accept into\" (Return)"));
  m_targetLabel->setText(tr("Accept into:"));
  m_target->setToolTip(tr("The label the accepted object is written into: a new label unless you choose one here or "
                          "in the labels list"));
  m_discard->setText(tr("Discard"));
  m_discard->setToolTip(tr("Drop the object (Escape)"));
  m_undoPoint->setText(tr("Undo prompt"));
  m_undoPoint->setToolTip(tr("Remove the last prompt (Backspace)"));
  const QString actionTexts[8] = {tr("AI click mode"),   tr("Accept AI object"), tr("Discard AI object"),
                                  tr("Remove last AI prompt"), tr("AI prompt: point"), tr("AI prompt: box"),
                                  tr("AI prompt: scribble"), tr("AI prompt: lasso")};
  for (int i = 0; i < m_actions.size() && i < 8; ++i) m_actions[i]->setText(actionTexts[i]);
  fillTargets();
  updateState();
}

void AiPanel::setGetModelsAction(QAction* action) { m_getModels->setDefaultAction(action); }

QString AiPanel::engineDescription() const {
  if (!m_engine) return m_building ? tr("Engine: starting...") : tr("Engine: none");
  return tr("Engine: %1 on %2").arg(QString::fromStdString(m_info.id), QString::fromStdString(m_info.device));
}

void AiPanel::updateState() {
  const bool study = m_document.session() != nullptr;
  const bool ready = study && m_engine && !m_running;
  m_everything->setEnabled(ready);
  m_model->setEnabled(!m_running && !m_building);  // a choice made now would be dropped by rebuildEngine
  m_modelRefresh->setEnabled(!m_running && !m_building);
  m_selected->setEnabled(ready && m_classes->count() > 0);
  m_clickButton->setEnabled(study && m_engine && (m_info.supportsPoints || m_info.guidesPrompts));
  if (m_clickButton->isChecked() != m_clickMode) {
    const QSignalBlocker block(m_clickButton);
    m_clickButton->setChecked(m_clickMode);
  }
  const bool object = m_session && pointCount() > 0;
  m_accept->setEnabled(object && !m_running);
  m_discard->setEnabled(object || !m_queue.empty());
  m_undoPoint->setEnabled(object && !m_running);
  QString engine = engineDescription();
  if (const QString why = engineWhyText(); !why.isEmpty()) engine += "\n" + why;
  m_engineLabel->setText(engine);
  // Shown before anything runs: why the model does not fit this study, or that nothing says whether it does.
  const inference::ModelFit fit = modelFit();
  const QString fitText = study && m_engine ? modelFitText(fit) : QString();
  m_fit->setText(fitText);
  m_fit->setStyleSheet(fit.verdict == inference::ModelFit::Verdict::Mismatch ? QStringLiteral("color: #b00020;")
                                                                            : QString());
  m_fit->setVisible(!fitText.isEmpty());
  updatePromptHints();
}

QString AiPanel::engineWhyText() const {
  using Reason = inference::EngineChoice::Reason;
  if (!m_engine) return {};
  if (m_engineFellBack) return tr("classic engine (the configured one failed)");
  QString why;
  const QString device = QString::fromStdString(m_info.device);
  const int classes = static_cast<int>(m_info.classes.size());
  switch (m_engineReason) {
    case Reason::NoCheckpoint: why = tr("classic engine: no VISTA-3D checkpoint is configured"); break;
    case Reason::NoCuda:
      why = tr("classic engine: no CUDA device for VISTA-3D (choose the CPU in the preferences to run it there, at "
               "minutes per window)");
      break;
    case Reason::AtlasNetwork: why = tr("atlas network %1 (%n classes) on %2", nullptr, classes).arg(m_engineCheckpoint, device); break;
    case Reason::Vista3d:
    case Reason::Vista3dOnCpu:
      why = tr("VISTA-3D on %1").arg(device);
      if (m_engineReason == Reason::Vista3dOnCpu)
        why += tr(", asked for (the full model takes minutes per 128^3 window on a CPU)");
      if (m_engineFineTuned) why += tr(", fine-tuned: %n classes by the labels it was trained with", nullptr, classes);
      break;
    case Reason::Other: return m_engineWhy;  // a reason this window does not know: as the engine wrote it
  }
  // Where the checkpoint came from (a share out of reach, its pinned model taken from the cache): io's own words.
  if (!m_engineNote.isEmpty()) why += "; " + m_engineNote;
  return why;
}

inference::ModelFit AiPanel::modelFit() const {
  const core::AnnotationSession* session = m_document.session();
  if (!session || !m_fitProfile) return {};
  inference::StudyFitInput study;
  study.geometry = session->image().geometry();
  if (const io::DicomSeries* dicom = m_document.dicomSource()) study.modality = dicom->modality;
  study.hounsfield = m_document.isCt();
  return inference::checkModelFit(*m_fitProfile, study);
}

QString AiPanel::modelFitText(const inference::ModelFit& fit) const {
  using Kind = inference::ModelFitIssue::Kind;
  if (fit.verdict == inference::ModelFit::Verdict::Fits) return {};
  if (fit.verdict == inference::ModelFit::Verdict::Unknown)
    return tr("Fit unknown: this model's sidecar records nothing of its training images (a checkpoint from before "
              "they were recorded); check its results on this study with care.");
  const core::AnnotationSession* session = m_document.session();
  if (!session) return {};
  auto mm = [](double v) { return QString::number(v, 'g', 3); };
  auto triple = [&](const core::Vec3& v) { return tr("%1 \u00d7 %2 \u00d7 %3 mm").arg(mm(v[0]), mm(v[1]), mm(v[2])); };
  auto factor = [](double f) { return QString::number(f, 'f', f < 10 ? 1 : 0); };
  const core::Size3& d = session->image().geometry().dimensions();
  const io::DicomSeries* dicom = m_document.dicomSource();
  const QString kind = dicom && !dicom->modality.empty() ? QString::fromStdString(dicom->modality) : tr("image");
  const QString study = tr("this %1 is %2 mm, %3 \u00d7 %4 \u00d7 %5 voxels (%6)")
                            .arg(kind, mm(fit.studySpacingMm[0]))
                            .arg(d[0]).arg(d[1]).arg(d[2])
                            .arg(triple(fit.studyExtentMm));
  QString text = study;
  if (fit.model.images > 0) {
    const inference::TrainingDataProfile& p = fit.model;
    QStringList modalities;
    for (const auto& m : p.modalities) modalities << QString::fromStdString(m);
    const QString spacing = mm(p.spacingMinMm[0]) == mm(p.spacingMaxMm[0])
                                ? mm(p.spacingMinMm[0])
                                : tr("%1-%2").arg(mm(p.spacingMinMm[0]), mm(p.spacingMaxMm[0]));
    const QString images = modalities.isEmpty() ? tr("%n image(s)", nullptr, p.images)
                                                : tr("%n %1 image(s)", nullptr, p.images).arg(modalities.join('/'));
    text = tr("Model trained on %1 at %2 mm, field of view up to %3; %4")
               .arg(images, spacing, triple(p.extentMaxMm), study);
  }
  QStringList why;
  for (const auto& i : fit.issues) {
    switch (i.kind) {
      case Kind::FieldOfViewLarger: why << tr("field of view %1\u00d7 larger").arg(factor(i.factor)); break;
      case Kind::FieldOfViewSmaller: why << tr("field of view %1\u00d7 smaller").arg(factor(i.factor)); break;
      case Kind::SpacingCoarser: why << tr("voxels %1\u00d7 coarser").arg(factor(i.factor)); break;
      case Kind::SpacingFiner: why << tr("voxels %1\u00d7 finer").arg(factor(i.factor)); break;
      case Kind::Modality: why << tr("another modality"); break;
      case Kind::NotHounsfield: why << tr("no CT intensities (Hounsfield units)"); break;
      case Kind::GridTooLarge:
        why << tr("resampled to the model's grid it would be %1 billion voxels, too large to segment")
                   .arg(QString::number(i.factor / 1e9, 'g', 3));
        break;
    }
  }
  return tr("The model does not fit this study: %1: %2").arg(text, why.join(QStringLiteral(", ")));
}

bool AiPanel::checkModelFit(const QString& what) {
  const inference::ModelFit fit = modelFit();
  if (fit.verdict == inference::ModelFit::Verdict::Fits) return true;
  const QString text = modelFitText(fit);
  if (fit.verdict == inference::ModelFit::Verdict::Unknown) {
    m_bench.showStatus(text, 8000);
    return true;
  }
  if (!fit.refused && m_fitConfirmed == m_studyGeneration) return true;
  if (fit.refused || !m_bench.dialogsEnabled()) {
    m_bench.reportError(tr("%1: %2").arg(what, text));
    return false;
  }
  // A confirmation, not a refusal: the thresholds are rules of thumb, and a researcher may mean to try a model on a
  // related animal or another scanner. Asked once per study; No is the default.
  QMessageBox box(QMessageBox::Warning, tr("Model Does Not Fit the Study"), text + QStringLiteral("\n\n") +
                      tr("Its result is likely to be wrong. Run it anyway?"),
                  QMessageBox::NoButton, m_bench.widget());
  QPushButton* run = box.addButton(tr("Run Anyway"), QMessageBox::AcceptRole);
  QPushButton* cancel = box.addButton(QMessageBox::Cancel);
  box.setDefaultButton(cancel);
  box.exec();
  if (box.clickedButton() != run) return false;
  m_fitConfirmed = m_studyGeneration;
  return true;
}

void AiPanel::studyChanged() {
  ++m_generation;
  ++m_studyGeneration;
  m_session.reset();
  m_sessionEdits = 0;
  m_queue.clear();
  m_computing.reset();
  m_confirmedPoints.clear();
  clearPreview();
  m_status->clear();  // it described the previous study's object or segmentation
  m_chosenTarget = 0;  // a label of the previous study means nothing here
  fillTargets();
  if (!m_engine && !m_building && m_document.session()) buildEngine();
  updateState();
}

bool AiPanel::useModel(const QString& reference) {
  if (m_running || m_building) {
    m_bench.showStatus(tr("The engine is busy: choose the model when it is done"), 5000);
    return false;
  }
  int index = m_model->findData(reference);
  if (index < 0) {  // a revision other than the newest: listed while it is in use
    m_model->addItem(reference, reference);
    index = m_model->count() - 1;
  }
  m_model->setCurrentIndex(index);
  if (reference == QSettings().value("ai/model").toString() && m_engine) return true;
  QSettings().setValue("ai/model", reference);
  rebuildEngine();
  return true;
}

void AiPanel::rebuildEngine() {
  if (m_running || m_building) return;
  discardObject();
  setClickMode(false);
  m_engine.reset();
  m_info = {};
  m_engineWhy.clear();
  m_engineReason = inference::EngineChoice::Reason::Other;
  m_engineFineTuned = m_engineFellBack = false;
  m_engineCheckpoint.clear();
  m_engineNote.clear();
  m_fitProfile.reset();
  buildEngine();
}

void AiPanel::refreshModels() {
  const QString root = QSettings().value("share/root").toString();
  using Models = core::Result<std::vector<io::CheckpointModelSummary>>;
  listShareOnWorker(this, m_bench.workers(), root, io::listCheckpointModels, [this, root](const Models& models) {
    const QString current = QSettings().value("ai/model").toString();  // chosen meanwhile, perhaps
    m_model->clear();
    m_model->addItem(tr("From the preferences"), QString());
    if (!models) {
      m_status->setText(tr("Share models: %1").arg(fromError(models.error())));
    } else {
      for (const auto& m : *models) {
        const QString training = QString::fromStdString(m.trainingBy);
        if (m.revision == 0) {  // a first run still going: shown, nothing to choose yet
          m_model->addItem(tr("%1 (being trained by %2)").arg(QString::fromStdString(m.model), training), QString());
          if (auto* items = qobject_cast<QStandardItemModel*>(m_model->model()))
            items->item(m_model->count() - 1)->setEnabled(false);
          continue;
        }
        io::CheckpointReference reference{root.toStdString(), m.model, m.revision};
        QString text = tr("%1 r%2").arg(QString::fromStdString(m.model)).arg(m.revision);
        QStringList details;
        if (!m.architecture.empty()) details << QString::fromStdString(m.architecture);
        if (m.classes > 0) details << (m.classes == 1 ? tr("1 class") : tr("%1 classes").arg(m.classes));
        if (m.dice >= 0) details << tr("Dice %1").arg(m.dice, 0, 'f', 3);
        if (!training.isEmpty()) details << tr("being trained by %1").arg(training);
        if (!details.isEmpty()) text += " (" + details.join(", ") + ")";
        m_model->addItem(text, QString::fromStdString(io::formatCheckpointReference(reference)));
        m_model->setItemData(m_model->count() - 1,
                             tr("%1, saved by %2 at %3").arg(QString::fromStdString(m.model), QString::fromStdString(m.author),
                                                            QString::fromStdString(m.time)),
                             Qt::ToolTipRole);
      }
    }
    // The model in use stays listed (a revision newer than it may have appeared meanwhile).
    int index = m_model->findData(current);
    if (index < 0 && !current.isEmpty()) {
      m_model->addItem(current, current);
      index = m_model->count() - 1;
    }
    m_model->setCurrentIndex(std::max(0, index));
    Q_EMIT modelsListed();
  });
}

void AiPanel::buildEngine() {
  m_building = true;
  QSettings settings;
  inference::EngineSelection selection;
  selection.checkpoint = settings.value("ai/checkpoint").toString().toStdString();
  selection.vista.device = settings.value("ai/device", "auto").toString().toStdString();
  // A model chosen from the share: fetched (verified, into the cache) on the worker, then chosen like a file.
  const std::string model = settings.value("ai/model").toString().toStdString();
  if (!model.empty()) selection.checkpoint = model;
  selection.vista.roi = settings.value("ai/roi", 128).toInt();  // the bundle's 128; smaller only for small models
  using Choice = std::shared_ptr<core::Result<inference::EngineChoice>>;
  // Read with the checkpoint on the worker: the trained model's training data profile (modelFit), the checkpoint's
  // file name and a note on where it came from (engineWhyText).
  struct Extras {
    std::optional<inference::ModelFitProfile> profile;
    std::string checkpointName, note;
  };
  auto extras = std::make_shared<Extras>();
  auto* watcher = new QFutureWatcher<Choice>(this);
  connect(watcher, &QFutureWatcher<Choice>::finished, this, [this, watcher, extras] {
    Choice choice = watcher->result();
    watcher->deleteLater();
    m_building = false;
    m_fitProfile = *choice ? extras->profile : std::nullopt;
    m_fitConfirmed.reset();
    m_engineFellBack = !*choice;
    if (!*choice) {
      m_bench.reportError(tr("AI engine: %1").arg(fromError(choice->error())));
      // The classic engine always works: fall back to it so the tools stay usable.
      m_engine = inference::createEngine("classic");
      m_engineWhy.clear();
      m_engineReason = inference::EngineChoice::Reason::Other;
    } else {
      m_engine = std::move((*choice)->engine);
      m_engineWhy = QString::fromStdString((*choice)->why);
      m_engineReason = (*choice)->reason;
      m_engineFineTuned = (*choice)->fineTuned;
      m_engineCheckpoint = QString::fromStdString(extras->checkpointName);
      m_engineNote = QString::fromStdString(extras->note);
    }
    m_classes->clear();
    m_info = m_engine ? m_engine->info() : inference::EngineInfo{};
    if (m_info.classes.empty() && m_info.id == "vista3d") m_info.classes = vista3dClasses();
    for (const core::LabelEntry& e : m_info.classes.entries()) {
      auto* item = new QListWidgetItem(QString("%1  %2").arg(e.id).arg(QString::fromStdString(e.name)), m_classes);
      item->setData(Qt::UserRole, e.id);
      item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
      item->setCheckState(Qt::Unchecked);
    }
    updateState();
    Q_EMIT engineChanged();
  });
  // Engines read checkpoints and sidecars through io (core/file_source.h; the plugin is given it too): the sealed
  // checkpoint cache and the window's own sealed training runs read as their content.
  static const bool filesThroughIo = [] {
    if (!core::fileSource()) core::setFileSource(io::atRestFileSource());
    return true;
  }();
  (void)filesThroughIo;
  watcher->setFuture(QtConcurrent::run(&m_bench.workers(), [selection, extras]() mutable {
    std::string note;  // a share out of reach, its pinned model taken from the cache
    if (!selection.checkpoint.empty()) {
      auto local = io::resolveCheckpoint(selection.checkpoint, {}, &note);
      if (!local) return std::make_shared<core::Result<inference::EngineChoice>>(local.error());
      selection.checkpoint = *local;
      extras->checkpointName = std::filesystem::path(*local).filename().string();
      extras->note = note;
      // A sidecar the engine takes but whose profile is malformed: the fit is unknown, not an error of the engine.
      auto read = inference::readModelFitProfile(selection.checkpoint);
      if (read) extras->profile = *read;
      else extras->profile = inference::ModelFitProfile{};
    }
    auto choice = std::make_shared<core::Result<inference::EngineChoice>>(inference::selectEngineViaPlugin(selection));
    if (*choice && !note.empty()) (*choice)->why += "; " + note;
    return choice;
  }));
  updateState();
}

bool AiPanel::segmentEverything() { return runSegmentation({}, "Segment everything"); }

bool AiPanel::segmentClasses(std::vector<core::Label> classes) {
  if (classes.empty())
    for (int i = 0; i < m_classes->count(); ++i)
      if (m_classes->item(i)->checkState() == Qt::Checked)
        classes.push_back(static_cast<core::Label>(m_classes->item(i)->data(Qt::UserRole).toInt()));
  if (classes.empty()) {
    m_bench.reportError(tr("Tick the classes to segment first"));
    return false;
  }
  return runSegmentation(std::move(classes), "Segment selected classes");
}

bool AiPanel::runSegmentation(std::vector<core::Label> classes, const char* stepName) {
  const core::AnnotationSession* session = m_document.session();
  if (!session || !m_engine || m_running || m_bench.busy()) return false;
  if (!checkModelFit(editStepName(stepName))) return false;
  m_running = true;
  updateState();
  inference::SegmentationRequest request;
  request.classes = std::move(classes);
  auto engine = m_engine;
  const core::ImageView image = session->image();
  const std::uint64_t generation = m_studyGeneration;  // Escape (a click object's discard) does not drop it
  QElapsedTimer clock;
  clock.start();
  auto progress = m_bench.startProgress(editStepName(stepName));
  using Patch = std::shared_ptr<core::Result<core::LabelPatch>>;
  auto* watcher = new QFutureWatcher<Patch>(this);
  connect(watcher, &QFutureWatcher<Patch>::finished, this, [this, watcher, generation, clock, stepName, progress] {
    Patch patch = watcher->result();
    watcher->deleteLater();
    m_running = false;
    m_bench.finishProgress(progress);
    const bool current = generation == m_studyGeneration && m_document.session();
    bool ok = false;
    if (!current || progress->cancelled()) {
      m_bench.showStatus(tr("Cancelled"), 3000);
    } else if (!*patch) {
      m_bench.reportError(tr("%1: %2").arg(editStepName(stepName), fromError(patch->error())));
    } else if (std::all_of((*patch)->voxels.begin(), (*patch)->voxels.end(), [](core::Label v) { return v == 0; })) {
      // Said, not applied as an empty undo step: the user must not think it worked and wrote nothing.
      ok = true;
      m_status->setText(tr("%1: the engine found nothing (every voxel is background)").arg(editStepName(stepName)));
      m_bench.showStatus(m_status->text(), 8000);
    } else {
      // Existing labels stay where the engine found background; locked labels are never overwritten. The engine's
      // class names come only for the labels it wrote, in the same undo step.
      ok = m_tools.applyPatch(**patch, stepName, true, &m_info.classes);
      m_status->setText(tr("%1: %2 s").arg(editStepName(stepName)).arg(static_cast<double>(clock.elapsed()) / 1000.0, 0, 'f', 1));
    }
    updateState();
    Q_EMIT segmentationFinished(ok);
    runNextPoint();  // points clicked meanwhile
  });
  watcher->setFuture(QtConcurrent::run(&m_bench.workers(), [engine, image, request, progress] {
    try {
      return std::make_shared<core::Result<core::LabelPatch>>(engine->segment(image, request, progress.get()));
    } catch (const std::bad_alloc&) {
      return std::make_shared<core::Result<core::LabelPatch>>(
          core::Error{core::ErrorCode::OutOfMemory, "segmentation", "out of memory"});
    }
  }));
  return true;
}

void AiPanel::setClickMode(bool on) {
  if (on && (!m_document.session() || !m_engine || !(m_info.supportsPoints || m_info.guidesPrompts))) on = false;
  if (on && !m_clickMode && !checkModelFit(tr("AI click mode"))) on = false;
  if (on == m_clickMode) {
    updateState();
    return;
  }
  if (on) m_tools.setTool(EditTools::Tool::Navigate);  // before: Navigate turns click mode off
  m_clickMode = on;
  m_bench.setClicking(on);
  updateState();
  Q_EMIT clickModeChanged(on);
}

bool AiPanel::addPoint(const core::Vec3& lps, bool positive) { return addPrompt(inference::Prompt::point({lps, positive})); }

namespace {
std::size_t dominantAxis(const core::Vec3& v) {
  std::size_t a = 0;
  for (std::size_t k = 1; k < 3; ++k)
    if (std::fabs(v[k]) > std::fabs(v[a])) a = k;
  return a;
}

// A box drawn in one view and a second drawn in another (their normals on different axes) as one 3D box: each gives
// the extent along the other's normal; along the axis they share, where both agree (the second's when they do not).
inference::Prompt box3d(const inference::Prompt& first, const inference::Prompt& second) {
  const std::size_t n1 = dominantAxis(first.normalLps), n2 = dominantAxis(second.normalLps);
  inference::Prompt out = second;
  out.normalLps = {0, 0, 0};
  core::Vec3 lo{}, hi{};
  for (std::size_t a = 0; a < 3; ++a) {
    const double f0 = std::min(first.pointsLps[0][a], first.pointsLps[1][a]), f1 = std::max(first.pointsLps[0][a], first.pointsLps[1][a]);
    const double s0 = std::min(second.pointsLps[0][a], second.pointsLps[1][a]), s1 = std::max(second.pointsLps[0][a], second.pointsLps[1][a]);
    if (a == n2) {
      lo[a] = f0, hi[a] = f1;
    } else if (a == n1) {
      lo[a] = s0, hi[a] = s1;
    } else if (std::max(f0, s0) <= std::min(f1, s1)) {
      lo[a] = std::max(f0, s0), hi[a] = std::min(f1, s1);
    } else {
      lo[a] = s0, hi[a] = s1;
    }
  }
  out.pointsLps = {lo, hi};
  return out;
}
}  // namespace

bool AiPanel::addDrawnPrompt(SlicePanel::PromptTool tool, const std::vector<core::Vec3>& pointsLps,
                             const core::Vec3& normalLps, bool positive) {
  // A box drawn in another view right after a box (the last prompt, computed, same sign) makes the two one 3D box:
  // the first is taken back and the 3D box given instead.
  if (tool == SlicePanel::PromptTool::Box && pointsLps.size() == 2 && m_session && !m_running && m_queue.empty() &&
      !m_confirmedPoints.empty()) {
    const inference::Prompt& last = m_confirmedPoints.back();
    if (last.kind == inference::Prompt::Kind::Box && last.positive == positive && last.pointsLps.size() == 2 &&
        dominantAxis(last.normalLps) != dominantAxis(normalLps) && (std::fabs(last.normalLps[0]) + std::fabs(last.normalLps[1]) + std::fabs(last.normalLps[2])) > 0) {
      inference::Prompt second;
      second.kind = inference::Prompt::Kind::Box;
      second.positive = positive;
      second.pointsLps = pointsLps;
      second.normalLps = normalLps;
      const inference::Prompt merged = box3d(last, second);
      if (undoPoint()) return addPrompt(merged);
    }
  }
  inference::Prompt p;
  p.positive = positive;
  p.pointsLps = pointsLps;
  p.normalLps = normalLps;
  switch (tool) {
    case SlicePanel::PromptTool::Point: p.kind = inference::Prompt::Kind::Point; break;
    case SlicePanel::PromptTool::Box: p.kind = inference::Prompt::Kind::Box; break;
    case SlicePanel::PromptTool::Scribble: p.kind = inference::Prompt::Kind::Scribble; break;
    case SlicePanel::PromptTool::Lasso: p.kind = inference::Prompt::Kind::Lasso; break;
  }
  return addPrompt(p);
}

void AiPanel::setPromptTool(SlicePanel::PromptTool tool) {
  m_tool = tool;
  const int i = static_cast<int>(tool);
  if (m_toolButtons[i] && !m_toolButtons[i]->isChecked()) m_toolButtons[i]->setChecked(true);
  for (auto o : kSliceViews) m_bench.slicePanel(o)->setPromptTool(tool);
}

bool AiPanel::guidedTarget(core::Label& label) const {
  if (!m_engine || !m_info.guidesPrompts) return false;
  label = acceptTarget();
  return label != 0 && m_info.classes.contains(label);
}

QString AiPanel::promptMode() const {
  core::Label label = 0;
  if (m_session) return m_sessionEdits ? QStringLiteral("model-guided") : QString::fromStdString(m_info.guidesPrompts ? "classic" : m_info.id);
  if (guidedTarget(label)) return QStringLiteral("model-guided");
  return QString::fromStdString(m_info.guidesPrompts || !m_engine ? "classic" : m_info.id);
}

void AiPanel::updatePromptHints() {
  QString context;
  core::Label label = m_sessionEdits;
  const bool guided = m_session ? m_sessionEdits != 0 : guidedTarget(label);
  if (m_engine && guided) {
    const core::AnnotationSession* session = m_document.session();
    const core::LabelEntry* e = session ? session->table().find(label) : nullptr;
    context = tr("model-guided: edits label %1").arg(e ? QString("%1 \u201c%2\u201d").arg(label).arg(QString::fromStdString(e->name))
                                                       : QString::number(label));
  } else if (m_engine && m_info.guidesPrompts) {
    context = tr("classic engine (intensities): choose one of the model's labels to edit it model-guided");
  }
  for (auto o : kSliceViews) m_bench.slicePanel(o)->setPromptContext(context);
}

bool AiPanel::addPrompt(const inference::Prompt& prompt) {
  const core::AnnotationSession* session = m_document.session();
  if (!session || !m_clickMode || !m_engine) return false;
  if (m_bench.loading()) {  // a new study may replace this image while the engine reads it
    m_bench.showStatus(tr("Wait for the study to finish loading"), 3000);
    return false;
  }
  // Rasterised here first: a prompt that holds no voxel of the image (outside it, a lasso around no voxel centre)
  // is said, not queued.
  if (auto raster = inference::rasterizePrompt(prompt, session->image().geometry()); !raster) {
    if (prompt.kind == inference::Prompt::Kind::Point) return false;
    m_bench.showStatus(tr("AI prompt: %1").arg(fromError(raster.error())), 5000);
    return false;
  }
  m_queue.push_back(prompt);
  if (!m_running) runNextPoint();
  showPoints();  // at once, before the engine is done
  updateState();
  return true;
}

void AiPanel::runNextPoint() {
  if (m_queue.empty() || m_running || m_bench.loading()) return;
  const core::AnnotationSession* session = m_document.session();
  if (!session) return;
  const inference::Prompt point = m_queue.front();
  m_queue.pop_front();
  m_computing = point;
  m_running = true;
  auto engine = m_engine;
  auto clickSession = m_session;
  const core::ImageView image = session->image();
  // A new object: model-guided when the engine gives probabilities and the target is one of its classes (starting
  // from the label as it is, copied now on the GUI thread); else the engine's own sessions, or the classic engine's.
  core::Label guided = 0;
  std::shared_ptr<inference::ObjectMask> start;
  bool classic = false;
  if (!clickSession) {
    if (guidedTarget(guided)) {
      start = std::make_shared<inference::ObjectMask>(inference::objectOfLabel(session->labels().voxels(), guided));
    } else {
      classic = !m_info.supportsPoints;
    }
    m_sessionEdits = guided;
  }
  const std::uint64_t generation = m_generation;
  struct Outcome {
    std::shared_ptr<inference::InteractiveSession> session;
    core::Status status;
    double ms = 0;
  };
  auto* watcher = new QFutureWatcher<std::shared_ptr<Outcome>>(this);
  connect(watcher, &QFutureWatcher<std::shared_ptr<Outcome>>::finished, this, [this, watcher, generation] {
    auto outcome = watcher->result();
    watcher->deleteLater();
    m_running = false;
    m_computing.reset();
    if (generation != m_generation) {  // discarded or another study meanwhile
      updateState();
      runNextPoint();
      return;
    }
    if (!outcome->status) {
      if (!m_session) m_sessionEdits = 0;
      m_bench.reportError(tr("AI prompt: %1").arg(fromError(outcome->status.error())));
    } else {
      m_session = outcome->session;
      m_confirmedPoints = m_session->prompts();
      m_engineMs = outcome->ms;
      showPreview();
    }
    showPoints();
    updateState();
    if (!m_queue.empty()) runNextPoint();
    else if (outcome->status) Q_EMIT previewUpdated();
  });
  watcher->setFuture(QtConcurrent::run(&m_bench.workers(), [engine, clickSession, image, point, guided, start, classic] {
    auto out = std::make_shared<Outcome>();
    QElapsedTimer clock;
    clock.start();
    try {
      out->session = clickSession;
      if (!out->session && start) {
        auto probability = engine->classProbability(image, guided, nullptr);
        if (!probability) {
          out->status = probability.error();
          return out;
        }
        auto begun = inference::GuidedSession::begin(image, std::move(probability).value(), *start);
        if (!begun) {
          out->status = begun.error();
          return out;
        }
        out->session = std::shared_ptr<inference::InteractiveSession>(std::move(begun).value());
      } else if (!out->session) {
        auto begun = classic ? inference::createEngine("classic")->beginSession(image) : engine->beginSession(image);
        if (!begun) {
          out->status = begun.error();
          return out;
        }
        out->session = std::shared_ptr<inference::InteractiveSession>(std::move(begun).value());
      }
      out->status = out->session->addPrompt(point);
      if (!out->status && !clickSession) out->session.reset();  // a first prompt that failed leaves no session
    } catch (const std::bad_alloc&) {
      out->status = core::Error{core::ErrorCode::OutOfMemory, "click", "out of memory"};
    }
    out->ms = static_cast<double>(clock.nsecsElapsed()) / 1e6;
    return out;
  }));
}

std::size_t AiPanel::objectVoxels() const { return m_session ? m_objectVoxels : 0; }

void AiPanel::showPreview() {
  QElapsedTimer clock;
  clock.start();
  const inference::ObjectMask& mask = m_session->mask();  // the worker is idle: no job holds the session now
  m_objectVoxels = mask.count();
  // The colours of the visible labels the object covers: the preview takes a hue far from all of them.
  std::vector<core::Rgba> under;
  if (const core::AnnotationSession* session = m_document.session(); session && !mask.box.empty()) {
    const core::LabelMap& labels = session->labels();
    const core::Geometry& g = labels.geometry();
    // A flag per id, not a set: this runs on every click over an object of up to millions of voxels.
    std::vector<std::uint8_t> seen(65536, 0);
    std::size_t i = 0;
    for (std::int64_t z = mask.box.min[2]; z <= mask.box.max[2]; ++z)
      for (std::int64_t y = mask.box.min[1]; y <= mask.box.max[1]; ++y) {
        const core::Label* row = labels.data() + g.linearIndex({0, y, z});
        for (std::int64_t x = mask.box.min[0]; x <= mask.box.max[0]; ++x, ++i)
          if (mask.voxels[i]) seen[row[x]] = 1;
      }
    for (std::size_t id = 1; id < seen.size(); ++id) {
      const auto label = static_cast<core::Label>(id);
      if (!seen[id] || !m_document.isLabelVisible(label)) continue;
      const core::LabelEntry* entry = session->table().find(label);
      under.push_back(entry ? entry->color : core::LabelTable::defaultColor(label));
    }
  }
  const core::Rgba colour = viewer::contrastingPreviewColor(under);
  for (auto o : kSliceViews) {
    SlicePanel* panel = m_bench.slicePanel(o);
    panel->scene().setPreview(mask.box, mask.voxels.data(), colour);
    panel->view().repaint();  // now, so the time below includes drawing
  }
  m_displayMs = static_cast<double>(clock.nsecsElapsed()) / 1e6;
  m_status->setText(tr("%n prompt(s), object %1 voxels; engine %2 ms, display %3 ms", nullptr, static_cast<int>(pointCount()))
                        .arg(m_objectVoxels)
                        .arg(m_engineMs, 0, 'f', 0)
                        .arg(m_displayMs, 0, 'f', 0));
}

void AiPanel::clearPreview() {
  for (auto o : kSliceViews) {
    m_bench.slicePanel(o)->scene().clearPreview();
    if (pointCount() == 0 && m_queue.empty() && !m_computing) {
      m_bench.slicePanel(o)->scene().setClickPoints({});
      m_bench.slicePanel(o)->scene().setPromptShapes({});
    }
  }
  m_bench.refreshViews();
}

void AiPanel::showPoints() {
  std::vector<viewer::SliceScene::ClickPoint> points;
  std::vector<viewer::SliceScene::PromptShape> shapes;
  auto add = [&](const inference::Prompt& p) {
    if (p.kind == inference::Prompt::Kind::Point) {
      points.push_back({p.pointsLps.front(), p.positive});
    } else if (p.kind == inference::Prompt::Kind::Box && p.pointsLps.size() == 2) {
      shapes.push_back({boxCorners(p.pointsLps[0], p.pointsLps[1], p.normalLps), true, p.positive});
    } else {
      shapes.push_back({p.pointsLps, p.kind == inference::Prompt::Kind::Lasso, p.positive});
    }
  };
  for (const auto& p : m_confirmedPoints) add(p);
  if (m_computing) add(*m_computing);
  for (const auto& p : m_queue) add(p);
  for (auto o : kSliceViews) {
    m_bench.slicePanel(o)->scene().setClickPoints(points);
    m_bench.slicePanel(o)->scene().setPromptShapes(shapes);
  }
  m_bench.refreshViews();
}

bool AiPanel::undoPoint() {
  if (!m_session || m_running || pointCount() == 0) return false;
  if (!m_session->undoPrompt()) return false;
  m_confirmedPoints = m_session->prompts();
  if (m_confirmedPoints.empty()) clearPreview();
  else showPreview();
  showPoints();
  updateState();
  return true;
}

core::Label AiPanel::acceptTarget() const {
  const core::AnnotationSession* session = m_document.session();
  if (!session || m_chosenTarget == 0) return 0;
  // A chosen label that went away (undone, another table) is no target: the object gets a new label.
  return session->table().contains(m_chosenTarget) || m_document.voxelCounts().count(m_chosenTarget) ? m_chosenTarget : 0;
}

void AiPanel::setAcceptTarget(core::Label label) {
  m_chosenTarget = label;
  fillTargets();
  updatePromptHints();
}

void AiPanel::fillTargets() {
  const QSignalBlocker block(m_target);
  m_target->clear();
  m_target->addItem(tr("New label"), 0);
  const core::AnnotationSession* session = m_document.session();
  if (session) {
    std::set<core::Label> ids;
    for (const core::LabelEntry& e : session->table().entries()) ids.insert(e.id);
    for (const auto& [label, count] : m_document.voxelCounts())
      if (label != 0) ids.insert(label);
    for (core::Label id : ids) {
      const core::LabelEntry* e = session->table().find(id);
      m_target->addItem(e ? QString("%1  %2").arg(id).arg(QString::fromStdString(e->name))
                          : tr("%1  (unnamed)").arg(id),
                        static_cast<int>(id));
    }
  }
  const int at = m_target->findData(static_cast<int>(acceptTarget()));
  m_target->setCurrentIndex(at < 0 ? 0 : at);
  m_target->setEnabled(session != nullptr);
}

bool AiPanel::acceptObject() {
  if (!m_session || m_running || pointCount() == 0) return false;
  const core::AnnotationSession* session = m_document.session();
  if (!session) return false;
  // A model-guided session edits its own label, whatever "Accept into" says now.
  core::Label label = m_sessionEdits != 0 ? m_sessionEdits : acceptTarget();
  // A new label: an id free in the table and in the map, named in the same undo step as the voxels.
  core::LabelTable names;
  if (label == 0) {
    label = m_document.freeLabelId();
    if (label == 0) {
      m_bench.reportError(tr("Accept: every label id is in use"));
      return false;
    }
    core::LabelEntry entry;
    entry.id = label;
    entry.name = tr("Label %1").arg(label).toStdString();
    entry.color = m_document.session()->table().colorForNewLabel();
    names.set(entry);
  }
  auto patch = m_session->accept(label);
  if (!patch && !(m_sessionEdits == label && m_sessionEdits != 0)) {
    m_bench.reportError(tr("Accept: %1").arg(fromError(patch.error())));
    return false;
  }
  bool ok = false;
  if (m_sessionEdits != 0 && m_sessionEdits == label) {
    // A model-guided session edited the label as it was: the object replaces it (removed voxels become
    // background), everything else is written back as it is, in one undo step.
    const core::LabelMap& labels = session->labels();
    const inference::ObjectMask& object = m_session->mask();
    core::LabelPatch replace;
    replace.box = object.box;
    const core::Size3 d = labels.geometry().dimensions();
    for (std::int64_t z = 0; z < d[2]; ++z)
      for (std::int64_t y = 0; y < d[1]; ++y)
        for (std::int64_t x = 0; x < d[0]; ++x)
          if (labels.at(core::Index3{x, y, z}) == label) replace.box.include(core::Index3{x, y, z});
    if (replace.box.empty()) {
      m_bench.reportError(tr("Accept: there is no object to accept yet"));
      return false;
    }
    const core::IndexBox& b = replace.box;
    replace.voxels.reserve(static_cast<std::size_t>(b.voxelCount()));
    for (std::int64_t z = b.min[2]; z <= b.max[2]; ++z)
      for (std::int64_t y = b.min[1]; y <= b.max[1]; ++y)
        for (std::int64_t x = b.min[0]; x <= b.max[0]; ++x) {
          const core::Label now = labels.at(core::Index3{x, y, z});
          replace.voxels.push_back(object.contains(core::Index3{x, y, z}) ? label : now == label ? core::Label{0} : now);
        }
    ok = m_tools.applyPatch(replace, "Accept AI object", false, nullptr);
  } else {
    ok = m_tools.applyPatch(*patch, "Accept AI object", true, names.empty() ? nullptr : &names);
  }
  const std::size_t voxels = m_objectVoxels;
  discardObject();  // the next clicks start a new object
  // The status said how the object was computed; now it says what became of it.
  if (ok) {
    const core::LabelEntry* entry = m_document.session() ? m_document.session()->table().find(label) : nullptr;
    m_status->setText(tr("Accepted: %n voxel(s) written to label %1", nullptr, static_cast<int>(std::min<std::size_t>(
                                                                                 voxels, std::numeric_limits<int>::max())))
                          .arg(entry ? QString("%1 \u201c%2\u201d").arg(label).arg(QString::fromStdString(entry->name))
                                     : QString::number(label)));
    Q_EMIT objectAccepted(label);
  }
  return ok;
}

void AiPanel::discardObject() {
  ++m_generation;
  m_session.reset();
  m_sessionEdits = 0;
  m_queue.clear();
  m_computing.reset();
  m_confirmedPoints.clear();
  clearPreview();
  m_status->clear();  // it described the object that went
  updateState();
}

}  // namespace delineate::app::gui
